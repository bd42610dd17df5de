"""The Benchmark contract: what one benchmark is, as a few small declared parts, in its own package.

A benchmark is a ``Benchmark`` record of parts (after Inspect AI's dataset + solver + scorer):

- ``meta``: a ``BenchmarkMeta`` (after MTEB's ``TaskMetadata``): its one name, unit, tasks, datasets, main score;
- ``Config``: a frozen dataclass of ``option(...)`` fields, compiled once (``core.options``) into the CLI,
  the recorded config, the resume key and the checks; ``recipes``: how faithfully to follow a source;
- ``items``: how items are loaded, checked and recorded;
- ``methods``: ``{name: Method}``: items -> requests (``asking.requests``) -> per-unit ``Records``;
- ``results``: per-unit records -> the result's sections and back (``Results``); ``presentation``: tables,
  console text, figures, the items page's rows (``Presentation``); a method with a result shape of its own
  (``--method choose``) brings its own, so no generic code branches on the method;
- optional: ``commands``, ``run`` (``lexprobe run``'s parts), ``human`` (people's items), ``template_fields``.

The functions at the end are how the framework reads these parts (``evaluate``, ``report``, ``compare``,
``run``); docs/ARCHITECTURE.md has the recipe for a new benchmark.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar

from lexprobe.errors import LexprobeError


@dataclass(frozen=True)
class SummaryColumn:
    """A column of the report's cross-benchmark summary (docs/llm.md's table)."""

    header: str  #: "W2D P@1 (%)"
    #: the metric of the ``all`` slice shown ("p_at_1"; a reading's is "<reading>.p_at_1"); "" (the usual):
    #: the benchmark's ``main_score``, filled in by ``BenchmarkMeta``
    metric: str = ""
    task: str | None = None  #: None: the result's first task (e.g. the sense-ranking corpus)
    part: str = ""  #: its name in the "parsed" and "agreement" columns of ask-to-choose runs
    scale: float = 100.0
    digits: int = 1


@dataclass(frozen=True)
class BenchmarkMeta:
    name: str  #: the one name: command, package, ``benchmark`` of result files
    title: str  #: as tables print it
    help: str  #: one line for ``lexprobe --help``
    unit: str  #: what intervals resample and compare pairs (target, group, query)
    tasks: tuple[str, ...]  #: the tasks a result can hold
    datasets: tuple[str, ...] = ()  #: data registry names its default run reads (fetched by ``lexprobe run``)
    main_score: str = ""  #: the headline metric (sentence-transformers' ``primary_metric``)
    unit_metrics: tuple[tuple[str, str], ...] = ()  #: (per-unit key, label), the order tables and compare use
    aliases: tuple[str, ...] = ()  #: further command names (``coda`` for ``coda21``)
    load_as: str | None = None  #: scorer kind to load a model as when --kind is not given (None: detected)
    summary: tuple[SummaryColumn, ...] = ()  #: its columns in the report's cross-benchmark summary
    #: unit metrics that are right-or-wrong per unit (0 or 1): ``compare`` tests them with exact McNemar
    binary_metrics: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """A headline the benchmark does not produce is an error where the benchmark is defined (its module
        cannot be imported), not a blank cell in a report: ``main_score`` is one of ``unit_metrics``, and so
        is every summary column's metric (those left "" show ``main_score``)."""
        produced = [key for key, _ in self.unit_metrics]
        if self.main_score not in produced:
            raise ValueError(f"benchmark {self.name!r}: main_score {self.main_score!r} is not one of its "
                             f"unit_metrics ({', '.join(produced) or 'none declared'})")
        columns = tuple(c if c.metric else dataclasses.replace(c, metric=self.main_score) for c in self.summary)
        for c in columns:
            if c.metric not in produced:
                raise ValueError(f"benchmark {self.name!r}: summary column {c.header!r} shows {c.metric!r}, which "
                                 f"is not one of its unit_metrics ({', '.join(produced)})")
        object.__setattr__(self, "summary", columns)


