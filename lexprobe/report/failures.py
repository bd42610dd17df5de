"""Per-item rows of the report's items pages: what a model chose instead of the gold answer.

Each benchmark builds its rows and names its columns (``contract.failure_rows``,
``failure_columns``); rows carry ``model``, ``task``, ``pos`` and ``ok`` for the page's filters.
"""

from __future__ import annotations

from lexprobe.core.contract import failure_rows as bench_failure_rows
from lexprobe.core.registry import get


def failure_rows(results: list[dict]) -> list[dict]:
    rows: list[dict] = []
    for r in results:
        rows += bench_failure_rows(get(r["benchmark"]), r)
    return rows


def columns(benchmark: str) -> list[tuple[str, str]]:
    return list(get(benchmark).presentation.failure_columns)
