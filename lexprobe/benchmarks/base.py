"""The Benchmark contract: what one benchmark is, declared once, in its own package.

A benchmark is a subclass of ``Benchmark`` with

- ``meta``: a ``BenchmarkMeta`` record (after MTEB's ``TaskMetadata``): its one name (command,
  package and result files), aliases, unit, tasks, datasets, main score, unit metrics;
- ``Config``: a frozen dataclass of its options, each an ``option(...)`` field; the CLI derives
  its ``eval`` options from it (``benchmarks.options``) and ``evaluate`` records it as given,
  so the API and the CLI produce the same result;
- ``recipes``: ``{name: recipe dataclass}``, how faithfully to follow a source (``paper``,
  ``authors``);
- ``methods``: ``{name: Method}``, how the model is asked (``likelihood``, ``choose``, ...); a
  method names the scorer capabilities it needs (``scorers.capabilities``), checked where the
  model enters with one line naming what is missing;
- hooks for everything that loops over benchmarks: loading items, turning a run into result
  sections (``result_schema``), per-unit values for intervals and paired tests, report tables,
  figures, failure-page rows, the default run of ``lexprobe run``, human items.

``benchmarks.evaluate.evaluate(benchmark, scorer, config, out)`` runs any benchmark; the
registry (``benchmarks.registry``) is the one list that ``cli``, ``run``, ``report``,
``compare`` and ``human`` loop over. docs/ARCHITECTURE.md has the recipe for a new benchmark.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from lexprobe.errors import LexprobeError

if TYPE_CHECKING:
    from lexprobe.prompting.templates import TemplateField


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


def option(default: Any = None, help: str = "", *, choices: Any = None, type: Callable | None = None,
           flag: str | None = None, cli: bool = True, record: bool = True, key: bool = True,
           nargs: str | None = None, required: bool = False, method: str | tuple[str, ...] | None = None,
           factory: Callable | None = None, input: bool = False, path: str | None = None,
           writes: tuple[str, ...] = (), names_data: bool = False) -> Any:
    """A config field with what the CLI needs to offer it.

    ``record``: written to the result's ``config`` (False for output options such as a plot
    path); ``key``: part of the resume key (False for what cannot change a score, e.g. a data
    path: the items digest covers the data); ``method``: the method (or methods) the option belongs
    to (given with another method it is an error, not silently ignored); ``path``: what the value
    is when it names a file: ``outputs.INPUT`` (read: no output may overwrite it, a FIFO is
    refused), ``outputs.OUTPUT`` or ``outputs.OUTPUT_DIR`` (written: checked writable before any
    work; ``writes``: the files an ``OUTPUT_DIR`` gets); ``outputs.guard`` derives every check from it.
    ``input=True`` is ``path=INPUT``. ``names_data``: the option names the data to load (sense ranking's
    ``--corpus``); given items a caller loaded itself (``evaluate(..., items=...)``), it only names them, so its
    ``choices`` are not checked.
    """
    from lexprobe.outputs import INPUT, PATH_KINDS

    path = INPUT if input and path is None else path
    if path is not None and path not in PATH_KINDS:
        raise ValueError(f"option(path=...) is one of {PATH_KINDS}, not {path!r}")
    metadata = {"help": help, "choices": choices, "type": type, "flag": flag, "cli": cli, "record": record,
                "key": key and record, "nargs": nargs, "required": required, "method": method,
                "input": path == INPUT, "path": path, "writes": tuple(writes), "names_data": names_data}
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def nested(cls: type, help: str = "", method: str | None = None) -> Any:
    """A config field holding another option dataclass (e.g. the choose options), offered as a group."""
    return field(default_factory=cls, metadata={"nested": cls, "help": help, "method": method, "record": True,
                                                "key": True, "cli": True})


def recorded(config: Any) -> dict:
    """The config as the result records it: every field with ``record`` (nested ones as dicts)."""
    from lexprobe.benchmarks.options import values

    return {f.name: recorded(value) if dataclasses.is_dataclass(value) else _plain(value)
            for f, value in values(config) if f.record}


def key_options(config: Any) -> dict:
    """The config fields that change scores (``key``), for the resume key."""
    from lexprobe.benchmarks.options import values

    return {f.name: key_options(value) if dataclasses.is_dataclass(value) else _plain(value)
            for f, value in values(config) if f.key}


def declared_paths(config: Any) -> list:
    """The config's path options with their values (``option(path=...)``, nested groups too), as
    ``outputs.PathOption``s: what ``outputs.guard`` checks and ``evaluate`` keeps from being overwritten."""
    from lexprobe.benchmarks.options import values
    from lexprobe.outputs import PathOption

    out = []
    for f, value in values(config):
        if f.group is not None:
            out += declared_paths(value)
        elif f.path:
            out.append(PathOption(f.flag, f.path, value))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value == float("inf"):
        return "inf"
    return value


class Method(ABC):
    """How a benchmark asks the model. ``requests``: the request types (``core.requests``) it asks, by
    alternative — a backend must serve every type of one of them; ``requires`` (older methods): scorer
    capabilities of which the scorer needs one."""

    name: ClassVar[str]
    requires: ClassVar[tuple[type, ...]] = ()
    requests: ClassVar[tuple[tuple[type, ...], ...]] = ()
    help: ClassVar[str] = ""
    #: the scorer kind a model is loaded as for this method when --kind is not given (None: the benchmark's)
    load_as: ClassVar[str | None] = None

    def check_backend(self, scorer: Any, config: Any, what: str) -> None:
        """One line, before any work, where ``scorer`` serves none of the method's alternatives."""
        from lexprobe.core.engine import require

        if self.requests:
            require(scorer, self.requests, what)

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

    def stem(self, name: str) -> str:
        return f"{name}-{self.tag}" if self.tag else name

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_options)

    @property
    def label(self) -> str:
        return self.method + (" (chat)" if self.chat else "")