class Method(ABC):
    """How a benchmark asks the model. ``requests``: the request types (``asking.requests``) it asks, by
    alternative — a backend must serve every type of one of them (what a backend can do *is* the request
    types it serves)."""

    name: ClassVar[str]
    requests: ClassVar[tuple[tuple[type, ...], ...]] = ()
    help: ClassVar[str] = ""
    #: the scorer kind a model is loaded as for this method when --kind is not given (None: the benchmark's)
    load_as: ClassVar[str | None] = None
    #: the answer readings its results may report figures per (``<reading>.<metric>``); () for one score per unit
    readings: ClassVar[tuple[str, ...]] = ()
    #: its own right-or-wrong unit metrics besides the benchmark's ``meta.binary_metrics`` (``compare``)
    binary_metrics: ClassVar[tuple[str, ...]] = ()
    #: a result shape of its own: how its records become sections and are read back, and how they are shown
    #: (fields left None: the benchmark's)
    results: Results | None = None
    presentation: Presentation | None = None

    def check_backend(self, engine: Any, config: Any, what: str) -> None:
        """One line, before any work, where the model (asked through ``engine``, a ``asking.engine.Engine``) serves
        none of the method's alternatives."""
        if self.requests:
            engine.require(self.requests, what)

    def finished(self, out: Path, config: Any, result: dict | None = None) -> None:
        """After the result and its figures are written: what the run left beside it removed (default: nothing)."""

    @abstractmethod
    def run(self, job: "Job") -> "Records | None":
        """The run's per-unit ``Records`` on rank 0 (None on other ranks): units through
        ``distributed.run_units`` keyed by ``job.key``; ``evaluate`` builds the result from them."""


@dataclass
class Job:
    """One evaluation as ``evaluate`` prepared it: what a method needs to run."""

    benchmark: "Benchmark"
    scorer: Any
    config: Any
    items: Any
    recipe: Any
    out: Path | None
    progress: bool
    key: Callable[..., dict]  #: ``key(items, **extra)``: the resume key of this run (``cache.resume_key``)

    @property
    def engine(self) -> Any:
        """A new ``Engine`` on the run's model: how a method asks it (requests in, answers out). A method never
        calls the model itself."""
        from lexprobe.asking.engine import Engine

        return Engine(self.scorer)

    @property
    def log_base(self) -> Path | None:
        from lexprobe.cache import partial_path

        return partial_path(self.out) if self.out is not None else None


@dataclass(frozen=True)
class RunPart:
    """One part of ``lexprobe run``: a model on one benchmark, asked one way, on a sample.

    ``tag`` names the part's result files (``wdlmpro-<tag>.json``): empty for the default
    model's likelihood part (today's file names), so parts never overwrite each other.
    """

    model: str
    method: str = "likelihood"
    chat: bool = False  #: --method choose: the question in the tokenizer's chat template
    sample: int | None = None  #: the benchmark's sample size (groups per POS, instances); None: its default
    data: str | None = None  #: the one default data set to use (CoDA21: "clean-hard"); None: every one present
    tag: str = ""
    #: the model options ``load_scorer`` gets for ``model`` (``lexprobe run --model URL --served-model ...``)
    model_options: tuple[tuple[str, Any], ...] = ()
    #: options of the benchmark's ``Config`` the part sets (a run plan's ``--layer``), applied by ``run_part``
    config: tuple[tuple[str, Any], ...] = ()
    full: bool = False  #: the benchmark's whole data, no sample (a run plan's ``sample: full``)

    def stem(self, name: str) -> str:
        return f"{name}-{self.tag}" if self.tag else name

    def configure(self, config: Any) -> Any:
        """``config`` with the part's own options (``self.config``) set."""
        return dataclasses.replace(config, **dict(self.config)) if self.config else config

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_options)

    @property
    def label(self) -> str:
        return self.method + (" (chat)" if self.chat else "")


@dataclass(frozen=True)
class LLMPart:
    """A part of ``lexprobe run`` that the main job's causal LM runs on a benchmark (``RunParts.llm_parts``)."""

    method: str
    chat: bool
    samples: dict[str, int]  #: the sample by size, as ``RunParts.samples``: {"quick": 8, "full": 25}
    data: str | None = None  #: ``RunPart.data``: the one data set when several are present


