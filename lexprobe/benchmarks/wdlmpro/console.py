"""What ``lexprobe wdlmpro eval`` prints after a run: the report's tables of its result (``tables.py``), with the
breakdown tables of a likelihood run, each through ``lexprobe.tables.to_text`` (every figure in %, at most
``reporting.WIDTH`` columns wide)."""

from __future__ import annotations

from lexprobe.benchmarks.wdlmpro.tables import breakdown_tables, tables
from lexprobe.tables import to_text


def format_result(result: dict) -> str:
    return "\n\n".join(to_text(t) for t in tables([result]) + breakdown_tables(result))
