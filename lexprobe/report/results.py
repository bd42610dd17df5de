"""Result files as ``report`` and ``compare`` see them: validated, with per-unit values.

A unit is what the bootstrap resamples and what ``compare`` pairs: a WDLMPro target
in one task, a CoDA21 group, a sense-ranking query. Results of people (``model.kind``
``human``) have the same shape as a model's; a metric a person's answers cannot give
(a rank score from a single choice) is null and is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lexprobe.errors import DataError
from lexprobe.reporting import read_json

BENCHMARKS = ("wdlmpro", "coda21", "senserank")
#: metrics per benchmark, as (per-unit key, label) -- the order tables and compare use
UNIT_METRICS = {
    "wdlmpro": (("p_at_1", "P@1"), ("rank_score", "RS")),
    "coda21": (("accuracy", "accuracy"), ("simple_accuracy", "simple matching")),
    "senserank": (("pooled", "MAP@50 (paper, pooled)"), ("map", "MAP@50 (per-query AP)")),
}
UNIT_NAME = {"wdlmpro": "target", "coda21": "group", "senserank": "query"}
#: the two answer readings of ``--protocol choose`` results, as (key, label)
READINGS = (("likelihood", "label likelihood"), ("generation", "generation"))
#: per-reading metrics of choose results: (per-unit key, label)
CHOOSE_METRICS = {
    "wdlmpro": (("likelihood.p_at_1", "P@1 (choose, label likelihood)"),
                ("likelihood.rank_score", "RS (choose, label likelihood)"),
                ("generation.p_at_1", "P@1 (choose, generation)"),
                ("generation.valid", "answers parsed (choose, generation)")),
    "coda21": (("likelihood.accuracy", "accuracy (choose, label likelihood)"),
               ("generation.accuracy", "accuracy (choose, generation)"),
               ("generation.valid", "answers parsed (choose, generation)")),
}


def is_choose(result: dict) -> bool:
    """A ``--protocol choose`` result: metrics per answer reading, instances per (item, option order)."""
    return (result.get("config") or {}).get("protocol") == "choose"


def is_sweep(result: dict) -> bool:
    """A senserank ``--layers`` result: metrics per layer under ``layers``, no instances."""
    return result.get("benchmark") == "senserank" and isinstance(result.get("layers"), dict)


def unit_metrics(result: dict) -> tuple[tuple[str, str], ...]:
    return CHOOSE_METRICS[result["benchmark"]] if is_choose(result) else UNIT_METRICS[result["benchmark"]]


def load_result(path: str | Path) -> dict[str, Any]:
    """Read and check one result file; the path is kept under ``_path``."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"result file {path} not found; pass the --out file of an `eval` (or `lexprobe run`)")
    result = read_json(path, "pass the --out file of an `eval`")
    if (not isinstance(result, dict) or result.get("benchmark") not in BENCHMARKS
            or ("metrics" not in result and not is_sweep(result))):
        raise DataError(f"{path} is not a lexprobe result file (no benchmark/metrics); pass the --out file of an `eval`")
    result["_path"] = str(path)
    return result


def model_name(result: dict) -> str:
    model = result.get("model")
    if isinstance(model, dict):
        return str(model.get("name", "?"))
    return str(model) if model is not None else "?"


def task_name(result: dict) -> str:
    """The table a result belongs in within its benchmark (data file for CoDA21, corpus for senserank)."""
    if result["benchmark"] == "coda21":
        data = (result.get("config") or {}).get("data")
        return Path(str(data)).stem if data else "CoDA21"
    if result["benchmark"] == "senserank":
        return str(result.get("task", "?"))
    return "wdlmpro"


@dataclass
class Unit:
    key: str
    task: str
    pos: str
    values: dict[str, float | None] = field(default_factory=dict)


def units(result: dict) -> list[Unit]:
    """Per-unit metric values from a result's ``instances``."""
    instances = result.get("instances")
    if is_sweep(result):
        raise DataError(f"{result.get('_path', 'the result')} is a layer sweep (--layers), which keeps no per-query "
                        "records; compare single-layer runs (senserank eval --layer L) item by item")
    if not instances:
        raise DataError(f"{result.get('_path', 'the result')} has no per-item records (`instances`); "
                        "rerun the evaluation without --no-instances")
    bench = result["benchmark"]
    out = []
    if is_choose(result):
        out = choose_units(result)
    elif bench == "wdlmpro":
        for r in instances:
            rank = r.get("gold_rank")
            p1 = r.get("correct", None if rank is None else rank == 1)
            out.append(Unit(f"{r['task']}:{r['target']}", r["task"], r["pos"],
                            {"p_at_1": None if p1 is None else float(p1), "rank_score": r.get("rank_score")}))
    elif bench == "coda21":
        for r in instances:
            out.append(Unit(r["id"], "alignment", r["pos"],
                            {"accuracy": r["accuracy"], "simple_accuracy": r.get("simple_accuracy")}))
    else:
        k = int((result.get("config") or {}).get("k", 50))
        ranks = np.arange(1, k + 1)
        for r in instances:
            hits = np.zeros(k)
            h = [int(c) for c in r["hits"][:k]]
            hits[: len(h)] = h
            pooled = float(np.mean(np.cumsum(hits) / ranks))
            out.append(Unit(r["id"], str(result.get("task", "?")), r["pos"], {"pooled": pooled, "map": r["ap"]}))
    keys = [u.key for u in out]
    if len(set(keys)) != len(keys):
        raise DataError(f"{result.get('_path', 'the result')} has repeated item ids; it cannot be paired item by item")
    return out


def choose_units(result: dict) -> list[Unit]:
    """One unit per item (WDLMPro task:target, CoDA21 group): each reading's value averaged over the
    item's option orders; None where the item was skipped (prompt too long) or the reading not run."""
    bench = result["benchmark"]
    score = "correct" if bench == "wdlmpro" else "accuracy"
    by_item: dict[str, list[dict]] = {}
    for r in result["instances"]:
        by_item.setdefault(r["item"], []).append(r)
    out = []
    for item, recs in by_item.items():
        values: dict[str, float | None] = {}
        for reading, _ in READINGS:
            answered = [r[reading] for r in recs if reading in r]
            ok = len(answered) == len(recs)
            values[f"{reading}.{'p_at_1' if bench == 'wdlmpro' else 'accuracy'}"] = (
                float(np.mean([float(a[score]) for a in answered])) if ok else None)
            if reading == "likelihood" and bench == "wdlmpro":
                values["likelihood.rank_score"] = float(np.mean([a["rank_score"] for a in answered])) if ok else None
            if reading == "generation":
                values["generation.valid"] = float(np.mean([a["failure"] is None for a in answered])) if ok else None
        first = recs[0]
        task = first.get("task", "alignment") if bench == "wdlmpro" else "alignment"
        out.append(Unit(item, task, first["pos"], values))
    return out
