"""A run plan for one model: which benchmarks, methods, samples and options ``lexprobe run --model X`` runs.

From the flags (``--methods``, ``--chat``, ``--layer``, ``--layers``, ``--sample``) or a small YAML file
(``--plan FILE``), checked with pydantic (an unknown key, a wrong type: one line naming where it is). Every
part's options are checked against its benchmark's declarations before any data or model loads
(``core.options.check_declared``, ``check_method_options``): the plan fails at once, never after an hour.

```yaml
model: smollm2-135m-instruct      # or --model
methods: all                      # every method of each benchmark (default: likelihood); or a list
chat: true                        # choose in the tokenizer's chat template
sample: 20                        # every part's sample (groups per POS, instances per set, ...); `full`: all
options: {layer: 6}               # config options, where a part's benchmark and method take them
benchmarks:                       # (default: every benchmark) each may set its own of the above, and `data`
  wdlmpro: {sample: 50}
  coda21: {methods: [likelihood], data: clean-hard}
  senserank: {options: {layers: "0,3,6"}}
```

A benchmark with one method (sense ranking: ``similarity``) runs it whatever ``methods`` says; a method a
benchmark does not have is left out of it (said in the plan); ``all`` is every method the benchmark has,
a method the model cannot serve skipped with one line when its part comes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexprobe.errors import LexprobeError

Methods = Union[Literal["all"], list[str]]
Size = Union[Literal["full"], int]


class Choices(BaseModel):
    """What a plan may say for every benchmark, or for one."""

    model_config = ConfigDict(extra="forbid")

    methods: Methods | None = None
    chat: bool | None = None
    sample: Size | None = None
    data: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class PlanFile(Choices):
    """A plan file: the model, choices for every benchmark, and per benchmark its own."""

    model: str | None = None
    benchmarks: dict[str, Choices] | None = None


def read_plan(path: str | Path) -> PlanFile:
    """The YAML plan at ``path``, checked (one ``LexprobeError`` naming the key and what is wrong)."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise LexprobeError(f"--plan {path}: cannot read it ({err})") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise LexprobeError(f"--plan {path}: not YAML{where} ({getattr(err, 'problem', None) or err})") from None
    try:
        plan = PlanFile.model_validate(data if data is not None else {})
    except ValidationError as err:
        first = err.errors()[0]
        loc = [str(x) for x in first["loc"]]
        if "sample" in loc:  # pydantic names each branch of ``int | "full"``, the last one tried first
            where = ".".join(loc[: loc.index("sample") + 1])
            raise LexprobeError(f"--plan {path}: {where} must be a whole number of 1 or more, or `full`") from None
        where = ".".join(loc) or "the file"
        raise LexprobeError(f"--plan {path}: {where}: {first['msg']} (keys: model, methods, chat, sample, data, "
                            "options, benchmarks)") from None
    if isinstance(plan.sample, int) and plan.sample < 1:
        raise LexprobeError(f"--plan {path}: sample must be 1 or more, or `full`")
    for name, choices in (plan.benchmarks or {}).items():
        if isinstance(choices.sample, int) and choices.sample < 1:
            raise LexprobeError(f"--plan {path}: benchmarks.{name}.sample must be 1 or more, or `full`")
    return plan


@dataclasses.dataclass(frozen=True)
class PlannedPart:
    """A part of the plan: a benchmark asked one way, on a sample (None: the benchmark's full data), with config
    options."""

    benchmark: str
    method: str
    chat: bool
    sample: int | None
    data: str | None
    options: tuple[tuple[str, Any], ...]
    full: bool = False  #: ``sample: full``