@dataclass
class Unit:
    """One unit of a result, as intervals and ``compare`` see it."""

    key: str
    task: str
    pos: str  #: the unit's slice besides ``all`` (a part of speech, a bucket); "all": none
    values: dict[str, float | None] = field(default_factory=dict)


@dataclass
class Records:
    """What a method returns: its per-unit records, and what the run counted (lm-eval's ``process_results``).

    Why: a method computes per-unit values only; ``evaluate`` builds every ``metrics``,
    ``baselines`` and ``ci`` of the result from them (``contract.sections``), so the same
    numbers are never aggregated twice, in two places, in two shapes.
    """

    instances: list[dict]  #: one record per unit (per unit and option order for choose): the result's instances
    items: Any = None  #: what the run record's items digest covers (None: the instances)
    #: how many items the run scored, where ``items`` is not a list of them (the run record's ``n_items``)
    n_items: int | None = None
    counts: dict[str, int] = field(default_factory=dict)  #: truncations, skips and drops counted while scoring
    skipped: list[dict] = field(default_factory=list)  #: units not evaluated: [{"unit", "reason"}]
    tasks: list[str] | None = None  #: the result's tasks (None: those of the units, in ``meta.tasks`` order)
    readings: list[str] = field(default_factory=list)  #: answer readings (choose), in report order
    resolved: dict = field(default_factory=dict)  #: what the method resolved from the config, by option (a template's text)
    #: what the method read of the model beyond how it was loaded (the layer its vectors came from), over the
    #: scorer's ``describe()`` in the result's ``model``: a model loaded at its default layer and asked at
    #: ``--layer 4`` once recorded ``layer: -1``, and the report labelled a layer-4 score "the last"
    model: dict = field(default_factory=dict)
    timing: dict = field(default_factory=dict)  #: the method's own timings (seconds per stage)
    sections: dict = field(default_factory=dict)  #: sections built otherwise, as they are (a layer sweep's ``sweep``)
    #: values the run fitted on a declared split before scoring (a decision threshold): the result's ``fitted``
    fitted: dict = field(default_factory=dict)


def _none(*args: Any) -> None:
    return None


@dataclass(frozen=True)
class Sample:
    """How a run's size is chosen (``estimate``: the value that fits a time budget): the config field that
    samples (``limit``) and, of loaded items, how many units each of its groups holds (per part of speech, per
    set): the option at N keeps at most N of each."""

    field: str
    sizes: Callable[[Any, Any], list[int]]  #: ``(config, items) -> [units of each group]``


@dataclass(frozen=True)
class Items:
    """A benchmark's items: how they are loaded, checked and recorded (``load`` before the model loads: data
    errors come first)."""

    load: Callable[[Any], Any]  #: the items a run evaluates, from its config
    #: one-line errors for option values no declaration can say (before any work)
    check: Callable[[Any], None] = _none
    #: the config with its default data resolved where there is a fallback (sense ranking's bundled sample)
    resolve: Callable[[Any], Any] = lambda config: config
    #: the data a run read (the result's ``dataset``: ``{"name", "sample", "what", "get"}``); None: not recorded
    dataset: Callable[[Any], dict | None] = _none
    #: how the run drew its items from that data, in words with the options that drew them ("a seeded sample of
    #: 100 instances of each set (--limit 100 --seed 0)"), recorded as the result's ``dataset.draw``; None: every
    #: item. Said by the benchmark that draws, because ``--limit`` means another draw in each: the report once
    #: read every ``--limit`` as "the first N items of each part of speech"
    draw: Callable[[Any], str | None] = _none
    #: the option that sizes a run and its groups' sizes (the estimate's suggestion); None: not said
    sample: Sample | None = None


