"""The one run loop every method's units go through: resumable, dealt to ranks, one progress bar.

Why one: each benchmark once ran its own ``distributed.run_units`` call with its own bar, its own resume key
and its own tally of what it left out. Here a method says only what its units are (ids, costs, what the resume
key digests, the shape of a unit's record) and how a chunk of them becomes records from the model's answers
(``compute(engine, indices)``: requests in, answers out through ``asking.engine.Engine``, never the model
itself); the loop keys the run (``Job.key``), logs each finished chunk for a resume, deals units to ranks by
cost, shows one bar named after the benchmark, the method and the model, and gathers the records on rank 0
(None on the others). ``left_out`` turns the records that say ``skipped`` into the result's ``skipped`` list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence


@dataclass(frozen=True)
class Units:
    """A method's resumable units: their ids (unique, named by content), what each costs (tokens: how units are
    dealt to ranks), what the resume key digests of them, and the shape of one unit's record."""

    ids: Sequence[str]
    costs: Sequence[float]
    key_items: Any
    record: Any
    step: int  #: units per chunk: each chunk is asked together and logged at once
    bundles: Sequence[Hashable] | None = None  #: units sharing work stay on one rank, in one chunk where possible
    key_extra: dict = field(default_factory=dict)  #: what else the resume key holds (a counts file's digest)


#: ``run``'s ``log_base`` when not given: the job's (beside its ``--out``)
JOBS_LOG = Path("<the job's>")


def run(job: Any, units: Units, compute: Callable[[Any, list[int]], list[Any]], *,
        engine_per_chunk: bool = False, unit: str | None = None, log_base: Path | None = JOBS_LOG,
        bar: bool = True) -> list[Any] | None:
    """The records of every unit in order on rank 0, None on other ranks. ``compute(engine, indices)`` gives one
    record per index; ``engine_per_chunk``: a fresh ``Engine`` (and memo) per chunk, where chunks share nothing
    worth remembering and a run-long memo would only grow; ``unit``: what the bar counts (default: the
    benchmark's unit); ``log_base``: another resume log than the job's (a layer's of a sweep; None: none).
    ``job`` None: units outside an evaluation (a script's), neither keyed nor logged nor shown."""
    from tqdm.auto import tqdm

    from lexprobe.distributed import is_main, run_units

    if job is None:
        return run_units(list(units.ids), lambda indices: compute(None, indices), list(units.costs),
                         step=units.step, record=units.record, bundles=units.bundles)
    shared = None if engine_per_chunk else job.engine
    bench = job.benchmark
    desc = f"{bench.meta.title} {job.config.method} {getattr(job.scorer, 'name', job.scorer)}"

    def chunk(indices: list[int]) -> list[Any]:
        return compute(shared if shared is not None else job.engine, indices)

    return run_units(list(units.ids), chunk, list(units.costs), step=units.step,
                     log_base=job.log_base if log_base is JOBS_LOG else log_base,
                     log_key=job.key(units.key_items, **units.key_extra), record=units.record, bundles=units.bundles,
                     make_bar=(lambda: tqdm(total=len(units.ids), desc=desc, unit=unit or bench.meta.unit,
                                            disable=not (job.progress and is_main()))) if bar else None)


def left_out(records: Sequence[dict], unit: Callable[[dict], str]) -> list[dict]:
    """The result's ``skipped`` list of the records that were not scored (``{"unit", "reason"}``)."""
    return [{"unit": unit(r), "reason": r["skipped"]} for r in records if "skipped" in r]
