"""``--method choose`` of any benchmark: the one run loop and the one way its result is built.

Why one loop: the choose runs of WDLMPro and CoDA21 were parallel copies with their own resume
logs and keys. Here a run goes through the evaluation sequence like every method: its units go
through ``distributed.run_units`` (the one place that splits work, logs finished units for a
resume, deals them to ranks and shows progress), keyed by the job's one resume key
(``Job.key``: items, weights, method, recipe, every score-changing option, and the resolved
template's text, which a ``--template FILE`` path alone does not say); the method returns its
asked items as ``Records``, and ``evaluate`` times the run and adds the run record.

A benchmark's ``ChooseMethod`` subclass says what a unit is (``units``: a WDLMPro target, a
CoDA21 group), how many prompts it asks (``prompts``), how its prompts are built and their
answers read (``items``, ``score``: records that name their unit in ``unit_field`` and their
question in ``item``; the options are the declared ``job.config.choose`` and the seed
``job.config.seed``, and ``template`` is the run's ``--template``, resolved once per run by
``ChooseOptions.check`` since it is a file read, not an option), how an answer scores (``scores``, ``answer_key``, ``gold_positions``)
and what chance scores (``random``). A batch holds as many units as ``choose.batch_prompts``
prompts (a few on the CPU), or ``ChooseOptions.units_per_batch``: Ctrl-C loses at most one batch.

The result (``sections``, its ``Results.sections``): per task and slice (the
benchmark's ``slices``), each reading's figures over the asked records of the slice — a mean
over records, not over items, since a ``--debias cyclic`` item asks the likelihood reading in
more orders than the others — with its agreement across option orders, failure counts and
bootstrap intervals over items (``choose.reading_summary``); chance's figures as the
``random`` baseline; position bias as a breakdown.
"""

from __future__ import annotations

import dataclasses
from abc import abstractmethod
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from lexprobe.asking.engine import Engine, describe_served
from lexprobe.asking.requests import Continuation, Generate
from lexprobe.core.contract import Benchmark, Job, Method, Records, Results, Unit, default_slices, reader
from lexprobe.errors import DataError, ModelError
from lexprobe.prompting.readings import GENERATED, READINGS

if TYPE_CHECKING:
    from lexprobe.prompting.templates import Template