@dataclass(frozen=True)
class Results:
    """How per-unit records become a result's sections and are read back. A benchmark's is the default; a
    method with a result shape of its own (``--method choose``) has its own, whose given fields win
    (``reader``). Every field left None is the generic one below it."""

    unit_values: Callable[[dict], list] | None = None  #: per-unit metric values (``compare``, intervals)
    baseline_values: Callable[[dict], dict] | None = None  #: {baseline: its per-unit values on the same units}
    slices: Callable[[dict, list], dict] | None = None  #: a task's units by slice (``default_slices``)
    aggregate: Callable[[dict, str, str, list], dict] | None = None  #: a slice's figures (``mean_aggregate``)
    breakdowns: Callable[[dict], dict] | None = None  #: {task: {name: ...}} (frequency bands, k, position bias)
    counts: Callable[[dict], dict] | None = None  #: tallies derived from the records
    instance_spec: Callable[[dict], Any] | None = None  #: the shape of one instance (``result_schema.load``)
    unit_metrics: Callable[[Any], tuple] | None = None  #: (key, label) of ``unit_values`` (default: the meta's)
    #: ``(bench, records, method, config) -> sections``: the whole build (default ``default_sections``)
    sections: Callable[..., dict] | None = None


@dataclass(frozen=True)
class Presentation:
    """How results are shown: report tables (console text is derived from them), figures, the items page's
    rows, and the files beside a result. Per method like ``Results``."""

    tables: Callable[[list], list] | None = None  #: ``lexprobe.tables.Table``s of results of one benchmark
    format_result: Callable[[dict], str] | None = None  #: the text the CLI prints after a run
    figures: Callable[[dict, Path, str], list] | None = None  #: (title, PNG path) of each figure for a report
    failure_rows: Callable[[dict], list] | None = None  #: the items page's rows (one per instance and reading)
    table_group: Callable[[dict], str] | None = None  #: which table a result belongs in (a data file, a corpus)
    summary_tag: Callable[[dict], str | None] | None = None  #: a word after its figures in the summary table
    #: after the result file is written: figures and key files beside it (their paths go into the result)
    written: Callable[[dict, Path, Any], None] | None = None
    #: every file a run writes, by option (none may overwrite an input): ``--out`` and its companions
    outputs: Callable[[Path, Any], dict] | None = None
    #: the report's breakdown figures of several results of the benchmark (``tables.Breakdown``: a line per model
    #: by bucket, with the baselines' lines): WSD's F1 by number of senses, CoDA21's accuracy by k
    breakdowns: Callable[[list], list] | None = None
    failure_columns: tuple[tuple[str, str], ...] = ()  #: (row key, header) of the items page
    failure_note: str = ""  #: what a "failure" is on the items page, in one sentence


@dataclass(frozen=True)
class RunParts:
    """What ``lexprobe run`` asks of a benchmark (optional)."""

    #: ``(out_dir, part) -> {metrics, ...}``: a quick sample on ``part.model``, asked ``part.method``
    default_run: Callable[..., dict]
    #: the default model's sample by size ("quick": the default, "full": ``--full``); None: the run's own default
    samples: dict[str, int | None] = field(default_factory=dict)
    llm_parts: tuple[LLMPart, ...] = ()  #: the parts its causal LM runs (after every default-model part)


@dataclass(frozen=True)
class HumanItems:
    """People's items (``lexprobe human``, optional): the page's kind ("choice": a prompt and lettered options;
    "align": contexts matched to definitions), the item set from the command's options, and people's results
    (``(bench, item_set, answers) -> {person: result}``)."""

    kind: str
    item_set: Callable[[Any], dict]
    results: Callable[..., dict]


@dataclass(frozen=True, eq=False)
class Benchmark:
    """One benchmark, as separate small parts (after Inspect's dataset + solver + scorer): what it is (``meta``,
    its options ``Config``, ``recipes``), its ``items``, its ``methods`` (items -> requests -> per-unit records),
    how records become results (``results``) and how results are shown (``presentation``); and, where it has
    them, its further ``commands``, its ``lexprobe run`` parts, people's items and choose-template fields. The
    framework reads the parts through the functions below; a benchmark defines nothing else."""

    meta: BenchmarkMeta
    Config: type
    items: Items
    methods: dict[str, Method]
    recipes: dict[str, Any]
    results: Results = Results()
    presentation: Presentation = Presentation()
    commands: Callable[[Any], None] | None = None  #: commands besides ``eval`` (build, stats, ...) on its sub-parser
    run: RunParts | None = None
    human: HumanItems | None = None
    #: its fields of the choose prompt templates (``prompting.templates.TemplateField``) by name
    template_fields: dict[str, Any] = field(default_factory=dict)
    #: what ``lexprobe export hf|lm-eval`` writes of it (``core.exports.BenchmarkExport``); None: not exported
    exports: Any = None


