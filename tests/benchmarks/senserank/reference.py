"""Plain references of the per-lemma ranking (``lexprobe.benchmarks.senserank.ranking``), for tests: every query
ranked from vectors in RAM (``rank_same_lemma``), and one query by plain loops in float64 (``brute_force_rank``)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from lexprobe.benchmarks.senserank.ranking import RankingReport, lemma_key, plan_ranking, rank_lemma
from lexprobe.data.instances import SenseInstance


def rank_same_lemma(
    database: Sequence[SenseInstance],
    db_vectors: np.ndarray,
    queries: Sequence[SenseInstance],
    q_vectors: np.ndarray,
    k: int = 50,
    min_sense_count: int = 5,
    match_pos: bool = False,
    db_ok: np.ndarray | None = None,
    q_ok: np.ndarray | None = None,
    device=None,
) -> RankingReport:
    """Rank, for every eligible query, the same-lemma database instances by cosine.

    Vectors need not be normalised (they are normalised here). Database instances
    whose target did not align (``db_ok`` False) are not candidates. ``device``: see
    ``top_k_cosine``.
    """
    report, pools, by_lemma = plan_ranking(database, queries, min_sense_count, match_pos, db_ok, q_ok)
    for key, qidx in by_lemma.items():
        pool = pools[key]
        report.ranked.extend(rank_lemma(key, qidx, pool, np.asarray(q_vectors)[qidx], np.asarray(db_vectors)[pool],
                                        queries, database, report.sense_freq, k, device))
    report.ranked.sort(key=lambda r: r.query)
    return report



def brute_force_rank(database, db_vectors, query: SenseInstance, q_vector, k: int = 50, match_pos: bool = False):
    """Reference ranking of one query (plain loops), for tests."""
    key = lemma_key(query, match_pos)
    qn = np.asarray(q_vector, dtype=np.float64)
    qn = qn / (np.linalg.norm(qn) or 1.0)
    scored = []
    for i, d in enumerate(database):
        if lemma_key(d, match_pos) != key:
            continue
        v = np.asarray(db_vectors[i], dtype=np.float64)
        scored.append((-(v @ qn) / (np.linalg.norm(v) or 1.0), i))
    scored.sort()
    return [i for _, i in scored[:k]]
