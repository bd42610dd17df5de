"""Ranking metrics for WDLMPro: gold rank, P@1 and the rank score RS = (L - k) / (L - 1).

Tie rule (deterministic, and never in the model's favour): a candidate whose score
equals the gold item's score is ranked above the gold item, so
``k = 1 + #{j != gold : s_j >= s_gold}``; NaN scores count as -inf. A model that
gives every candidate the same score therefore gets rank L, not rank 1. The
predicted candidate is the first in the same order (highest score; among equal
scores a non-gold candidate before the gold one, then by candidate position).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np


def _clean(scores: Sequence[float]) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    return np.where(np.isnan(s), -np.inf, s)


def gold_rank(scores: Sequence[float], gold: int = 0) -> int:
    s = _clean(scores)
    others = np.delete(s, gold)
    return 1 + int(np.count_nonzero(others >= s[gold]))


def predicted_index(scores: Sequence[float], gold: int = 0) -> int:
    s = _clean(scores)
    best = s.max()
    tied = np.flatnonzero(s == best)
    non_gold = [int(i) for i in tied if i != gold]
    return non_gold[0] if non_gold else gold


def rank_score(n_candidates: int, rank: int) -> float:
    """RS(L, k) = (L - k) / (L - 1); 1 for rank 1, 0 for the last rank."""
    if n_candidates < 2:
        raise ValueError("rank score needs at least two candidates")
    return (n_candidates - rank) / (n_candidates - 1)


def summarize(ranks: Iterable[int], sizes: Iterable[int]) -> dict:
    """P@1 (a fraction), mean rank score and count over instances."""
    ranks, sizes = list(ranks), list(sizes)
    if not ranks:
        return {"p_at_1": None, "rank_score": None, "n": 0}
    p1 = float(np.mean([r == 1 for r in ranks]))
    rs = float(np.mean([rank_score(L, k) for k, L in zip(ranks, sizes)]))
    return {"p_at_1": p1, "rank_score": rs, "n": len(ranks)}


def random_expectation(sizes: Iterable[int]) -> dict:
    """Exact expectation under a uniformly random ranking: P@1 = mean 1/L, RS = 0.5."""
    sizes = list(sizes)
    if not sizes:
        return {"p_at_1": None, "rank_score": None, "n": 0}
    return {"p_at_1": float(np.mean([1.0 / L for L in sizes])), "rank_score": 0.5, "n": len(sizes)}
