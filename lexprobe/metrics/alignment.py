"""Context-definition alignment (CoDA21) and its accuracy.

A CoDA21 group gives a k x k matrix of match scores, ``scores[c, d]`` = how well
definition ``d`` fits context ``c``; the gold alignment pairs context i with
definition i. The paper searches all k! one-to-one alignments for the one with
the largest summed score; that is the linear assignment problem, which the
Hungarian algorithm (``scipy.optimize.linear_sum_assignment``) solves exactly in
O(k^3). ``exhaustive_alignment`` keeps the enumeration as a reference, and
``simple_matching`` is the paper's "without alignment" setup (each definition
takes its best context, contexts may be reused).

An alignment is returned as ``assignment[c] = d``: the definition given to context c.

Tie rule (deterministic, documented): the solvers here prefer lower indices — the
enumeration keeps the first best permutation in ``itertools.permutations`` order,
simple matching the first best context. So that a tie can never favour the gold
(identity) alignment, the CoDA21 evaluation puts the definitions of every group in a
fixed pseudo-random order (``tie_break_order``, seeded by the group id) before
solving and maps the answer back; a constant score matrix then scores 1/k in
expectation, like chance. Hungarian and enumeration agree on the optimal total
score always, and on the alignment whenever the optimum is unique.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from typing import Sequence

import numpy as np

#: k! grows fast: 10! = 3.6M permutations is the paper's limit
EXHAUSTIVE_MAX_K = 10


def _check_square(scores: np.ndarray) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2 or scores.shape[0] != scores.shape[1]:
        raise ValueError(f"match scores must be a square matrix, got shape {scores.shape}")
    if not np.all(np.isfinite(scores)):
        raise ValueError("match scores contain NaN or infinite values")
    return scores


def optimal_alignment(scores: np.ndarray) -> np.ndarray:
    """Alignment maximising the summed score (Hungarian algorithm)."""
    scores = _check_square(scores)
    from scipy.optimize import linear_sum_assignment  # (not at import: the CLI's help loads no scipy)

    rows, cols = linear_sum_assignment(scores, maximize=True)
    assignment = np.empty(len(rows), dtype=np.int64)
    assignment[rows] = cols
    return assignment


def exhaustive_alignment(scores: np.ndarray, max_k: int = EXHAUSTIVE_MAX_K) -> np.ndarray:
    """Reference: try all k! permutations; the first best one (itertools order) wins."""
    scores = _check_square(scores)
    k = scores.shape[0]
    if k > max_k:
        raise ValueError(f"exhaustive alignment of k={k} exceeds the limit {max_k} (k! permutations)")
    if k == 0:
        return np.empty(0, dtype=np.int64)
    rows = np.arange(k)
    best_total, best = -math.inf, np.empty(0, dtype=np.int64)  # k >= 1: the first block replaces it
    # enumerate in blocks so that numpy does the summing; order stays itertools order
    perms = itertools.permutations(range(k))
    while True:
        block = np.array(list(itertools.islice(perms, 100_000)), dtype=np.int64)
        if block.size == 0:
            break
        totals = scores[rows, block].sum(axis=1)
        i = int(np.argmax(totals))  # argmax returns the first maximum
        if totals[i] > best_total:
            best_total, best = float(totals[i]), block[i].copy()
    return best


def first_best_alignment(scores: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """The first optimal permutation in ``itertools.permutations`` order, in O(k^4).

    What the authors' enumeration returns (strict ``>``: the first best is kept),
    without enumerating k!: the lexicographically smallest optimal assignment,
    found row by row, each candidate column checked with a Hungarian solve of the
    rest. Totals within ``tol`` of the optimum count as ties.
    """
    scores = _check_square(scores)
    k = scores.shape[0]
    rows_left, cols_left = list(range(k)), list(range(k))
    best = alignment_score(scores, optimal_alignment(scores)) if k else 0.0
    fixed = 0.0
    out = np.empty(k, dtype=np.int64)
    for row in range(k):
        rows_left.remove(row)
        for col in sorted(cols_left):
            rest = [c for c in cols_left if c != col]
            sub = scores[np.ix_(rows_left, rest)]
            total = fixed + scores[row, col] + (alignment_score(sub, optimal_alignment(sub)) if rest else 0.0)
            if total >= best - tol * max(1.0, abs(best)):
                out[row] = col
                fixed += scores[row, col]
                cols_left.remove(col)
                break
    return out


def simple_matching(scores: np.ndarray) -> np.ndarray:
    """Each definition takes the context with its highest score (first on ties).

    Returns ``context_of[d]``: the context chosen by definition d (may repeat).
    """
    scores = _check_square(scores)
    return np.argmax(scores, axis=0).astype(np.int64)


def alignment_score(scores: np.ndarray, assignment: Sequence[int] | np.ndarray) -> float:
    scores = np.asarray(scores, dtype=np.float64)
    return float(scores[np.arange(len(assignment)), np.asarray(assignment)].sum())


def accuracy(assignment: Sequence[int] | np.ndarray) -> float:
    """Share of items mapped to themselves (gold = identity); 0 for an empty group."""
    chosen = np.asarray(assignment)
    if chosen.size == 0:
        return 0.0
    return float(np.mean(chosen == np.arange(chosen.size)))


def random_baseline(group_sizes: Sequence[int]) -> float:
    """Exact expected accuracy of chance, averaged over groups: mean of 1/k.

    Alignment: a uniformly random permutation of k items has on average one fixed
    point, so 1/k of the contexts are right. Simple matching: each definition picks
    one of k contexts uniformly at random, right with probability 1/k, so the
    expectation is 1/k as well.
    """
    sizes = [k for k in group_sizes if k > 0]
    if not sizes:
        return 0.0
    return float(np.mean([1.0 / k for k in sizes]))


def tie_break_order(group_id: str, k: int) -> np.ndarray:
    """A fixed pseudo-random permutation of range(k), seeded by the group id."""
    seed = int.from_bytes(hashlib.sha256(group_id.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).permutation(k)


def align(scores: np.ndarray, method: str = "optimal", order: np.ndarray | None = None,
          max_k: int = EXHAUSTIVE_MAX_K) -> np.ndarray:
    """Solve one group with ``method`` in {optimal, exhaustive, first-best, none}.

    ``order`` (see ``tie_break_order``) permutes the definitions before solving; the
    answer is mapped back, so it is always ``assignment[c] = d`` in the original
    indexing. For ``none`` (simple matching) it returns ``context_of[d]``; accuracy is
    the share of fixed points in both cases.
    """
    scores = _check_square(scores)
    k = scores.shape[0]
    order = np.arange(k) if order is None else np.asarray(order)
    permuted = scores[:, order]  # column j of permuted = definition order[j]
    if method == "optimal":
        return order[optimal_alignment(permuted)]
    if method == "exhaustive":
        return order[exhaustive_alignment(permuted, max_k=max_k)]
    if method == "first-best":
        return order[first_best_alignment(permuted)]
    if method == "none":
        context_of = simple_matching(permuted)  # for permuted column j
        out = np.empty(k, dtype=np.int64)
        out[order] = context_of
        return out
    raise ValueError(f"unknown alignment method {method!r} (optimal, exhaustive, first-best, none)")