# --- what the framework reads of a benchmark ------------------------------------------------------------
def _named(bench: Benchmark, what: str, table: dict[str, Any], name: str) -> Any:
    if name not in table:
        raise LexprobeError(f"unknown {what} {name!r} for {bench.meta.name}; use one of: {', '.join(table)}")
    return table[name]


def method_named(bench: Benchmark, name: str) -> Method:
    return _named(bench, "method", bench.methods, name)


def recipe_named(bench: Benchmark, name: str) -> Any:
    return _named(bench, "recipe", bench.recipes, name)


def prefers(bench: Benchmark, method: str) -> str | None:
    """The scorer kind to load a model as for ``method`` when --kind is not given (the method's, else the
    benchmark's ``meta.load_as``; None: detected)."""
    return method_named(bench, method).load_as or bench.meta.load_as


def served_method(bench: Benchmark, serves: Callable[[str | None], Any]) -> str | None:
    """The first of ``bench``'s methods, in their declared order, that a model serves: ``serves(kind)`` gives the
    request types it serves loaded as that kind (the kind each method ``prefers``; None: not known before it
    loads). None where none is served or it is not known: the declared default stands, and its refusal says why.
    Why: ``wsd eval --model all-MiniLM-L6-v2`` was refused for the likelihood method (no continuations) where
    ``--method embedding`` runs it, while ``wdlmpro eval`` took the same model (its likelihood method embeds)."""
    for name in bench.methods:
        served = serves_method(bench, name, serves)
        if served is None:
            return None
        if served:
            return name
    return None


def serves_method(bench: Benchmark, name: str, serves: Callable[[str | None], Any]) -> bool | None:
    """Whether a model serves every request type of one of method ``name``'s alternatives, loaded as the method
    ``prefers`` (``serves(kind)``, as for ``served_method``; None: not known before it loads)."""
    method = method_named(bench, name)
    types = serves(prefers(bench, name))
    if types is None:
        return None
    return not method.requests or any(all(t in types for t in option) for option in method.requests)


def _method_of(bench: Benchmark, method: str | dict | None) -> Method | None:
    name = method.get("method") if isinstance(method, dict) else method
    return bench.methods.get(name or "")


def reader(bench: Benchmark, method: str | dict | None, part: str, hook: str) -> Any:
    """A result part's hook for a method (a name, or a result naming it): the method's own (``Method.results`` /
    ``Method.presentation``) where it has one, else the benchmark's; None where neither has it. Why: a
    method-specific reading lives on the method, so no generic code asks which method a result came from."""
    own = getattr(_method_of(bench, method), part, None)
    found = getattr(own, hook, None) if own is not None else None
    return found if found is not None else getattr(getattr(bench, part), hook)


def default_slices(result: dict, units: list[Unit]) -> dict[str, list[Unit]]:
    """A task's units by slice: each ``Unit.pos`` (sorted), then ``all`` (every unit)."""
    out = {pos: [u for u in units if u.pos == pos] for pos in sorted({u.pos for u in units} - {"all"})}
    out["all"] = list(units)
    return out


def mean_aggregate(result: dict, task: str, slice: str, units: list[Unit]) -> dict:
    """A slice's figures from its units: each metric's mean over the units that have it (None: none has),
    ``n`` (units) and ``ci`` (``stats.bootstrap.mean_intervals``: a metric some unit lacks gets none)."""
    import numpy as np

    from lexprobe.stats.bootstrap import mean_intervals

    names = list(dict.fromkeys(k for u in units for k in u.values))
    per_unit = {k: [u.values.get(k) for u in units] for k in names}
    out: dict[str, Any] = {}
    for k, values in per_unit.items():
        present = [v for v in values if v is not None]
        out[k] = float(np.mean(present)) if present else None
    out["n"] = len(units)
    out["ci"] = mean_intervals(per_unit)
    return out


