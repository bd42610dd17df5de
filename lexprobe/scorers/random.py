"""Seeded random scores: the empirical random baseline.

Scores depend on (seed, key) only, never on the order requests arrive in, so a
resumed or re-batched run gives the same numbers.
"""

from __future__ import annotations

import zlib

import numpy as np

from lexprobe.scorers.base import Scorer

#: the length of a random target vector (the sense-ranking baseline)
VECTOR_DIM = 64


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

    def random_scores(self, requests, progress: bool = False) -> list[np.ndarray]:
        """``asking.requests.RandomScores``: ``scores(key, n)`` of each."""
        return [self.scores(r.key, r.n) for r in requests]

    def token_vectors(self, requests, progress: bool = False) -> list[np.ndarray]:
        """``asking.requests.TokenVector``: a seeded random vector per (document, sentence, words, word), whatever the
        layer and tokenisation, so every ranking is uniformly random whatever the order or batching."""
        return [self.vector(r.sentence[0], r.sentence[1], r.words, r.target) for r in requests]

    def vector(self, doc_id: str, sent_id: str, tokens, index: int | tuple[int, int]) -> np.ndarray:
        where = index if isinstance(index, int) else f"{index[0]}:{index[1]}"
        key = f"{doc_id}\0{sent_id}\0{' '.join(tokens)}\0{where}"
        rng = np.random.default_rng([self.seed, zlib.crc32(key.encode("utf-8"))])
        return rng.standard_normal(VECTOR_DIM).astype(np.float32)
