"""The shared printout of the engine-vs-reference benchmark scripts."""

from __future__ import annotations


def report(model: str, scorer, what: str, t_ref: float, t_engine: float, diff: float, extra: str = "") -> None:
    """Print passes, wall time and speed-up; stop with an error if the scores disagree."""
    passes_ref = scorer.stats.get("reference_forward_passes", 0)
    passes_engine = scorer.stats.get("forward_passes", 0)
    print(f"{model} ({scorer.kind}, {scorer.device}): {what}")
    print(f"  reference: {passes_ref:7d} forward passes  {t_ref:8.2f} s")
    print(f"  engine:    {passes_engine:7d} forward passes  {t_engine:8.2f} s{extra}")
    print(f"  speed-up: {t_ref / t_engine:.1f}x wall, {passes_ref / max(passes_engine, 1):.1f}x fewer forward passes;"
          f" max |score diff| = {diff:.2e}")
    if diff > 1e-4:
        raise SystemExit(f"engine and reference disagree by {diff:.2e}")
