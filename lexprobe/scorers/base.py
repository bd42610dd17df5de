"""The common face of every scorer.

A scorer wraps one model and exposes the primitive operations the benchmarks need
(continuation log-probabilities, masked-slot log-probabilities, text embeddings,
random scores). Benchmarks compose these primitives; they never call a model
directly, so one engine serves every benchmark and kind of model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Scorer:
    """Base class. ``kind`` is one of ``masked``, ``causal``, ``embedding``, ``static``, ``random``."""

    name: str
    kind: str = field(init=False, default="")
    #: counts of model forward passes, for benchmark scripts and honesty in reports
    stats: dict[str, int] = field(init=False, default_factory=dict)

    def describe(self) -> dict[str, Any]:
        """What identifies this scorer in a result file and in cache keys."""
        return {"name": self.name, "kind": self.kind}

    def count(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n
