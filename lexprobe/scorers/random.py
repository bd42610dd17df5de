"""Seeded random scores: the empirical random baseline.

Scores depend on (seed, key) only, never on the order requests arrive in, so a
resumed or re-batched run gives the same numbers.
"""

from __future__ import annotations

import zlib

import numpy as np

from lexprobe.scorers.base import EmbeddedTargets, Scorer


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

    def embed(self, instances, progress: bool = False) -> EmbeddedTargets:
        """Seeded random target vectors (the sense-ranking baseline); see ``RandomTargetEmbedder``."""
        return RandomTargetEmbedder(self.seed).embed(instances, progress)

    def random_scores(self, requests, progress: bool = False) -> list[np.ndarray]:
        """``core.requests.RandomScores``: ``scores(key, n)`` of each."""
        return [self.scores(r.key, r.n) for r in requests]

    def token_vectors(self, requests, progress: bool = False) -> list[np.ndarray]:
        """``core.requests.TokenVector``: a seeded random vector per (document, sentence, words, word), whatever the
        layer and tokenisation (the request's ``sentence`` ids: ``RandomTargetEmbedder``'s numbers)."""
        embedder = RandomTargetEmbedder(self.seed)
        return [embedder.vector(r.sentence[0], r.sentence[1], r.words, r.index) for r in requests]


class RandomTargetEmbedder:
    """Seeded random target vectors, the sense-ranking baseline: a vector depends on (seed, document, sentence,
    token index) only, so every ranking is uniformly random whatever the order or batching."""

    name = "random"
    dim = 64

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.stats = {"sentences_encoded": 0}

    def describe(self) -> dict:
        return {"name": "random", "kind": "random", "seed": self.seed}

    def embed(self, instances, progress: bool = False) -> EmbeddedTargets:
        vectors = np.zeros((len(instances), self.dim), dtype=np.float32)
        for i, inst in enumerate(instances):
            vectors[i] = self.vector(inst.doc_id, inst.sent_id, inst.tokens, inst.index)
        return EmbeddedTargets(vectors, np.ones(len(instances), dtype=bool), {"random": True})

    def vector(self, doc_id: str, sent_id: str, tokens, index: int) -> np.ndarray:
        key = f"{doc_id}\0{sent_id}\0{' '.join(tokens)}\0{index}"
        rng = np.random.default_rng([self.seed, zlib.crc32(key.encode("utf-8"))])
        return rng.standard_normal(self.dim).astype(np.float32)
