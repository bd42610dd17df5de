"""What ``lexprobe wdlmpro eval`` prints after a run: the report's tables of its result (``tables.py``), with the
breakdown tables of a likelihood run, each through ``lexprobe.tables.to_text`` (every figure in %, at most
``reporting.WIDTH`` columns wide)."""

from __future__ import annotations

from dataclasses import replace

from lexprobe.benchmarks.wdlmpro.tables import breakdown_tables, tables
from lexprobe.result_schema import is_choose, model_name
from lexprobe.tables import to_text


def format_result(result: dict) -> str:
    """The run's own tables transposed (a line per figure; a column per model and baseline, or per POS for a
    choose run, whose model, alike in every row, goes to the title), the model named whole in each title (its
    column's head may wrap); the breakdowns as they are."""
    named = [t if is_choose(result) else replace(t, title=f"{t.title}: {model_name(result)}") for t in tables([result])]
    return "\n\n".join([to_text(t, transpose=True) for t in named]
                       + [to_text(t) for t in breakdown_tables(result)])
