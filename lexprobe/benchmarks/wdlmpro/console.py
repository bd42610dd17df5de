"""What ``lexprobe wdlmpro eval`` prints after a run: the report's tables of its result (``tables.py``), with the
breakdown tables of a likelihood run, each through ``lexprobe.tables.to_text`` (every figure in %, at most
``reporting.WIDTH`` columns wide)."""

from __future__ import annotations

from dataclasses import replace

from lexprobe.benchmarks.wdlmpro.tables import breakdown_tables, choose_tables, likelihood_tables
from lexprobe.result_schema import model_name
from lexprobe.tables import to_text


def format_result(result: dict) -> str:
    """A likelihood run's tables transposed (a line per figure, a column per model and baseline), the model named
    whole in each title (its column's head may wrap); the breakdowns as they are."""
    named = [replace(t, title=f"{t.title}: {model_name(result)}") for t in likelihood_tables([result])]
    return "\n\n".join([to_text(t, transpose=True) for t in named] + [to_text(t) for t in breakdown_tables(result)])


def format_choose(result: dict) -> str:
    """A choose run's table transposed (a column per POS; the model, alike in every row, is in the title)."""
    return "\n\n".join(to_text(t, transpose=True) for t in choose_tables([result]))
