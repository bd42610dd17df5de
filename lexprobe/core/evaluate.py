"""``evaluate(benchmark, scorer, config, out)``: every benchmark, every method, one sequence.

Checks the output before any work, checks that the scorer serves the method's request types,
loads the items, builds the resume key (items digest, weights, method, recipe and every
score-changing option), lets the method compute per-unit records (its units go through
``distributed.run_units``: resume logs, ranks, progress), builds the result's sections from
them (``contract.sections``: metrics, baselines and intervals per task and slice, the
benchmark's breakdowns and counts), adds the run record and writes the
file (only rank 0; other ranks get None). The API and ``lexprobe <benchmark> eval`` both
come here, so they write the same file.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from lexprobe.core.contract import (
    Benchmark,
    Job,
    Method,
    Records,
    RunPart,
    finished,
    format_result,
    method_named,
    outputs,
    prefers,
    recipe_named,
    sections,
    written,
)
from lexprobe.core.options import key_options, recorded
from lexprobe.errors import LexprobeError


def resolve(benchmark: str | Benchmark) -> Benchmark:
    if isinstance(benchmark, Benchmark):
        return benchmark
    from lexprobe.core.registry import get

    return get(benchmark)


@dataclass(frozen=True)
class Prepared:
    """A run's config that passed every check (``prepare``), with its method and recipe; ``out``: the output a
    command already guarded against the config's inputs and the model and checked for another run's result
    (``evaluate`` then checks only the scorer's own inputs against it)."""

    config: Any
    method: Method
    recipe: Any
    out: Path | None = None


def prepare(bench: Benchmark, config: Any, items_given: bool = False) -> Prepared:
    """Every check of a run's options, in one place and once, before any work: the benchmark's config type, what
    the declarations refuse (a Python caller's config has met no parser), the method and recipe named, options of
    another method, the option groups' own checks and the benchmark's ``items.check``. ``lexprobe <benchmark>
    eval`` calls it before the model is checked and hands the result to ``evaluate``, which then checks nothing
    again; a Python caller's config is prepared by ``evaluate``."""
    from lexprobe.core.options import check_declared, check_method_options, check_nested_options

    if not isinstance(config, bench.Config):
        raise LexprobeError(f"{bench.meta.name} takes a {bench.Config.__name__}, got {type(config).__name__}")
    config = cast(Any, config)  # the benchmark's own dataclass (method, recipe, ...)
    check_declared(config, items_given)
    method, recipe = method_named(bench, config.method), recipe_named(bench, config.recipe)
    check_method_options(config)
    check_nested_options(config)
    bench.items.check(config)
    return Prepared(config, method, recipe)


def evaluate(benchmark: str | Benchmark, scorer: Any, config: Any = None, out: str | Path | None = None, *,
             items: Any = None, progress: bool = True, keep_instances: bool = True,
             overwrite: bool | None = None, model: str | None = None, items_from_config: bool = False) -> dict | None:
    """Evaluate ``scorer`` on ``benchmark`` with ``config`` (its ``Config``, or one ``prepare`` checked already;
    default options when None).

    ``items``: already loaded items (default: ``benchmark.items.load(config)``). With ``out``
    the result is written there and finished units are logged beside it first, so an
    interrupted run resumes. An ``out`` holding another job's result (another model, items or
    options), or a file that is no result, is refused before any unit is computed unless
    ``overwrite`` (None: ``outputs.overwrite_allowed()``, which ``lexprobe run --overwrite`` sets); the
    same job's own result is simply written again. Returns the schema-2 result (None on ranks other than 0).
    ``model``: the ``--model`` reference the scorer was loaded from (default: its name); where the items come from
    the config (``items`` not given, or ``items_from_config``) the run record's ``reproduce`` is the ``eval``
    command that scores the same items (``options.eval_command``).
    """
    from lexprobe.outputs import output_lock

    bench = resolve(benchmark)
    config = default_config(bench, scorer) if config is None else config
    prepared = config if isinstance(config, Prepared) else prepare(bench, config, items is not None)
    method, recipe = prepared.method, prepared.recipe
    config = cast(Any, bench.items.resolve(prepared.config))  # the default data resolved (once: it is then given)
    if overwrite is None:
        from lexprobe.outputs import overwrite_allowed

        overwrite = overwrite_allowed()
    from lexprobe.asking.engine import Engine

    method.check_backend(Engine(scorer), config, f"{bench.meta.name} --method {method.name}")
    out = None if out is None else Path(out)
    checked = out is not None and prepared.out is not None and Path(prepared.out) == out
    if out is not None and not checked:
        out = check_paths(bench, out, config, getattr(scorer, "path", None), scorer_inputs(scorer))
    elif out is not None and scorer_inputs(scorer):  # what the loaded scorer reads, against the outputs only
        out = check_paths(bench, out, config, getattr(scorer, "path", None), scorer_inputs(scorer),
                          checked={**{d.option: d.value for d in inputs(config)},
                                   "--model": getattr(scorer, "path", None)})
    with output_lock(out) if out is not None else contextlib.nullcontext():  # every writer of --out takes it
        if out is not None and not overwrite and not checked:
            refuse_replacing(out, None, expected=(bench.meta.name, config.method, config.recipe),
                             beside=companions(bench, out, config))
        from_config = items is None or items_from_config
        reproduce = _reproduce(bench, scorer, config, out, model) if from_config else None
        return _evaluate(bench, scorer, config, out, method, recipe, items, progress, keep_instances, overwrite,
                         reproduce, from_config)


def default_config(bench: Benchmark, scorer: Any) -> Any:
    """The benchmark's default options, with the first of its methods the loaded ``scorer`` serves (as ``eval``
    without ``--method``: ``contract.served_method``)."""
    import dataclasses

    from lexprobe.asking.engine import served
    from lexprobe.core.contract import served_method

    config = bench.Config()
    method = served_method(bench, lambda kind: served(scorer))
    return dataclasses.replace(config, method=method) if method and method != config.method else config


def _reproduce(bench: Benchmark, scorer: Any, config: Any, out: Path | None, model: str | None) -> str | None:
    """``run.reproduce``: the eval command of these items, its ``--out`` beside this result (never over it)."""
    from lexprobe.core.options import eval_command

    again = out.with_name(f"{out.stem}.eval.json") if out is not None else "OUT.json"
    return eval_command(bench, config, model or getattr(scorer, "name", None), getattr(scorer, "kind", None), again)


def run_part(benchmark: str | Benchmark, part: RunPart, config: Any, out: Path, *, scorer: Any = None,
             items: Any = None, heading: str | None = None, quiet: bool = False) -> dict:
    """One evaluation of a ``lexprobe run`` part (``RunParts.default_run``), in the sequence every benchmark's part
    shares, so that each part gives only what differs (its config, its result file, its closing line): the files
    it writes checked before the model loads (``check_paths``), ``part.model`` loaded as the method prefers with
    the part's model options (unless ``scorer``: one the part loaded itself, to build its data or pick its
    method), ``config`` evaluated with progress (``items``: what the part loaded from ``config`` itself, so
    ``run.reproduce`` is still the eval command), and the result printed (``format_result``, under ``heading:``
    when given; ``quiet``: nothing printed). Returns the result."""
    from lexprobe.models import load_scorer

    bench = resolve(benchmark)
    config = part.configure(config)  # a run plan's options (``--layer``)
    if scorer is None:
        out = check_paths(bench, out, config, part.model)
        scorer = load_scorer(part.model, prefer=prefers(bench, config.method), **part.options)
    result = evaluate(bench, scorer, config, out, items=items, model=part.model, items_from_config=True)
    assert result is not None  # `lexprobe run` is one process (rank 0)
    if not quiet:
        shown = format_result(bench, result)
        print(shown if heading is None else f"{heading}:\n{shown}")
    return result


def _evaluate(bench: Benchmark, scorer: Any, config: Any, out: Path | None, method: Any, recipe: Any, items: Any,
              progress: bool, keep_instances: bool, overwrite: bool = False,
              reproduce: str | None = None, from_config: bool = True) -> dict | None:
    from lexprobe.cache import resume_key, stable_hash
    from lexprobe.provenance import scorer_options, scorer_revision

    if items is None:
        items = bench.items.load(config)
    _describe_sample(bench, config, items)
    started = time.time()
    jobs: list[str] = []  # the digest of the job's (first) resume key: what the result records as ``run.job``

    def key(unit_items: Any, **extra: Any) -> dict:
        made = resume_key(unit_items, scorer_revision(scorer), f"{method.name}/{recipe.name}",
                          {"scorer": scorer_options(scorer), "config": key_options(config), **extra})
        if not jobs:
            jobs.append(stable_hash(made, length=64))
            if out is not None and not overwrite:  # a method asks for its key before it computes any unit
                refuse_replacing(out, jobs[0])
        return made

    output = method.run(Job(bench, scorer, config, items, recipe, out, progress, key))
    if output is None:  # another rank than 0: rank 0 writes the result
        return None
    if out is not None and not overwrite and not jobs:  # a method that keyed nothing: checked before the write
        refuse_replacing(out, None)
    result = assemble(bench, scorer, config, output)
    result["run"]["job"] = jobs[0] if jobs else None
    result["run"]["reproduce"] = reproduce
    if getattr(items, "dataset", None):  # items a caller drew itself say what they are (a sample, #29)
        result["dataset"] = items.dataset
    drawn = bench.items.draw(config) if from_config else None  # a caller's own items: it drew them
    if drawn:
        result["dataset"] = {**(result.get("dataset") or {}), "draw": drawn}
    result["timing"] = {"seconds": round(time.time() - started, 2), **output.timing,
                        "scorer_stats": dict(getattr(scorer, "stats", {}) or {})}
    if out is not None:
        write(bench, result, Path(out), config, keep_instances)
    return result


def _describe_sample(bench: Benchmark, config: Any, items: Any) -> None:
    """The estimate in force, if any (``--estimate``, a long run's line), told the run's unit and the option that
    sizes it with its groups' sizes (``Items.sample``), so it can say which value fits a time budget."""
    from lexprobe import estimate
    from lexprobe.core.options import field_named

    if estimate.current() is None:
        return
    sample = bench.items.sample
    declared = field_named(bench.Config, sample.field) if sample is not None else None
    estimate.describe(bench.meta.unit, declared.flag if declared else None,
                      sample.sizes(config, items) if sample is not None else ())


def check_paths(bench: Benchmark, out: str | Path, config: Any, model: Any, model_inputs: dict | None = None,
                checked: dict[str, Any] | None = None) -> Path:
    """``outputs.guard`` on what a run writes (``contract.outputs``: ``--out``, a plot: no two the same file) and what
    it reads (the config's declared inputs, ``--template`` too, the model, and ``model_inputs``: the scorer's own
    local inputs, ``scorer_inputs``: ``--tokenizer``, a served model's local folder). ``checked``: input options the command's declared-path guard checked already, with their values (the same
    paths are compared with the outputs here, not checked again)."""
    from lexprobe.outputs import INPUT, OUTPUT, PathOption, guard

    out = Path(out)
    written = [PathOption(option, OUTPUT, paths) for option, paths in outputs(bench, out, config).items()]
    read = inputs(config) + [PathOption(option, INPUT, value)
                             for option, value in {"--model": model, **(model_inputs or {})}.items()]
    guard(written + read, checked or {})
    return out


def scorer_inputs(scorer: Any) -> dict[str, Any]:
    """The local files and folders a scorer reads besides ``--model`` (``scorer.input_paths``: option name ->
    path, e.g. an endpoint's ``--tokenizer`` and the served model's folder): inputs no output may overwrite or
    lie inside (D2)."""
    declared = getattr(scorer, "input_paths", None) or {}
    return {str(option): value for option, value in dict(declared).items()}


#: the result's fields that name the files its run wrote beside it (``Presentation.written``: a figure, a key file)
WRITTEN_FIELDS = ("plot", "key_file")


def companions(bench: Benchmark, out: Path, config: Any) -> dict[str, list[Path]]:
    """The files a run writes beside its result (``contract.outputs`` but ``--out``: a plot, a key file), by label."""
    return {label: [Path(p) for p in paths] for label, paths in outputs(bench, out, config).items() if label != "--out"}


def companion_name(label: str) -> str:
    """What a companion is, from its label: ``--out (its key file)`` -> ``key file``; ``--plot`` -> ``output --plot``."""
    return label[label.index("(its ") + 5:].rstrip(")") if "(its " in label else f"output {label}"


def refuse_replacing(out: Path, job: str | None, expected: tuple[str, str, str] | None = None,
                     beside: dict[str, list[Path]] | None = None) -> None:
    """One ``OutputError`` naming ``--overwrite`` when ``out`` exists and is not this job's own result: a file
    that is no lexprobe result, or a result of another job (``run.job``, the digest of its resume key: model
    weights, items, method, recipe and every score-changing option). A re-run once replaced an earlier result
    without a word (#34). ``expected`` (benchmark, method, recipe): the early check under the output lock, before
    the model loads and the job is known, which refuses only what surely differs. ``beside`` (``companions``): the
    files the run writes beside the result; one that exists is refused too unless the result at ``out`` records it
    as its own (``WRITTEN_FIELDS``): a key file once replaced a user's file of that name without a word (D4)."""
    from lexprobe.core.result_schema import looks_like_result
    from lexprobe.errors import OutputError

    fix = "pass --overwrite to replace it, or choose another --out"
    try:
        existing: Any = json.loads(Path(out).read_bytes()) if Path(out).is_file() else None
    except (OSError, ValueError, RecursionError):
        existing = None
    for label, paths in (beside or {}).items():
        for path in paths:
            if os.path.lexists(path) and not _records(existing, path):
                raise OutputError(f"{path} exists and this run would replace it with its {companion_name(label)} "
                                  f"(it is no file an earlier run of --out {out} recorded); {fix}")
    if not os.path.lexists(out):
        return
    if not isinstance(existing, dict) or not looks_like_result(existing):
        raise OutputError(f"--out {out} exists and is not a lexprobe result; {fix}")
    run: dict = existing["run"] if isinstance(existing.get("run"), dict) else {}
    if expected is not None:
        found = (existing.get("benchmark"), existing.get("method"), existing.get("recipe"))
        if found != expected:
            raise OutputError(f"--out {out} holds an earlier result of another run ({' '.join(map(str, found))}); "
                              f"{fix}")
        return
    if job is None or run.get("job") != job:
        model = (existing.get("model") or {}).get("name") if isinstance(existing.get("model"), dict) else None
        raise OutputError(f"--out {out} holds an earlier result of another run (model {model}, other items, weights "
                          f"or options{'' if run.get('job') else ', or written before lexprobe recorded its job'}); "
                          f"{fix}")


def _records(result: Any, path: Path) -> bool:
    """Whether ``result`` (an earlier result at the same ``--out``) records ``path`` as a file its run wrote."""
    from lexprobe.outputs import same_file

    return isinstance(result, dict) and any(isinstance(result.get(k), str) and same_file(Path(result[k]), path)
                                            for k in WRITTEN_FIELDS)


def inputs(config: Any) -> list:
    """The paths a config reads (``option(..., path=INPUT)``, in nested groups too: ``--template``), each with what
    its reader reads beside it (``reads``: the gold key file beside a WSD ``.data.xml``), as ``outputs.PathOption``s."""
    from lexprobe.core.options import declared_paths
    from lexprobe.outputs import INPUT

    return [d for d in declared_paths(config) if d.kind == INPUT]


def assemble(bench: Benchmark, scorer: Any, config: Any, output: Records) -> dict:
    """The schema-2 result of a method's records (``contract.sections``), with the run record and the intervals
    block."""
    from lexprobe.core.result_schema import new_result
    from lexprobe.run_record import finish_result

    model = {**(scorer.describe() if hasattr(scorer, "describe") else {"name": str(scorer)}), **output.model}
    config_record = recorded(config)
    for key, extra in output.resolved.items():  # what the method resolved from the config (a template's text)
        config_record[key] = {**config_record.get(key, {}), **extra}
    built = sections(bench, output, config.method, config_record)
    result = new_result(bench.meta.name, model, config.method, config.recipe, config_record, built)
    finish_result(result, scorer, output.instances if output.items is None else output.items, unit=bench.meta.unit,
                  n_items=output.n_items)
    dataset = bench.items.dataset(config)
    if dataset:
        result["dataset"] = dataset
    return result


def write(bench: Benchmark, result: dict, out: Path, config: Any, keep_instances: bool = True) -> None:
    """The result file first, then its figures: nothing computed is lost to presentation (a model name the
    figure could not draw once cost the whole result, D1). A figure that fails is a warning naming it; the
    result stays (exit 0). A figure drawn puts its path into the result, which is then written again."""
    from lexprobe.cache import partial_path
    from lexprobe.distributed import remove_logs
    from lexprobe.reporting import write_json

    def saved() -> dict:
        return result if keep_instances else {k: v for k, v in result.items() if k != "instances"}

    write_json(out, saved())
    remove_logs(partial_path(out))
    try:
        written(bench, result, out, config)  # plots and key files beside the result (their paths go into it)
    except Exception as err:  # noqa: BLE001 - a figure is presentation: it never costs the result
        for field in WRITTEN_FIELDS:
            result.pop(field, None)
        files = [f"{companion_name(label)} {p}" for label, paths in companions(bench, out, config).items() for p in paths]
        detail = next((line for line in str(err).splitlines() if line.strip()), type(err).__name__)
        print(f"lexprobe: warning: the {' / '.join(files) or 'figure of ' + str(out)} was not written ({detail}); "
              f"the result {out} is written", file=sys.stderr, flush=True)
    else:
        if any(result.get(field) for field in WRITTEN_FIELDS):  # the result on disk records the files written
            write_json(out, saved())
    finished(bench, out, config, result)  # a vector store removed also when a figure failed


#: how the names of truncations, skips and drops in ``counts`` begin (``result_schema``); ``zero_vector``: static
#: vectors had no vector for any token of a text, which then scores cosine 0 with everything
LOSSES = ("skipped", "dropped", "truncated", "zero_vector", "unanswered")


def counts_line(result: dict) -> str | None:
    """The non-zero truncations, skips and drops of a result, in one line (the CLI prints it)."""
    parts = [f"{k.replace('_', ' ')} {v}" for k, v in (result.get("counts") or {}).items()
             if v and (k.startswith(LOSSES) or "unaligned" in k)]
    return ("counts: " + ", ".join(parts)) if parts else None
