"""Retrieval metrics of CWE similarity ranking (query-by-example sense retrieval).

Every query ranks the N same-lemma instances of the database D; R of them carry
the query's sense. ``hits`` is the 0/1 relevance of the top K (K = 50) results,
shorter than K when N < K.

Two figures are reported:

* ``map``: textbook mean average precision at K,
  ``AP@K = (1 / min(R, K)) * sum_{k<=K} P@k * rel(k)``, averaged over queries.
* ``pooled``: the paper's figure (what its code calls MAP@50): precision at k
  pooled over queries, ``P@k = sum_q hits_q(k) / sum_q k`` (a short list still
  counts k in the denominator), then averaged over k = 1..K. Because every query
  contributes k to the denominator, pooled P@k is the mean over queries of
  ``hits_q(k) / k``.

Oracle and random baselines are exact, not simulated:

* oracle: ``hits(k) = min(k, R)``.
* random ranking (a uniformly random permutation of the N candidates): the top
  min(k, N) positions are a sample drawn without replacement, so hits(k) is
  hypergeometric with mean ``min(k, N) * R / N``. Expected precision is linear
  in hits, so the pooled random curve is exactly the pooled mean of these.
* random AP@K: ``E[rel(k) * hits(k)] = P(rel(k)) * E[hits(k) | rel(k)]
  = (R/N) * (1 + (k - 1)(R - 1)/(N - 1))`` for k <= N, hence
  ``E[AP@K] = 1/min(R,K) * sum_{k <= min(K,N)} (R/N)(1 + (k-1)(R-1)/(N-1)) / k``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from lexprobe.stats.bootstrap import mean_intervals

DEFAULT_K = 50
#: lemma frequency in D: [0, 500) and [500, inf)
DEFAULT_FREQ_EDGES = (0, 500, math.inf)
#: sense proportion r: [0, 0.25) and [0.25, 1) -- like the original code, r = 1 (lemmas with a
#: single sense in D) falls in no bucket; pass an upper edge above 1 to include it
DEFAULT_RARITY_EDGES = (0.0, 0.25, 1.0)


def cumulative_hits(hits: Sequence[int] | np.ndarray, k: int = DEFAULT_K) -> np.ndarray:
    """hits(1..k): relevant results among the first k; a short list stays flat after its end."""
    rel = np.zeros(k, dtype=np.int64)
    h = np.asarray(hits, dtype=np.int64)[:k]
    rel[: len(h)] = h
    return np.cumsum(rel)


def average_precision(hits: Sequence[int] | np.ndarray, n_relevant: int, k: int = DEFAULT_K) -> float:
    """Textbook AP@k, normalised by min(R, k); 0 when R = 0."""
    if n_relevant <= 0:
        return 0.0
    rel = np.zeros(k, dtype=np.float64)
    h = np.asarray(hits, dtype=np.float64)[:k]
    rel[: len(h)] = h
    cum = np.cumsum(rel)
    ranks = np.arange(1, k + 1)
    return float(np.sum(rel * cum / ranks) / min(n_relevant, k))


def oracle_hits(n_relevant: int, n_candidates: int, k: int = DEFAULT_K) -> np.ndarray:
    ranks = np.arange(1, k + 1)
    return np.minimum(ranks, min(n_relevant, n_candidates)).astype(np.float64)


def random_expected_hits(n_relevant: int, n_candidates: int, k: int = DEFAULT_K) -> np.ndarray:
    """Exact E[hits(k)] of a uniformly random ranking: min(k, N) * R / N."""
    if n_candidates <= 0:
        return np.zeros(k)
    ranks = np.arange(1, k + 1)
    return np.minimum(ranks, n_candidates) * (n_relevant / n_candidates)


def random_expected_ap(n_relevant: int, n_candidates: int, k: int = DEFAULT_K) -> float:
    """Exact expected AP@k of a uniformly random ranking (see module docstring)."""
    if n_relevant <= 0 or n_candidates <= 0:
        return 0.0
    n, r = n_candidates, n_relevant
    ks = np.arange(1, min(k, n) + 1, dtype=np.float64)
    cond = 1.0 + (ks - 1) * ((r - 1) / (n - 1) if n > 1 else 0.0)
    return float(np.sum((r / n) * cond / ks) / min(r, k))


@dataclass
class QueryOutcome:
    """What the metrics need to know about one ranked query."""

    hits: np.ndarray  # 0/1 relevance of the top results (length <= k)
    n_relevant: int  # R: database instances of the query's sense (same lemma pool)
    n_candidates: int  # N: database instances of the query's lemma


def summarize(outcomes: Sequence[QueryOutcome], k: int = DEFAULT_K) -> dict:
    """Model, random and oracle figures of a set of queries (curves are P@1..P@k)."""
    n = len(outcomes)
    if n == 0:
        return {"queries": 0}
    ranks = np.arange(1, k + 1, dtype=np.float64)
    model = np.zeros(k)
    oracle = np.zeros(k)
    rand = np.zeros(k)
    aps, rand_aps = [], []
    per_query: dict[str, list] = {"pooled": [], "pooled_random": [], "pooled_oracle": []}  # pooled = mean of these over queries
    for o in outcomes:
        for name, acc, h in (("pooled", model, cumulative_hits(o.hits, k)),
                             ("pooled_oracle", oracle, oracle_hits(o.n_relevant, o.n_candidates, k)),
                             ("pooled_random", rand, random_expected_hits(o.n_relevant, o.n_candidates, k))):
            acc += h
            per_query[name].append(float(np.mean(h / ranks)))
        aps.append(average_precision(o.hits, o.n_relevant, k))
        rand_aps.append(random_expected_ap(o.n_relevant, o.n_candidates, k))
    denom = n * ranks
    curves = {"model": model / denom, "random": rand / denom, "oracle": oracle / denom}
    return {
        "queries": n,
        "map": float(np.mean(aps)),
        "map_random": float(np.mean(rand_aps)),
        "map_oracle": 1.0,
        "pooled": float(curves["model"].mean()),
        "pooled_random": float(curves["random"].mean()),
        "pooled_oracle": float(curves["oracle"].mean()),
        "curves": {name: [float(x) for x in c] for name, c in curves.items()},
        "ci": mean_intervals({"map": aps, "map_random": rand_aps, **per_query}),  # bootstrap over queries
    }


def bucket_label(lo: float, hi: float, name: str) -> str:
    def fmt(x: float) -> str:
        return "inf" if math.isinf(x) else f"{x:g}"

    if lo <= 0:
        return f"{name}<{fmt(hi)}"
    if math.isinf(hi):
        return f"{name}>={fmt(lo)}"
    return f"{fmt(lo)}<={name}<{fmt(hi)}"


def bucket_of(
    lemma_freq: float,
    rarity: float,
    freq_edges: Sequence[float] = DEFAULT_FREQ_EDGES,
    rarity_edges: Sequence[float] = DEFAULT_RARITY_EDGES,
) -> str | None:
    """The bucket ``"l<500 r<0.25"``-style name of a query, or None if it falls outside every edge."""
    f = _interval(lemma_freq, freq_edges)
    r = _interval(rarity, rarity_edges)
    if f is None or r is None:
        return None
    return f"{bucket_label(*f, 'l')} {bucket_label(*r, 'r')}"


def bucket_names(
    freq_edges: Sequence[float] = DEFAULT_FREQ_EDGES, rarity_edges: Sequence[float] = DEFAULT_RARITY_EDGES
) -> list[str]:
    """All bucket names in table order (frequency outer, rarity inner, like Table 1)."""
    return [
        f"{bucket_label(f0, f1, 'l')} {bucket_label(r0, r1, 'r')}"
        for f0, f1 in zip(freq_edges, freq_edges[1:])
        for r0, r1 in zip(rarity_edges, rarity_edges[1:])
    ]


def _interval(x: float, edges: Sequence[float]) -> tuple[float, float] | None:
    for lo, hi in zip(edges, edges[1:]):
        if lo <= x < hi:
            return (lo, hi)
    return None


def parse_edges(text: str) -> tuple[float, ...]:
    """``"0,100,500,inf"`` -> (0, 100, 500, inf): at least two strictly increasing numbers, finite
    except that the last may be ``inf`` (NaN compares false with everything, so it is refused)."""
    problem = f"bucket edges must be at least two increasing numbers (the last may be inf), got {text!r}"
    try:
        edges = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise ValueError(problem) from None
    if (len(edges) < 2 or not all(math.isfinite(e) for e in edges[:-1]) or math.isnan(edges[-1])
            or edges[-1] == -math.inf or any(not b > a for a, b in zip(edges, edges[1:]))):
        raise ValueError(problem)
    return edges
