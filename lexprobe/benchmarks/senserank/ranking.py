"""Same-lemma nearest-neighbour ranking of queries against the database D.

For each lemma, the queries' vectors are multiplied by the lemma's database vectors (in query blocks that
bound memory; on a GPU when there is one) and the top k kept: no all-pairs matrix over the corpus, the cost
is the sum over lemmas of |Q_lemma| * |D_lemma|. Ties go to the lower database index, so results are
deterministic. Like the original code, pools are by lemma only (``match_pos=False``): a noun query of *run*
also ranks verb instances of *run*.
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


def plan_ranking(database: Sequence[SenseInstance], queries: Sequence[SenseInstance], min_sense_count: int = 5,
                 match_pos: bool = False, db_ok: np.ndarray | None = None,
                 q_ok: np.ndarray | None = None) -> tuple[RankingReport, dict, dict]:
    """Counts and drops (no vectors needed), each lemma's database pool and its eligible queries."""
    db_ok = np.ones(len(database), bool) if db_ok is None else np.asarray(db_ok, bool)
    q_ok = np.ones(len(queries), bool) if q_ok is None else np.asarray(q_ok, bool)
    pools: dict = defaultdict(list)
    for i, inst in enumerate(database):
        if db_ok[i]:
            pools[lemma_key(inst, match_pos)].append(i)
    sense_freq = Counter((lemma_key(d, match_pos), d.label) for i, d in enumerate(database) if db_ok[i])
    report = RankingReport([], db_unaligned=int((~db_ok).sum()), lemma_freq={key: len(ix) for key, ix in pools.items()},
                           sense_freq=dict(sense_freq))
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
    return report, {key: np.asarray(ix) for key, ix in pools.items()}, dict(by_lemma)


def rank_lemma(key, qidx: Sequence[int], pool: np.ndarray, q_vectors: np.ndarray, pool_vectors: np.ndarray,
               queries: Sequence[SenseInstance], database: Sequence[SenseInstance], sense_freq: dict, k: int = 50,
               device=None) -> list[RankedQuery]:
    """Rank one lemma's queries (vectors ``q_vectors``, in ``qidx`` order) against its pool."""
    top, scores = top_k_cosine(q_vectors, pool_vectors, min(k, len(pool)), device)
    pool_labels = np.array([database[i].label for i in pool], dtype=object)
    out = []
    for row, qi in enumerate(qidx):
        order = top[row]
        label = queries[qi].label
        out.append(RankedQuery(query=qi, top=pool[order], scores=scores[row],
                               hits=(pool_labels[order] == label).astype(np.int8),
                               n_relevant=sense_freq[(key, label)], n_candidates=len(pool)))
    return out


def top_k_cosine(q: np.ndarray, pool: np.ndarray, k: int, device=None) -> tuple[np.ndarray, np.ndarray]:
    """Indices and cosines of the k most similar pool rows per query, best first, ties by lower index.

    Vectors are normalised here; queries go in blocks of ``MAX_BLOCK_CELLS`` similarity cells. ``device`` None:
    numpy; a torch device: the products and the stable sort run there, in full float32 (TF32 off).
    """
    q, pool = _normalize(q), _normalize(pool)
    block = max(1, MAX_BLOCK_CELLS // max(1, len(pool)))
    tops, vals = [], []
    if device is None:
        for b in range(0, len(q), block):
            sims = q[b : b + block] @ pool.T
            top = _top_k(sims, k)
            tops.append(top)
            vals.append(np.take_along_axis(sims, top, axis=1))
    else:
        import torch

        allow = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False  # cosines as exact as on the CPU
        try:
            pool_t = torch.from_numpy(pool).to(device)
            for b in range(0, len(q), block):
                sims = torch.from_numpy(q[b : b + block]).to(device) @ pool_t.T
                v, i = torch.sort(sims, dim=1, descending=True, stable=True)
                tops.append(i[:, :k].cpu().numpy())
                vals.append(v[:, :k].cpu().numpy())
        finally:
            torch.backends.cuda.matmul.allow_tf32 = allow
    if not tops:
        return np.zeros((0, k), dtype=np.int64), np.zeros((0, k), dtype=np.float32)
    return np.concatenate(tops), np.concatenate(vals)


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