def planned_parts(plan: PlanFile, benchmarks: list[str], default_sample: dict[str, int | None]) -> tuple[
        list[PlannedPart], list[str]]:
    """The parts of ``plan`` on ``benchmarks`` (in order), and notes on what it leaves out; every part's options
    checked against its benchmark's declarations."""
    from lexprobe.core.registry import get

    if plan.benchmarks:
        unknown = [n for n in plan.benchmarks if n not in benchmarks]
        if unknown:
            raise LexprobeError(f"the plan names {', '.join(unknown)}, not among the benchmarks run "
                                f"({', '.join(benchmarks)}); drop it, or check --only")
        benchmarks = [n for n in benchmarks if n in plan.benchmarks]
    parts: list[PlannedPart] = []
    notes: list[str] = []
    for name in benchmarks:
        own = (plan.benchmarks or {}).get(name) or Choices()
        bench = get(name)
        methods = own.methods if own.methods is not None else plan.methods
        chosen = _methods(name, list(bench.methods), methods, notes, strict=own.methods is not None)
        sample = own.sample if own.sample is not None else plan.sample
        size = None if sample == "full" else sample if sample is not None else default_sample.get(name)
        chat = bool(own.chat if own.chat is not None else plan.chat)
        for method in chosen:
            options = _options(name, method, {**plan.options, **own.options}, strict=own.options)
            parts.append(PlannedPart(name, method, chat and method == "choose", size, own.data, options,
                                     sample == "full"))
        _taken(name, chosen, own.options, [p for p in parts if p.benchmark == name])
    if not parts:
        raise LexprobeError("the plan has no part to run: no benchmark has the methods it names"
                            + (f" ({'; '.join(notes)})" if notes else ""))
    return parts, notes


def _methods(name: str, declared: list[str], wanted: Methods | None, notes: list[str], strict: bool = False) -> list[
        str]:
    """The methods of benchmark ``name`` the plan asks (``declared``: the benchmark's, first the default); one it
    lacks is a note where the plan's methods are for every benchmark, an error where they are this one's
    (``strict``)."""
    if len(declared) == 1:
        return declared  # its one method (sense ranking's similarity): not a choice
    if wanted is None:
        return [declared[0]]
    if wanted == "all":
        return declared
    unknown = [m for m in wanted if m not in declared]
    if unknown and strict:
        raise LexprobeError(f"the plan asks {name} for the method {', '.join(unknown)}, which it has not; its methods: "
                            f"{', '.join(declared)}")
    if unknown:
        notes.append(f"{name} has no {' or '.join(unknown)} method ({', '.join(declared)})")
    return [m for m in wanted if m in declared]


def _options(name: str, method: str, options: dict[str, Any], strict: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The config options of a part: those its benchmark declares and its method takes (``strict``: the
    benchmark's own, which must exist), checked by the declarations."""
    from lexprobe.core.options import check_declared, check_method_options, field_named
    from lexprobe.core.registry import get

    bench = get(name)
    kept = {}
    for key, value in options.items():
        declared = field_named(bench.Config, key)
        if declared is None or declared.group is not None or not declared.cli:
            if key in strict:
                raise LexprobeError(f"{name} has no option {key!r} (a plan's options are the `{name} eval` options, "
                                    "spelled with underscores)")
            continue
        if declared.applies(method):
            kept[key] = tuple(value) if isinstance(value, list) else value
    if kept:
        config = dataclasses.replace(bench.Config(), method=method, **kept)
        check_declared(config)
        check_method_options(config)
        check = getattr(config, "validate", None)
        if callable(check):
            check()
    return tuple(sorted(kept.items()))


def _taken(name: str, methods: list[str], options: dict[str, Any], parts: list[PlannedPart]) -> None:
    """A benchmark's own options each taken by one of its parts, else the line its declarations give (an option
    of a method the plan does not run on it: ``--layer only applies with --method embedding``)."""
    from lexprobe.core.options import check_method_options
    from lexprobe.core.registry import get

    taken = {k for p in parts for k, _ in p.options}
    for key, value in options.items():
        if key not in taken and methods:
            config = get(name).Config()
            check_method_options(dataclasses.replace(config, method=methods[0],
                                                     **{key: tuple(value) if isinstance(value, list) else value}))


def unused_options(options: dict[str, Any], parts: list[PlannedPart]) -> list[str]:
    """The plan's options for every benchmark that no part takes (a typo, or a method not run)."""
    taken = {k for p in parts for k, _ in p.options}
    return [k for k in options if k not in taken]