def unit_values(bench: Benchmark, result: dict) -> list[Unit]:
    return reader(bench, result, "results", "unit_values")(result)


def binary_metrics(bench: Benchmark, result: dict) -> frozenset[str]:
    """The unit metrics of ``result`` that are right or wrong per unit (0 or 1), by name: the benchmark's and its
    method's declared ones."""
    method = _method_of(bench, result)
    return frozenset(bench.meta.binary_metrics) | frozenset(method.binary_metrics if method is not None else ())


def instance_spec(bench: Benchmark, result: dict) -> Any:
    spec = reader(bench, result, "results", "instance_spec")
    return dict[str, Any] if spec is None else spec(result)


def unit_metrics(bench: Benchmark, result: dict) -> tuple[tuple[str, str], ...]:
    """(per-unit key, label) of ``unit_values``, in table order: the method's own where it has them, else the
    meta's."""
    own = reader(bench, result, "results", "unit_metrics")
    return own(bench) if own is not None else bench.meta.unit_metrics


def sections(bench: Benchmark, records: Records, method: str, config: dict) -> dict:
    """The result's sections built from a method's per-unit ``records`` (``default_sections``, or the part's own)."""
    build = reader(bench, method, "results", "sections") or default_sections
    return build(bench, records, method, config)


def default_sections(bench: Benchmark, records: Records, method: str, config: dict) -> dict:
    """``metrics`` and ``baselines`` per task and slice (``slices``, ``aggregate`` on ``unit_values`` and
    ``baseline_values``), ``breakdowns`` and ``counts``, ``skipped`` and ``instances`` as recorded. ``config``:
    the result's recorded config (hooks read e.g. a run's options from it). People's answers come here too."""
    def hook(name: str, default: Callable | None) -> Any:
        return reader(bench, method, "results", name) or default

    slices, aggregate = hook("slices", default_slices), hook("aggregate", mean_aggregate)
    result = {"benchmark": bench.meta.name, "method": method, "config": config, "readings": list(records.readings),
              "instances": records.instances, "skipped": records.skipped,
              **({"fitted": records.fitted} if records.fitted else {})}
    units = hook("unit_values", None)(result)
    tasks = records.tasks or [t for t in bench.meta.tasks if any(u.task == t for u in units)]
    result["tasks"] = list(tasks)

    def by_slice(task: str, members: list[Unit]) -> dict:
        mine = [u for u in members if u.task == task]
        return {name: aggregate(result, task, name, us) for name, us in slices(result, mine).items()}

    metrics = {task: by_slice(task, units) for task in tasks}
    baselines = {name: {task: by_slice(task, base) for task in tasks}
                 for name, base in hook("baseline_values", lambda r: {})(result).items()}
    result.update(metrics=metrics, baselines=baselines)
    counts = {**records.counts, **hook("counts", lambda r: {})(result)}
    return {"tasks": list(tasks), "readings": list(records.readings), "metrics": metrics, "baselines": baselines,
            "breakdowns": hook("breakdowns", lambda r: {})(result), "counts": counts, "skipped": records.skipped,
            "instances": records.instances, **({"fitted": records.fitted} if records.fitted else {}),
            **records.sections}


def main_scores(bench: Benchmark, result: dict) -> dict[str, float | None]:
    """The headline (``meta.main_score``) of each task of ``result``'s ``all`` slice, by task; a choose
    result's by "<task> <reading>" (its metric there is "<reading>.<main_score>"). ``lexprobe run``
    prints and records these."""
    main, out = bench.meta.main_score, {}
    for task in result.get("tasks") or []:
        values = ((result.get("metrics") or {}).get(task) or {}).get("all") or {}
        if main in values:
            out[task] = values[main]
        for key, value in values.items():
            if key.endswith("." + main):
                out[f"{task} {key[: -len(main) - 1]}"] = value
    return out