class ChooseMethod(Method):
    name = "choose"
    #: both readings; generation only (``--reading generation``); label likelihood only (``check_backend``)
    requests = ((Continuation, Generate), (Generate,), (Continuation,))
    help = "ask a causal LM to choose among the options (docs/llm.md)"
    #: the field of an asked item's record that names its unit (what ``units`` gives as the unit id)
    unit_field: ClassVar[str]
    #: the field of a reading's answer that agreement across option orders compares ("choice", "assignment")
    answer_key: ClassVar[str]
    #: the shape of one asked record (``result_schema.load`` checks each); None: any mapping
    item_spec: ClassVar[Any] = None
    #: ``(result, units) -> {slice: units}`` of a choose result; None: the benchmark's
    own_slices: ClassVar[Callable | None] = None
    #: the answer readings its results may hold, in report order: a result of this method reports figures per
    #: reading (``<reading>.<metric>``) and chance among the options shown (what ``report`` reads of a method)
    readings: ClassVar[tuple[str, ...]] = READINGS
    #: a generated reading's share of parsed answers: parsed or not per unit when each is asked in one order
    binary_metrics: ClassVar[tuple[str, ...]] = ("valid",)

    @property
    def results(self) -> Results:  # type: ignore[override]
        """A choose result's shape: its units per question and reading, its sections built here."""
        spec = self.item_spec
        return Results(unit_values=self.unit_values, unit_metrics=self.unit_metrics, sections=self.sections,
                       instance_spec=None if spec is None else lambda result: spec, slices=self.own_slices)

    # --- what a benchmark supplies ---------------------------------------------------------------
    @abstractmethod
    def units(self, job: Job) -> list[tuple[str, Any]]:
        """(unit id, unit) of every unit asked, in result order (ids unique)."""

    @abstractmethod
    def prompts(self, job: Job, unit: Any) -> int:
        """Prompts one unit asks (every task, option order and cyclic order): its cost and batch share."""

    @abstractmethod
    def items(self, job: Job, units: list, template: Template) -> list[dict]:
        """The asked items of ``units``, each with its ``prompt`` (``score`` drops it)."""

    @abstractmethod
    def score(self, job: Job, engine: Engine, items: list[dict], template: Template) -> list[dict]:
        """``items`` answered through ``engine`` (``choose.ask``): each reading's block added (or ``skipped``
        with why), the prompts dropped."""

    @abstractmethod
    def scores(self, reading: str) -> dict[str, Callable[[dict], float]]:
        """Each score of a reading's answer block, by metric name (averaged over the asked records)."""

    @abstractmethod
    def gold_positions(self, record: dict) -> list[int]:
        """The presented positions of the gold answers, in the order of each reading's ``positions``."""

    @abstractmethod
    def random(self, asked: list[dict]) -> dict:
        """Chance's figures on the asked records of a slice (with ``n`` and ``ci``)."""

    def key_items(self, job: Job, units: list[tuple[str, Any]]) -> Any:
        """What the resume key digests of the items: the units as plain data."""
        return [dataclasses.asdict(u) if dataclasses.is_dataclass(u) and not isinstance(u, type) else u
                for _, u in units]

    def skipped(self, job: Job) -> list[dict] | None:
        """Units left out before asking, ``[{"unit", "reason"}]`` (counted as ``skipped_<unit>s``); None: none
        can be."""
        return None

    def tasks(self, job: Job) -> list[str]:
        """The result's tasks (a record without ``task`` belongs to the first)."""
        return list(job.benchmark.meta.tasks)

    # --- the loop -------------------------------------------------------------------------------
    def check_backend(self, engine: Engine, config: Any, what: str) -> None:
        """One line before any work: generation for the generated readings, continuations for the likelihood
        reading, and room for a prompt beside ``--max-new-tokens``."""
        options = config.choose
        if "generation" in options.readings:
            engine.require(((Generate,),), what)
        if "likelihood" in options.readings and not engine.serves(Continuation):
            raise ModelError(f"the likelihood reading of {what}{' and --debias cyclic' if options.cyclic else ''} "
                             f"needs {Continuation.what}; model {engine.name!r} offers {describe_served(engine.backend)}: "
                             "add --reading generation")
        if "generation" in options.readings and options.max_new_tokens:
            (fit,) = engine.fit([Generate("", options.max_new_tokens)])
            if fit.too_long:
                raise ModelError(f"--max-new-tokens {options.max_new_tokens} leaves no room for a prompt "
                                 f"({fit.too_long}); give a smaller --max-new-tokens")

    def run(self, job: Job) -> Records | None:
        from lexprobe.prompting.choose import UNIT_RECORD, batch_prompts, readings_present
        from lexprobe.prompting.templates import build_prompt
        from lexprobe.tasks import loop

        options = job.config.choose
        template = options.check(job.benchmark.template_fields)
        if options.chat:  # the model's chat template takes the template's messages, or one line before any work
            job.engine.fit([Generate(build_prompt(template, "", chat=True), 1, answer_prefix=template.answer)])
        title = job.benchmark.meta.title
        units = self.units(job)
        if not units:
            raise DataError(f"no {title} items to ask; check --data, --pos and --limit")
        ids = [u for u, _ in units]
        if len(set(ids)) < len(ids):
            raise DataError(f"{title} items repeat a {job.benchmark.meta.unit}; each must appear once")
        sizes = [self.prompts(job, u) for _, u in units]
        step = options.units_per_batch or max(1, batch_prompts(job.scorer) // max(sizes))

        def compute(engine: Engine, indices: list[int]) -> list[list[dict]]:
            asked = self.score(job, engine, self.items(job, [units[i][1] for i in indices], template), template)
            return [[r for r in asked if r[self.unit_field] == ids[i]] for i in indices]

        per_unit = loop.run(job, loop.Units(ids, sizes, self.key_items(job, units), UNIT_RECORD, step,
                                            key_extra={"template": template.record()}), compute)
        if per_unit is None:  # another rank than 0: rank 0 writes the result
            return None
        records = [r for recs in per_unit for r in recs]
        skipped = self.skipped(job)
        counts = {} if skipped is None else {f"skipped_{job.benchmark.meta.unit}s": len(skipped)}
        counts["skipped_too_long"] = sum("skipped" in r for r in records)
        return Records(records, items=[u for _, u in units], counts=counts, skipped=skipped or [],
                       tasks=self.tasks(job), readings=readings_present([r for r in records if "skipped" not in r]),
                       resolved={"choose": {"template_record": template.record()}})

    # --- the result ---------------------------------------------------------------------------------
    def unit_metrics(self, bench: Benchmark) -> tuple[tuple[str, str], ...]:
        """(per-unit key, label) of ``unit_values``, in report order: each reading's scores (labelled as the
        benchmark's ``unit_metrics`` label them) and a generated reading's share of parsed answers."""
        from lexprobe.prompting.readings import label

        labels = {"valid": "answers parsed", **dict(bench.meta.unit_metrics)}
        return tuple((f"{reading}.{name}", f"{labels.get(name, name)} (choose, {label(reading)})")
                     for reading in READINGS
                     for name in [*self.scores(reading), *(["valid"] if reading in GENERATED else [])])

    def unit_values(self, result: dict) -> list[Unit]:
        """One unit per question (``item``), for intervals and ``compare``: each reading's scores averaged over
        the question's option orders (the extra cyclic orders of ``--debias cyclic`` are read by likelihood
        only), and the share of parsed answers of a generated reading; None where an order was not asked (a
        prompt too long) or the reading not run."""
        import numpy as np

        from lexprobe.prompting.choose import parsed
        from lexprobe.prompting.readings import asked_by

        by_item: dict[str, list[dict]] = {}
        for r in result["instances"]:
            by_item.setdefault(r["item"], []).append(r)
        first = (result.get("tasks") or ["all"])[0]
        out = []
        for item, recs in by_item.items():
            values: dict[str, float | None] = {}
            for reading in READINGS:
                asked = asked_by(reading, recs)
                answered = [r[reading] for r in asked if reading in r]
                ok = bool(asked) and len(answered) == len(asked)
                measures = {**self.scores(reading), **({"valid": parsed} if reading in GENERATED else {})}
                for name, f in measures.items():
                    values[f"{reading}.{name}"] = float(np.mean([f(a) for a in answered])) if ok else None
            out.append(Unit(item, recs[0].get("task", first), recs[0].get("pos", "all"), values))
        return out

    def sections(self, bench: Benchmark, records: Records, method: str, config: dict) -> dict:
        """The result's sections (``contract.sections`` of a choose run; see the module's docstring)."""
        from lexprobe.prompting.choose import position_bias, reading_summary
        from lexprobe.prompting.readings import reading_slice

        slices = reader(bench, self.name, "results", "slices") or default_slices
        tasks = list(records.tasks or bench.meta.tasks)
        result = {"benchmark": bench.meta.name, "method": self.name, "config": config, "tasks": tasks,
                  "readings": list(records.readings), "instances": records.instances, "skipped": records.skipped}
        metrics: dict = {}
        random: dict = {}
        bias: dict = {}
        for task in tasks:
            mine = [r for r in records.instances if r.get("task", tasks[0]) == task]
            units = list({r["item"]: Unit(r["item"], task, r.get("pos", "all")) for r in mine}.values())
            asked = {}
            for name, members in slices(result, units).items():
                keys = {u.key for u in members}
                asked[name] = [r for r in mine if r["item"] in keys and "skipped" not in r]  # in the run's order
            metrics[task] = {name: reading_slice(reading_summary(a, self.scores, self.answer_key), records.readings)
                             for name, a in asked.items()}
            random[task] = {name: self.random(a) for name, a in asked.items() if a}
            bias[task] = {"position_bias": {name: position_bias(a, self.gold_positions) for name, a in asked.items()}}
        return {"tasks": tasks, "readings": list(records.readings), "metrics": metrics, "baselines": {"random": random},
                "breakdowns": bias, "counts": dict(records.counts), "skipped": records.skipped,
                "instances": records.instances}

