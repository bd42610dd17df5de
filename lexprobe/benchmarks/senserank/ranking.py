"""Same-lemma nearest-neighbour ranking of queries against the database D.

For each lemma, the queries' vectors are multiplied once by the lemma's database
vectors (one matrix product per lemma, in query blocks that bound memory), and the
top k are kept. No all-pairs matrix over the corpus is ever formed, so the cost is
sum over lemmas of |Q_lemma| * |D_lemma| and memory stays at one block.

Ties are broken by database order (lower index first), so results are deterministic.
Like the original code, the restriction is by lemma only (``match_pos=False``): a
noun query of *run* also ranks verb instances of *run*.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from lexprobe.data.instances import SenseInstance

MAX_BLOCK_CELLS = 8_000_000  # query-block x lemma-pool similarity cells held at once


@dataclass
class RankedQuery:
    query: int  # index into the query list
    top: np.ndarray  # database indices, best first (length <= k)
    scores: np.ndarray  # their cosines
    hits: np.ndarray  # 0/1: same sense as the query
    n_relevant: int  # R
    n_candidates: int  # N


@dataclass
class RankingReport:
    ranked: list[RankedQuery]
    dropped_rare_sense: int = 0  # query senses with < min_sense_count instances in D
    dropped_unaligned: int = 0  # query targets the tokenizer could not locate
    db_unaligned: int = 0  # database targets left out for the same reason
    lemma_freq: dict = field(default_factory=dict)  # lemma key -> N
    sense_freq: dict = field(default_factory=dict)  # (lemma key, label) -> R


def lemma_key(inst: SenseInstance, match_pos: bool = False):
    return (inst.lemma, inst.pos) if match_pos else inst.lemma


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
) -> RankingReport:
    """Rank, for every eligible query, the same-lemma database instances by cosine.

    Vectors need not be normalised (they are normalised here). Database instances
    whose target did not align (``db_ok`` False) are not candidates.
    """
    db_ok = np.ones(len(database), bool) if db_ok is None else np.asarray(db_ok, bool)
    q_ok = np.ones(len(queries), bool) if q_ok is None else np.asarray(q_ok, bool)
    db_vectors = _normalize(db_vectors)
    q_vectors = _normalize(q_vectors)

    pools: dict = defaultdict(list)
    for i, inst in enumerate(database):
        if db_ok[i]:
            pools[lemma_key(inst, match_pos)].append(i)
    sense_freq = Counter((lemma_key(d, match_pos), d.label) for i, d in enumerate(database) if db_ok[i])
    report = RankingReport([], db_unaligned=int((~db_ok).sum()))
    report.lemma_freq = {key: len(ix) for key, ix in pools.items()}
    report.sense_freq = dict(sense_freq)

    by_lemma: dict = defaultdict(list)
    for qi, q in enumerate(queries):
        key = lemma_key(q, match_pos)
        if sense_freq.get((key, q.label), 0) < min_sense_count:
            report.dropped_rare_sense += 1
            continue
        if not q_ok[qi]:
            report.dropped_unaligned += 1
            continue
        by_lemma[key].append(qi)

    db_labels = np.array([d.label for d in database], dtype=object)
    for key, qidx in by_lemma.items():
        pool = np.asarray(pools[key])
        pool_vecs = db_vectors[pool]
        pool_labels = db_labels[pool]
        kk = min(k, len(pool))
        block = max(1, MAX_BLOCK_CELLS // max(1, len(pool)))
        for b in range(0, len(qidx), block):
            qs = qidx[b : b + block]
            sims = q_vectors[qs] @ pool_vecs.T  # one product per lemma (per block of queries)
            top = _top_k(sims, kk)
            for row, qi in enumerate(qs):
                order = top[row]
                label = queries[qi].label
                report.ranked.append(
                    RankedQuery(
                        query=qi,
                        top=pool[order],
                        scores=sims[row, order],
                        hits=(pool_labels[order] == label).astype(np.int8),
                        n_relevant=sense_freq[(key, label)],
                        n_candidates=len(pool),
                    )
                )
    report.ranked.sort(key=lambda r: r.query)
    return report


def _top_k(sims: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the k largest per row, best first, ties by lower index."""
    n = sims.shape[1]
    if k < n:
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        part.sort(axis=1)  # index order, so the stable sort below breaks ties by index
    else:
        part = np.tile(np.arange(n), (sims.shape[0], 1))
    vals = np.take_along_axis(sims, part, axis=1)
    order = np.argsort(-vals, axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def _normalize(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


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