def main_score_label(bench: Benchmark) -> str:
    """The headline as tables name it (its ``unit_metrics`` label: "P@1", not the result's key ``p_at_1``)."""
    return dict(bench.meta.unit_metrics).get(bench.meta.main_score) or bench.meta.main_score


def tables(bench: Benchmark, results: list[dict]) -> list:
    """The report's tables of ``results`` (all of ``bench``): each presentation's tables of the results it shows,
    the benchmark's own first, then each method's in declaration order."""
    shown_by: dict = {}
    for r in results:
        shown_by.setdefault(reader(bench, r, "presentation", "tables"), []).append(r)
    order = [bench.presentation.tables, *(reader(bench, m, "presentation", "tables") for m in bench.methods)]
    return [t for build in dict.fromkeys(order) if build is not None and build in shown_by
            for t in build(shown_by[build])]


def breakdown_figures(bench: Benchmark, results: list[dict]) -> list:
    """The benchmark's breakdown figures of ``results`` (``Presentation.breakdowns``; none where it has none)."""
    figures = bench.presentation.breakdowns
    return [] if figures is None else figures(results)


def result_words(bench: Benchmark, result: dict, twice: bool = False) -> tuple[str, list[str]]:
    """How a figure names a result: its model (with the file where ``twice``: the same name for another result), and
    its method, recipe where not the paper's and summary tag (the layer read)."""
    from lexprobe.tables import model_name

    words = [str(result["method"])] + ([str(result["recipe"])] if result.get("recipe") not in (None, "paper") else [])
    tag = summary_tag(bench, result)
    words += [tag] if tag else []
    return model_name(result) + (f" ({Path(result['_path']).name})" if twice and result.get("_path") else ""), words


def result_label(bench: Benchmark, result: dict, twice: bool = False) -> str:
    """``model · method[, recipe][, tag]``: a result's line in a figure."""
    model, words = result_words(bench, result, twice)
    return f"{model} · {', '.join(words)}"


def format_result(bench: Benchmark, result: dict) -> str:
    show = reader(bench, result, "presentation", "format_result")
    return "" if show is None else show(result)


def figures(bench: Benchmark, result: dict, folder: Path, stem: str) -> list[tuple[str, Path]]:
    draw = reader(bench, result, "presentation", "figures")
    return [] if draw is None else draw(result, folder, stem)


def failure_rows(bench: Benchmark, result: dict) -> list[dict]:
    rows = reader(bench, result, "presentation", "failure_rows")
    return [] if rows is None else rows(result)


def table_group(bench: Benchmark, result: dict) -> str:
    group = reader(bench, result, "presentation", "table_group")
    return bench.meta.name if group is None else group(result)


def summary_tag(bench: Benchmark, result: dict) -> str | None:
    tag = reader(bench, result, "presentation", "summary_tag")
    return None if tag is None else tag(result)


def written(bench: Benchmark, result: dict, out: Path, config: Any) -> None:
    """After the result file is written: plots and key files beside it."""
    after = reader(bench, config.method, "presentation", "written")
    if after is not None:
        after(result, out, config)


def finished(bench: Benchmark, out: Path, config: Any, result: dict) -> None:
    """After the result and its figures: what the run's method leaves behind removed (``Method.finished``: sense
    ranking's vector store), whether or not a figure was drawn."""
    method = _method_of(bench, config.method)
    if method is not None:
        method.finished(out, config, result)


def outputs(bench: Benchmark, out: Path, config: Any) -> dict[str, list]:
    """Every file a run writes, by option: ``--out`` and its companions (the method's own presentation first: a
    method that writes no key file or figure declares none, so a file of that name is no concern of its run)."""
    files = reader(bench, config.method, "presentation", "outputs")
    return {"--out": [out]} if files is None else files(out, config)


def likelihood_only(bench: Benchmark, part: RunPart) -> None:
    """One line when a ``lexprobe run`` part asks a method the benchmark's default run has not (its one method is
    asked as the main job's "likelihood" part, or by its own name in a run plan)."""
    if part.method not in ("likelihood", *list(bench.methods)[:1]) or part.chat:
        raise LexprobeError(f"{bench.meta.name}'s default run has only the likelihood method, not {part.label}")
