"""The shape of every lexprobe result file, field by field (after lm-eval's ``result_schema.py``).

One top-level shape for every benchmark and method; ``report`` and ``compare`` read results
only through ``load`` and the accessors below.

``schema_version`` (int)
    2. Files without it are schema 1 (lexprobe before the Benchmark contract): ``load`` refuses them in one
    line naming the lexprobe that reads and upgrades them (``SCHEMA_1_READER``); any other version is
    refused in one line.
``benchmark`` (str)
    The registry name: ``wdlmpro``, ``coda21``, ``senserank`` (the one name of command,
    package and results).
``tasks`` (list[str])
    The tasks the result holds, keys of ``metrics``: ``w2d``/``d2w``; ``alignment``; the
    sense-ranking corpus (``semcor``, ...).
``model`` (dict)
    The scorer's ``describe()``: at least ``name`` and ``kind`` (``human`` for people), with what the method read
    of the model over it (``Records.model``): a token-vector run's ``layer`` as asked and its
    ``hidden_states_index``, whatever layer the model was loaded at; a layer sweep's ``layers`` and its best.
``method`` (str) / ``recipe`` (str)
    How the model was asked (``likelihood``, ``choose``, ``similarity``, ``human``) and how
    faithfully the source was followed (``paper``, ``authors``). Both are in the resume key.
``readings`` (list[str])
    The answer readings of the method whose metrics are reported, in report order (choose:
    ``likelihood``, ``likelihood_cyclic`` with ``--debias cyclic``, ``generation`` read
    strictly, ``generation_lenient``; a method may add any number). Empty for single-reading
    methods, whose metric names are plain.
``config`` (dict)
    The benchmark's typed config as given (``core.options.recorded``).
``metrics`` (dict)
    ``{task: {slice: {metric: number | null, ..., "n": int, "ci": {metric: [lo, hi]}}}}``.
    A slice is a part of speech (``n``, ``v``), a bucket, or ``all`` (always present). With
    readings, a metric is named ``<reading>.<metric>`` (``generation.p_at_1``,
    ``generation.valid``, ``generation.failures.unparseable``). ``n`` counts the units of the
    slice; ``ci`` holds 95% bootstrap intervals (see ``intervals``).
``baselines`` (dict)
    ``{name: {task: {slice: {...as metrics...}}}}``: reference figures on the same units;
    ``random`` (the random baseline: exact expectation, or over the options shown) always
    when it can be computed, ``oracle`` where the benchmark has one.
``breakdowns`` (dict)
    ``{task: {name: ...}}``: benchmark-specific breakdowns (frequency bands, k, curves; a
    choose run's ``position_bias``: ``{slice: {reading: {"n", "chosen", "gold", "most_chosen",
    "most_chosen_share", "gold_share_there", "tv_distance"}}}``, presented positions chosen
    beside gold ones, 1 = first shown).
``counts`` (dict[str, int])
    Every truncation, skip and drop of the run, by a name that starts with ``skipped_``,
    ``dropped_`` or ``truncated_`` (``skipped_groups``, ``skipped_too_long``,
    ``dropped_rare_sense``, ``dropped_unaligned``; sense ranking's ``database_unaligned``
    too), plus other tallies of the data (``database``, ``queries``, ...); the CLI prints the
    non-zero losses. Static word vectors add ``static_texts``/``static_tokens`` (the distinct
    texts embedded and their NLTK tokens), ``skipped_oov_tokens`` (tokens without a vector,
    left out of the averages) and ``zero_vector_texts`` (texts with no token that has one:
    cosine 0 with everything); under ``--recipe authors`` WDLMPro adds, per task,
    ``dropped_<task>_targets_without_vectors``, ``dropped_<task>_groups_too_few_candidates``
    and ``dropped_<task>_candidates_without_vectors`` (the authors' filter; such a target's
    instance has ``dropped``, its reason, and no rank), CoDA21
    ``skipped_groups_without_vectors`` (also listed in ``skipped``). CoDA21's ``--method ask``
    counts ``questions_asked``, ``truncated_contexts`` (contexts cut to 72 words) and
    ``skipped_too_long`` (groups with a question longer than the model's input). Likelihood
    runs of language models count what did not fit the model's positions: CoDA21
    ``truncated_contexts`` (contexts whose start was cut; per group in its instance too) and
    WDLMPro ``truncated_definitions`` (candidates whose query lost definition text; per
    instance too), and ``skipped_too_long`` (units whose scored text alone does not fit, listed
    in ``skipped``); sentence encoders count ``truncated_texts`` (distinct texts longer than the
    model's ``max_seq_length``, which it cuts).
``skipped`` (list[{"unit", "reason"}])
    Units not evaluated, with the reason.
``instances`` (list[dict])
    One record per unit (per unit and option order for choose, with a block per reading
    holding its ``positions``; ``rotation`` marks the extra cyclic orders of ``--debias
    cyclic``), benchmark-specific fields; left out with ``--no-instances``.
    ``contract.unit_values`` reads them.
``fitted`` (dict, optional)
    What the run fitted before scoring, on a declared split never scored in the same result (a pair task's
    decision threshold): ``{name: {"value", "on", "n", ...}}``; the unit values read it.
``sweep`` (dict, optional)
    A parameter sweep (``senserank eval --layers``): ``{"parameter", "values": {value:
    {"metrics", "baselines", "breakdowns"}}, "best"}``; ``metrics`` then holds the best value's.
``systems`` (dict, optional)
    Other systems' answers on the same units, beside the model's (all-words WSD: the published systems of Maru et
    al. 2022 and ``--answers`` files): per system its figures per slice, breakdowns and the paired comparison of
    the model with it (``benchmarks/wsd/systems.py`` builds it, ``benchmarks/wsd/results.py`` checks its shape).
``run`` (dict)
    The run record (``run_record.py``): versions, commit, device, dtype, batch size, model
    revision, items digest, method, recipe, seed, command, processes, and ``reproduce``: the ``eval`` command
    that scores the same items the same way (``core.options.eval_command``; null where the items did not
    come from the config, e.g. an API caller's own items).
``dataset`` (dict, optional)
    The data the run read (``Items.dataset``): ``name``, ``sample`` (true for a stand-in such as the
    bundled SemCor sample or a CoDA21-style set built from WordNet when the official files are missing),
    ``what`` (in words) and ``get`` (the command that fetches the real data); ``draw``: how the run drew its
    items from it, in the benchmark's words (``Items.draw``: "a seeded sample of 100 instances of each set
    (--limit 100 --seed 0)"). The report puts a banner on results with ``sample`` true or a ``draw``.
``intervals`` (dict)
    How every ``ci`` was obtained (method, unit, level, resamples, seed).
``timing`` (dict)
    Seconds and scorer counters; never compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, TypedDict

from lexprobe import validation
from lexprobe.errors import DataError
from lexprobe.tables import model_name  # noqa: F401 - read from here by report and compare

SCHEMA_VERSION = 2
REQUIRED = ("schema_version", "benchmark", "tasks", "model", "method", "recipe", "readings", "config", "metrics",
            "baselines", "breakdowns", "counts", "skipped")
#: ``instances`` is left out by ``--no-instances`` (``load`` then gives an empty list)
def new_result(benchmark: str, model: dict, method: str, recipe: str, config: dict, sections: dict) -> dict:
    """A schema-2 result from its sections (missing ones empty), in the documented field order."""
    result: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "benchmark": benchmark,
                              "tasks": list(sections.get("tasks") or []), "model": model, "method": method,
                              "recipe": recipe, "readings": list(sections.get("readings") or []), "config": config}
    for name in ("metrics", "baselines", "breakdowns", "counts"):
        result[name] = sections.get(name) or {}
    result["skipped"] = sections.get("skipped") or []
    result["instances"] = sections.get("instances") or []
    for optional in ("fitted", "sweep", "systems"):
        if sections.get(optional) is not None:
            result[optional] = sections[optional]
    return result


class _Required(TypedDict):
    schema_version: int
    benchmark: str
    tasks: list[str]
    model: dict[str, Any]
    method: str
    recipe: str
    readings: list[str]
    config: dict[str, Any]
    metrics: dict[str, Any]
    baselines: dict[str, Any]
    breakdowns: dict[str, dict[str, Any]]
    counts: dict[str, int]
    skipped: list[Skipped]


class Skipped(TypedDict):
    unit: Any
    reason: Any


class RunRecord(TypedDict, total=False):
    """The run record's fields that ``report`` and ``compare`` read as text (``run_record.py`` writes them all;
    the others are shown as they are)."""

    git_commit: Optional[str]
    git_dirty: Optional[bool]
    model_revision: Optional[str]
    items_digest: Optional[str]
    method: Optional[str]
    recipe: Optional[str]
    job: Optional[str]  #: the digest of the run's resume key (``evaluate``): a re-run replaces only its own result
    reproduce: Optional[str]  #: the eval command that scores the same items (``evaluate``)


class ResultFile(_Required, total=False):
    """The top level of a schema-2 result, as ``validation`` checks it (the open metric trees below)."""

    instances: list[dict[str, Any]]
    fitted: dict[str, dict[str, Any]]
    sweep: dict[str, Any]
    systems: dict[str, Any]
    run: RunRecord
    intervals: dict[str, Any]
    timing: dict[str, Any]
    plot: Any
    key_file: str  #: the run's answers as a key file beside the result (all-words WSD)


#: a 95% interval: ``[lo, hi]`` (null where a bound could not be computed)
Interval = tuple[Optional[float], Optional[float]]
#: a metric value: a number, or null where it could not be computed
MetricValue = Optional[float]


class UnitSpec(TypedDict):
    """One unit as ``contract.unit_values`` reads it from the instances (what intervals and compare use)."""

    key: str
    task: str
    pos: Optional[str]
    values: dict[str, MetricValue]


def problems(result: Any) -> list[str]:
    """What makes ``result`` not a schema-2 result (empty when it is one)."""
    if not isinstance(result, dict):
        return ["not a JSON object"]
    out = [f"no {k!r}" for k in REQUIRED if k not in result]
    if out:
        return out
    out = validation.problems(result, ResultFile)
    if out:
        return out
    if "name" not in result["model"]:
        out.append("model has no name")
    for name, tree in [("metrics", result["metrics"])] + [(f"baselines.{b}", t) for b, t in result["baselines"].items()]:
        out += _slice_problems(name, tree, result["tasks"], name == "metrics")
    return out


def _slice_problems(name: str, tree: Any, tasks: list, need_all: bool) -> list[str]:
    out = []
    if not isinstance(tree, dict):
        return [f"{name} is not an object"]
    for task, slices in tree.items():
        if task not in tasks:
            out.append(f"{name}.{task}: not among tasks {tasks}")
        if not isinstance(slices, dict) or (need_all and "all" not in slices):
            out.append(f"{name}.{task} has no 'all' slice")
            continue
        for sl, m in slices.items():
            where = f"{name}.{task}.{sl}"
            if not isinstance(m, dict):
                out.append(f"{where} is not an object")
                continue
            if need_all and not isinstance(m.get("n"), int):
                out.append(f"{where}.n is not an integer")
            for key, value in m.items():
                if key == "ci":
                    if validation.problems(value, dict[str, Interval]):
                        out.append(f"{where}.ci is not {{metric: [lo, hi]}} of numbers")
                elif value is not None and validation.problems(value, float):
                    out.append(f"{where}.{key} is not a number")
    return out


#: the last lexprobe that reads schema-1 result files (and upgrades them to schema 2 on load)
SCHEMA_1_READER = "lexprobe 0.1.0 (git 91d9b0c)"


def check_version(result: dict, where: str = "the result") -> None:
    """One line for a result this lexprobe does not read: schema 1 (the lexprobe that reads it named), or a
    version other than ``SCHEMA_VERSION``."""
    version = result.get("schema_version", 1)
    if version == SCHEMA_VERSION:
        return
    if version == 1:
        raise DataError(f"{where} is a schema-1 result (lexprobe before its result schema 2); {SCHEMA_1_READER} "
                        "reads and upgrades it (`git checkout 91d9b0c && pip install .` in lexprobe's repository), "
                        "or rerun the evaluation")
    raise DataError(f"{where} has result schema version {version!r}; this lexprobe reads version {SCHEMA_VERSION}: "
                    "upgrade lexprobe or rerun the evaluation")


def looks_like_result(obj: Any) -> bool:
    """Whether a JSON value is a lexprobe result of any schema version (before checking it)."""
    return isinstance(obj, dict) and "benchmark" in obj and ("metrics" in obj or "layers" in obj or "sweep" in obj)


def load(path: str | Path) -> dict:
    """Read and check one result file (schema 2; ``check_version``); the path is kept under ``_path``."""
    from lexprobe.data.files import read_json

    path = Path(path)
    if not path.is_file():
        raise DataError(f"result file {path} not found; pass the --out file of an `eval` (or `lexprobe run`)")
    raw = read_json(path, "pass the --out file of an `eval`")
    if not looks_like_result(raw):
        raise DataError(f"{path} is not a lexprobe result file (no benchmark/metrics); pass the --out file of an `eval`")
    check_version(raw, str(path))
    result = raw
    wrong = problems(result)
    if wrong:
        raise DataError(f"{path} is not a valid lexprobe result ({'; '.join(wrong[:3])}); rerun the evaluation")
    result.setdefault("instances", [])
    _check_instances(result, path)
    result["_path"] = str(path)
    return result


# --- accessors ---------------------------------------------------------------------------------

def _check_instances(result: dict, path: Path) -> None:
    """Every per-item record readable by its benchmark (a record without ``target`` is one line, not a
    KeyError in the report or ``compare``)."""
    from lexprobe.core.contract import instance_spec, unit_values
    from lexprobe.core.registry import get

    if not result["instances"]:
        return
    if any(not isinstance(i, dict) for i in result["instances"]):
        raise DataError(f"{path} is not a valid lexprobe result (a per-item record is not an object); rerun the "
                        "evaluation")
    try:
        units = unit_values(get(result["benchmark"]), result)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        what = f"lacks {err}" if isinstance(err, KeyError) else f"is malformed ({type(err).__name__}: {err})"
        raise DataError(f"{path} is not a valid lexprobe result (a per-item record {what}); rerun the "
                        "evaluation") from None
    spec = instance_spec(get(result["benchmark"]), result)  # every field report and compare read, typed
    for i, instance in enumerate(result["instances"]):
        wrong = validation.problems(instance, spec, f"instances[{i}]")
        if wrong:
            raise DataError(f"{path} is not a valid lexprobe result ({'; '.join(wrong[:3])}); rerun the evaluation")
    # every per-unit value that intervals and compare read is a number or null (``rank_score: "abc"``)
    for unit in units:
        wrong = validation.problems(vars(unit), UnitSpec)
        if wrong:
            raise DataError(f"{path} is not a valid lexprobe result (the per-item record of unit "
                            f"{getattr(unit, 'key', '?')!r}: {'; '.join(wrong[:3])}); rerun the evaluation")


def is_sweep(result: dict) -> bool:
    return isinstance(result.get("sweep"), dict)
