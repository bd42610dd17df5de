"""``--method choose`` of any benchmark: the one run loop; a benchmark supplies what differs.

Why one loop: the choose runs of WDLMPro and CoDA21 were parallel copies with their own resume
logs and keys. Here a run goes through the evaluation sequence like every method: its units go
through ``distributed.run_units`` (the one place that splits work, logs finished units for a
resume, deals them to ranks and shows progress), keyed by the job's one resume key
(``Job.key``: items, weights, method, recipe, every score-changing option, and the resolved
template's text, which a ``--template FILE`` path alone does not say); ``evaluate`` times the run
and adds the run record.

A benchmark's ``ChooseMethod`` subclass says what a unit is (``units``: a WDLMPro target, a
CoDA21 group), how many prompts it asks (``prompts``), how its prompts are built and their
answers read (``items``, ``score``: records that name their unit in ``unit_field``), and what
the result says (``summary``). A batch holds as many units as ``choose.batch_prompts`` prompts
(a few on the CPU), or ``ChooseOptions.units_per_batch``: Ctrl-C loses at most one batch.
"""

from __future__ import annotations

import dataclasses
from abc import abstractmethod
from typing import Any, ClassVar

from lexprobe.benchmarks.base import Job, Method
from lexprobe.errors import DataError
from lexprobe.scorers.capabilities import Generation


class ChooseMethod(Method):
    name = "choose"
    requires = (Generation,)
    help = "ask a causal LM to choose among the options (docs/llm.md)"
    #: the field of an asked item's record that names its unit (what ``units`` gives as the unit id)
    unit_field: ClassVar[str]

    # --- what a benchmark supplies ---------------------------------------------------------------
    @abstractmethod
    def units(self, job: Job, config: Any) -> list[tuple[str, Any]]:
        """(unit id, unit) of every unit asked, in result order (ids unique)."""

    @abstractmethod
    def prompts(self, job: Job, unit: Any, config: Any) -> int:
        """Prompts one unit asks (every task, option order and cyclic order): its cost and batch share."""

    @abstractmethod
    def items(self, job: Job, units: list, config: Any) -> list[dict]:
        """The asked items of ``units``, each with its ``prompt`` (``score`` drops it)."""

    @abstractmethod
    def score(self, job: Job, items: list[dict], config: Any) -> list[dict]:
        """``items`` answered: each reading's block added (or ``skipped`` with why), the prompts dropped."""

    @abstractmethod
    def summary(self, job: Job, config: Any, units: list[tuple[str, Any]], records: list[dict]) -> dict:
        """The method's summary of the asked items, as the benchmark's ``upgrade`` reads it."""

    def key_items(self, job: Job, units: list[tuple[str, Any]]) -> Any:
        """What the resume key digests of the items: the units as plain data."""
        return [dataclasses.asdict(u) if dataclasses.is_dataclass(u) else u for _, u in units]

    # --- the loop -------------------------------------------------------------------------------
    def run(self, job: Job) -> dict | None:
        from tqdm.auto import tqdm

        from lexprobe.distributed import is_main, run_units
        from lexprobe.prompting.choose import UNIT_RECORD, batch_prompts, check_scorer

        options = job.config.choose
        config = options.to_config(seed=job.config.seed, fields=job.benchmark.template_fields)
        config.validate()
        check_scorer(job.scorer, config)
        title = job.benchmark.meta.title
        units = self.units(job, config)
        if not units:
            raise DataError(f"no {title} items to ask; check --data, --pos and --limit")
        ids = [u for u, _ in units]
        if len(set(ids)) < len(ids):
            raise DataError(f"{title} items repeat a {job.benchmark.meta.unit}; each must appear once")
        sizes = [self.prompts(job, u, config) for _, u in units]
        step = options.units_per_batch or max(1, batch_prompts(job.scorer) // max(sizes))

        def compute(indices: list[int]) -> list[list[dict]]:
            asked = self.score(job, self.items(job, [units[i][1] for i in indices], config), config)
            return [[r for r in asked if r[self.unit_field] == ids[i]] for i in indices]

        per_unit = run_units(ids, compute, sizes, step=step, log_base=job.log_base, record=UNIT_RECORD,
                             log_key=job.key(self.key_items(job, units), template=config.template.record()),
                             make_bar=lambda: tqdm(total=len(units), desc=f"{title} choose {job.scorer.name}",
                                                   unit=job.benchmark.meta.unit,
                                                   disable=not (job.progress and is_main())))
        if per_unit is None:  # another rank than 0: rank 0 writes the result
            return None
        result = self.summary(job, config, units, [r for recs in per_unit for r in recs])
        result["_items"] = [u for _, u in units]
        result["_config"] = {"choose": {"template_record": config.template.record()}}
        return result