@dataclass(frozen=True)
class LLMPart:
    """A part of ``lexprobe run`` that the main job's causal LM runs on a benchmark (``Benchmark.llm_parts``)."""

    method: str
    chat: bool
    samples: dict[str, int]  #: the sample by size, as ``Benchmark.run_samples``: {"quick": 8, "full": 25}
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
    ``baselines`` and ``ci`` of the result from them (``Benchmark.sections``), so the same
    numbers are never aggregated twice, in two places, in two shapes.
    """

    instances: list[dict]  #: one record per unit (per unit and option order for choose): the result's instances
    items: Any = None  #: what the run record's items digest covers (None: the instances)
    counts: dict[str, int] = field(default_factory=dict)  #: truncations, skips and drops counted while scoring
    skipped: list[dict] = field(default_factory=list)  #: units not evaluated: [{"unit", "reason"}]
    tasks: list[str] | None = None  #: the result's tasks (None: those of the units, in ``meta.tasks`` order)
    readings: list[str] = field(default_factory=list)  #: answer readings (choose), in report order
    resolved: dict = field(default_factory=dict)  #: what the method resolved from the config, by option (a template's text)
    timing: dict = field(default_factory=dict)  #: the method's own timings (seconds per stage)
    sections: dict = field(default_factory=dict)  #: sections built otherwise, as they are (a layer sweep's ``sweep``)


class Benchmark(ABC):
    meta: ClassVar[BenchmarkMeta]
    Config: ClassVar[type]
    recipes: ClassVar[dict[str, Any]] = {}
    methods: ClassVar[dict[str, Method]] = {}

    # --- running -----------------------------------------------------------------------
    def recipe(self, name: str) -> Any:
        try:
            return self.recipes[name]
        except KeyError:
            raise LexprobeError(f"unknown recipe {name!r} for {self.meta.name}; use one of: "
                                f"{', '.join(self.recipes)}") from None

    def method(self, name: str) -> Method:
        try:
            return self.methods[name]
        except KeyError:
            raise LexprobeError(f"unknown method {name!r} for {self.meta.name}; use one of: "
                                f"{', '.join(self.methods)}") from None

    def prefers(self, method: str) -> str | None:
        """The scorer kind to load a model as for ``method`` when --kind is not given (the method's, else the
        benchmark's ``meta.load_as``; None: detected)."""
        return self.method(method).load_as or self.meta.load_as

    def check_config(self, config: Any) -> None:
        """One-line errors for option values no parser can see (called before any work)."""

    def resolve_data(self, config: Any) -> Any:
        """``config`` with its default data resolved where the benchmark has a fallback (sense ranking:
        the bundled SemCor sample when the corpus is absent; it says so in one line); the result records
        what was read. Called by ``eval`` and ``evaluate`` before the inputs are checked."""
        return config

    def check_outputs(self, out: Path, config: Any) -> None:
        """Further output files beside ``out`` to check before any work (e.g. a plot)."""

    def outputs(self, out: Path, config: Any) -> dict[str, list]:
        """Every file a run writes, by option (none may overwrite an input): ``--out`` and its companions."""
        return {"--out": [out]}

    @abstractmethod
    def load_items(self, config: Any) -> Any:
        """The items a run evaluates (data errors surface here, before the model loads)."""

    def written(self, result: dict, out: Path, config: Any) -> None:
        """After the result file is written: plots beside it, stores removed."""

    def dataset(self, config: Any) -> dict | None:
        """The data a run read, recorded as the result's ``dataset``: ``{"name", "sample", "what", "get"}``;
        ``sample`` is true for a stand-in (a bundled sample, a set built in place of the official files), and
        ``what``/``get`` then say what it is and the command that fetches the real data. None: not recorded."""
        return None

    #: what a "failure" is on the report's items page (its "failures only" filter), in one sentence
    failure_note: ClassVar[str] = ""

    # --- records in, sections out (``evaluate``) --------------------------------------------
    def sections(self, records: Records, method: str, config: dict) -> dict:
        """The result's sections built from a method's per-unit ``records``: ``metrics`` and ``baselines`` per
        task and slice (``slices``, ``aggregate`` on ``unit_values`` and ``baseline_values``), ``breakdowns`` and
        ``counts`` (the two optional hooks), ``skipped`` and ``instances`` as recorded. ``config``: the result's
        recorded config (hooks read e.g. a choose run's options from it). People's answers come here too. A method
        with its own ``sections(benchmark, records, config)`` builds them (``--method choose``: per answer reading,
        the same for every benchmark, ``prompting.method``)."""
        own = getattr(self.methods.get(method), "sections", None)
        if own is not None:
            return own(self, records, config)
        result = {"benchmark": self.meta.name, "method": method, "config": config, "readings": list(records.readings),
                  "instances": records.instances, "skipped": records.skipped}
        units = self.unit_values(result)
        tasks = records.tasks or [t for t in self.meta.tasks if any(u.task == t for u in units)]
        result["tasks"] = list(tasks)
        metrics = {task: self._slices_of(result, task, [u for u in units if u.task == task]) for task in tasks}
        baselines = {}
        for name, base_units in self.baseline_values(result).items():
            baselines[name] = {task: self._slices_of(result, task, [u for u in base_units if u.task == task])
                               for task in tasks}
        result.update(metrics=metrics, baselines=baselines)
        counts = {**records.counts, **self.counts(result)}
        return {"tasks": list(tasks), "readings": list(records.readings), "metrics": metrics, "baselines": baselines,
                "breakdowns": self.breakdowns(result), "counts": counts, "skipped": records.skipped,
                "instances": records.instances, **records.sections}

    def _slices_of(self, result: dict, task: str, units: list[Unit]) -> dict:
        return {name: self.aggregate(result, task, name, members) for name, members in self.slices(result, units).items()}

    def slices(self, result: dict, units: list[Unit]) -> dict[str, list[Unit]]:
        """A task's units by slice: each ``Unit.pos`` (sorted), then ``all`` (every unit)."""
        out = {pos: [u for u in units if u.pos == pos] for pos in sorted({u.pos for u in units} - {"all"})}
        out["all"] = list(units)
        return out

    def aggregate(self, result: dict, task: str, slice: str, units: list[Unit]) -> dict:
        """A slice's figures from its units: each metric's mean over the units that have it (None: none has),
        ``n`` (units) and ``ci`` (``stats.bootstrap.mean_intervals``: a metric some unit lacks gets none).
        Override where a score is not a mean of per-unit values (sense ranking's pooled MAP) or a slice has
        further figures (a choose reading's agreement across option orders)."""
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

    def baseline_values(self, result: dict) -> dict[str, list[Unit]]:
        """Per-unit values of each baseline on the same units (``random``: its expectation), aggregated like the
        model's into ``baselines``."""
        return {}

    def breakdowns(self, result: dict) -> dict:
        """``{task: {name: ...}}``: the benchmark's breakdowns of ``result`` (frequency bands, k, position bias)."""
        return {}

    def counts(self, result: dict) -> dict[str, int]:
        """Tallies derived from the records, beside what the method counted (``Records.counts``)."""
        return {}

    # --- reading results ------------------------------------------------------------------
    @abstractmethod
    def unit_values(self, result: dict) -> list[Unit]:
        """Per-unit metric values of a result's instances (``compare``, intervals)."""

    def instance_spec(self, result: dict) -> Any:
        """The shape of one per-item record of ``result`` (a ``validation`` spec): ``result_schema.load``
        checks every instance with it, so a hand-edited field is one line, not a traceback in ``report``."""
        return dict[str, Any]

    def unit_metrics(self, result: dict) -> tuple[tuple[str, str], ...]:
        """(per-unit key, label) of ``unit_values``, in table order: the method's own where it has them
        (``--method choose``: each reading's), else ``meta.unit_metrics``."""
        own = getattr(self.methods.get(result.get("method", "")), "unit_metrics", None)
        return own(self) if own is not None else self.meta.unit_metrics

    def main_scores(self, result: dict) -> dict[str, float | None]:
        """The headline (``meta.main_score``) of each task of ``result``'s ``all`` slice, by task; a choose
        result's by "<task> <reading>" (its metric there is "<reading>.<main_score>"). ``lexprobe run``
        prints and records these."""
        main, out = self.meta.main_score, {}
        for task in result.get("tasks") or []:
            values = ((result.get("metrics") or {}).get(task) or {}).get("all") or {}
            if main in values:
                out[task] = values[main]
            for key, value in values.items():
                if key.endswith("." + main):
                    out[f"{task} {key[: -len(main) - 1]}"] = value
        return out

    def table_group(self, result: dict) -> str:
        """Which table of the benchmark a result belongs in (a data file, a corpus)."""
        return self.meta.name

    def tables(self, results: list[dict]) -> list:
        """``lexprobe.tables.Table``s of these results (all of this benchmark)."""
        return []

    def figures(self, result: dict, folder: Path, stem: str) -> list[tuple[str, Path]]:
        """(title, PNG path) of each figure drawn for a report."""
        return []

    failure_columns: ClassVar[list[tuple[str, str]]] = []

    def failure_rows(self, result: dict) -> list[dict]:
        """Rows of the report's items page (one per instance and reading)."""
        return []

    def format_result(self, result: dict) -> str:
        """The table the CLI prints after a run."""
        return ""

    def summary_tag(self, result: dict) -> str | None:
        """A word after the result's figures in the summary table (e.g. the layer measured)."""
        return None

    # --- the rest of the command line ------------------------------------------------------
    def register_commands(self, sub: Any) -> None:
        """Commands besides ``eval`` (build, stats, plot, ...) on the benchmark's sub-parser."""

    #: the default model's sample in ``lexprobe run``, by size ("quick": the default, "full": ``--full``);
    #: a size not given (or None) is the default run's own default
    run_samples: ClassVar[dict[str, int | None]] = {}
    #: the parts ``lexprobe run`` also asks its causal LM (after every benchmark's default-model part)
    llm_parts: ClassVar[tuple[LLMPart, ...]] = ()

    def default_run(self, out_dir: Path, part: RunPart) -> dict:
        """``lexprobe run``'s part: a quick sample on ``part.model``, asked ``part.method``; returns
        {metrics, sample_data}."""
        raise LexprobeError(f"{self.meta.name} has no default run")

    def likelihood_only(self, part: RunPart) -> None:
        """One line when a part asks a method this benchmark's default run has not (``default_run`` helper)."""
        if part.method != "likelihood" or part.chat:
            raise LexprobeError(f"{self.meta.name}'s default run has only the likelihood method, not {part.label}")

    #: its fields of the choose method's prompt templates (``prompting.templates.TemplateField``: the question,
    #: its placeholders, its text in each shipped template), by field name (a ``--template FILE`` key)
    template_fields: ClassVar[dict[str, TemplateField]] = {}

    #: the page's kind of this benchmark's human items (``lexprobe human``): "choice" (a prompt and lettered
    #: options, ``task`` one of ``meta.tasks``) or "align" (contexts matched to definitions); None: it has none.
    #: The answer store checks stored items against it (``human.store``), so no generic module names a benchmark.
    human_item_kind: ClassVar[str | None] = None

    @property
    def has_human_items(self) -> bool:
        return self.human_item_kind is not None

    def human_item_set(self, args: Any) -> dict:
        raise LexprobeError(f"{self.meta.name} has no human items")

    def human_results(self, item_set: dict, answers: dict) -> dict[str, dict]:
        raise LexprobeError(f"{self.meta.name} has no human items")
