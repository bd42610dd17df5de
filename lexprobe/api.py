"""lexprobe from Python, in one import: every shipped benchmark registered, then what a script calls.

    from lexprobe.api import evaluate, load_result, load_scorer, results_frame

    scorer = load_scorer("all-MiniLM-L6-v2", device="cpu")
    result = evaluate("wdlmpro", scorer, out="minilm.json")
    frame = results_frame("minilm.json")  # the per-item records as a pandas DataFrame

Why a module of its own: ``evaluate``, ``result_schema.load`` and ``results_frame`` (which reads results through
it) look benchmarks up by name in a registry that the list of shipped benchmarks (``benchmarks.shipped``, above the
packages) fills, so they import no benchmark themselves; this module, at the top, imports that list first.
"""

from __future__ import annotations

import lexprobe.benchmarks.shipped  # noqa: F401  (registers the shipped benchmarks: evaluate("wdlmpro", ...))
from lexprobe.core.evaluate import evaluate
from lexprobe.core.registry import get as benchmark
from lexprobe.core.result_schema import load as load_result
from lexprobe.export.frames import results_frame
from lexprobe.models import load_scorer

__all__ = ["benchmark", "evaluate", "load_result", "load_scorer", "results_frame"]
