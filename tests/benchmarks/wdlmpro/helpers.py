"""WDLMPro on hand-made groups through the one entry point, as a Python caller runs it."""

from __future__ import annotations

from lexprobe.core.evaluate import evaluate
from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems


def evaluate_groups(scorer, groups, out=None, attributes=None, **options) -> dict:
    """``evaluate("wdlmpro", ...)`` on ``groups`` with ``WDLMProConfig(**options)`` (``task="w2d"``, ``recipe``,
    ``chunk_size``, ...); ``attributes``: groups -> per-target breakdown attributes (none by default)."""
    config = WDLMProConfig(**options)
    items = WDLMProItems(list(groups), attributes)
    result = evaluate("wdlmpro", scorer, config, out, items=items, progress=False)
    assert result is not None  # one process: rank 0
    return result
