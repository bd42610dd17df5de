"""Result files as ``report`` and ``compare`` see them: validated, with per-unit values.

A unit is what the bootstrap resamples and what ``compare`` pairs: a WDLMPro target
in one task, a CoDA21 group, a sense-ranking query. Results of people (``model.kind``
``human``) have the same shape as a model's; a metric a person's answers cannot give
(a rank score from a single choice) is null and is left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lexprobe.errors import DataError

BENCHMARKS = ("wdlmpro", "coda21", "senserank")
#: metrics per benchmark, as (per-unit key, label) -- the order tables and compare use
UNIT_METRICS = {
    "wdlmpro": (("p_at_1", "P@1"), ("rank_score", "RS")),
    "coda21": (("accuracy", "accuracy"), ("simple_accuracy", "simple matching")),
    "senserank": (("pooled", "MAP@50 (paper, pooled)"), ("map", "MAP@50 (per-query AP)")),
}
UNIT_NAME = {"wdlmpro": "target", "coda21": "group", "senserank": "query"}


def load_result(path: str | Path) -> dict[str, Any]:
    """Read and check one result file; the path is kept under ``_path``."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"result file {path} not found; pass the --out file of an `eval` (or `lexprobe run`)")
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise DataError(f"{path} is not a JSON result file ({err}); pass the --out file of an `eval`") from None
    if not isinstance(result, dict) or result.get("benchmark") not in BENCHMARKS or "metrics" not in result:
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
    if not instances:
        raise DataError(f"{result.get('_path', 'the result')} has no per-item records (`instances`); "
                        "rerun the evaluation without --no-instances")
    bench = result["benchmark"]
    out = []
    if bench == "wdlmpro":
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
