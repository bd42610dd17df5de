"""Seeded random scores: the empirical random baseline.

Scores depend on (seed, key) only, never on the order requests arrive in, so a
resumed or re-batched run gives the same numbers.
"""

from __future__ import annotations

import zlib

import numpy as np

from lexprobe.scorers.base import Scorer


class RandomScorer(Scorer):
    def __init__(self, seed: int = 0):
        super().__init__("random")
        self.kind = "random"
        self.seed = seed

    def describe(self) -> dict:
        return {"name": self.name, "kind": self.kind, "seed": self.seed}

    def scores(self, key: str, n: int) -> np.ndarray:
        rng = np.random.default_rng([self.seed, zlib.crc32(key.encode("utf-8"))])
        return rng.random(n)
