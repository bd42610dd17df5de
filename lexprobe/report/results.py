"""Result files as ``report`` and ``compare`` see them: units per benchmark.

A unit is what the bootstrap resamples and what ``compare`` pairs (a WDLMPro target in one
task, a CoDA21 group, a sense-ranking query); each benchmark says how to read its units
from a result's instances (``contract.unit_values``). Results of people (``model.kind``
``human``) have the same shape as a model's; a metric a person's answers cannot give (a
rank score from a single choice) is null and is left out.
"""

from __future__ import annotations

from lexprobe.core.contract import Unit, unit_values
from lexprobe.core.contract import unit_metrics as bench_unit_metrics
from lexprobe.core.registry import get
from lexprobe.core.result_schema import is_sweep
from lexprobe.errors import DataError


def per_reading(result: dict) -> bool:
    """Whether a result reports figures per answer reading (``<reading>.<metric>``) and chance among the options
    shown: it holds readings, or its method declares them (``ChooseMethod.readings``: a run whose every item was
    skipped recorded none)."""
    method = get(result["benchmark"]).methods.get(result["method"])
    return bool(result.get("readings") or (method.readings if method else ()))


def unit_metrics(result: dict) -> tuple[tuple[str, str], ...]:
    return bench_unit_metrics(get(result["benchmark"]), result)


def units(result: dict) -> list[Unit]:
    """Per-unit metric values from a result's ``instances``."""
    bench = get(result["benchmark"])
    if not result.get("instances") and not is_sweep(result):
        raise DataError(f"{result.get('_path', 'the result')} has no per-item records (`instances`); "
                        "rerun the evaluation without --no-instances")
    out = unit_values(bench, result)
    keys = [u.key for u in out]
    if len(set(keys)) != len(keys):
        raise DataError(f"{result.get('_path', 'the result')} has repeated item ids; it cannot be paired item by item")
    return out
