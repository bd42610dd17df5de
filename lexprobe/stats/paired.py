"""Paired comparison of two runs on the same units: difference, interval, exact test.

* 0/1 metrics (P@1, a person's or model's single choice being right): exact McNemar
  test, i.e. a two-sided binomial test of the discordant pairs against 1/2
  (``scipy.stats.binomtest``).
* any other per-unit score (rank score, CoDA21 group accuracy, AP, precision): paired
  permutation test of the mean difference -- each unit's difference keeps or flips
  its sign. Exact (all 2^m sign patterns of the m non-zero differences) when
  m <= ``EXACT_MAX``, else ``PERMUTATIONS`` seeded random patterns with the p-value
  (hits + 1) / (permutations + 1), which is never 0.

The interval of the difference is the percentile bootstrap of the mean paired
difference (units resampled, pairs kept together).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from lexprobe.stats.bootstrap import _MAX_CELLS, LEVEL, SEED, percentile_interval, resampled_means

EXACT_MAX = 16
PERMUTATIONS = 10_000
BOOTSTRAP_RESAMPLES = 2000
_REL_EPS = 1e-9  # ties of the statistic are judged up to rounding, as scipy does


@dataclass
class PairedResult:
    n: int
    mean_a: float
    mean_b: float
    difference: float  # mean_a - mean_b
    ci: list[float]
    test: str
    p_value: float
    detail: dict

    def as_dict(self) -> dict:
        return {"n": self.n, "a": self.mean_a, "b": self.mean_b, "difference": self.difference,
                "ci": self.ci, "test": self.test, "p_value": self.p_value, **self.detail}


def mcnemar_exact(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> tuple[float, dict]:
    """Two-sided exact McNemar p-value of paired 0/1 outcomes, and the discordant counts."""
    from scipy.stats import binomtest

    x = np.asarray(a, dtype=bool)
    y = np.asarray(b, dtype=bool)
    only_a = int(np.count_nonzero(x & ~y))
    only_b = int(np.count_nonzero(~x & y))
    p = 1.0 if only_a + only_b == 0 else float(binomtest(only_a, only_a + only_b, 0.5).pvalue)
    return p, {"only_a": only_a, "only_b": only_b}


def sign_flip_test(differences: Sequence[float] | np.ndarray, permutations: int = PERMUTATIONS, seed: int = SEED,
                   exact_max: int = EXACT_MAX) -> tuple[float, dict]:
    """Two-sided paired permutation p-value of mean(differences) = 0."""
    d = np.asarray(differences, dtype=np.float64)
    nz = d[d != 0]  # a zero difference is the same under either sign
    m = len(nz)
    if m == 0:
        return 1.0, {"permutations": "exact", "nonzero": 0}
    observed = abs(nz.sum())
    threshold = observed * (1 - _REL_EPS) - 1e-12
    if m <= exact_max:
        patterns = ((np.arange(2 ** m)[:, None] >> np.arange(m)) & 1) * 2 - 1
        sums = np.abs(patterns @ nz)
        return float(np.count_nonzero(sums >= threshold) / len(sums)), {"permutations": "exact", "nonzero": m}
    rng = np.random.default_rng(seed)
    hits = 0
    step = max(1, _MAX_CELLS // m)
    for start in range(0, permutations, step):
        b = min(step, permutations - start)
        signs = rng.integers(0, 2, size=(b, m), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ nz) >= threshold))
    return (hits + 1) / (permutations + 1), {"permutations": permutations, "nonzero": m}


def paired_difference(a: Sequence[float], b: Sequence[float], binary: bool | None = None,
                      level: float = LEVEL, resamples: int = BOOTSTRAP_RESAMPLES,
                      permutations: int = PERMUTATIONS, seed: int = SEED) -> PairedResult:
    """Compare per-unit values of two runs (same units, same order)."""
    return paired_differences(a, [b], binary, level, resamples, permutations, seed)[0]


def paired_differences(a: Sequence[float], others: Sequence[Sequence[float]], binary: bool | None = None,
                       level: float = LEVEL, resamples: int = BOOTSTRAP_RESAMPLES,
                       permutations: int = PERMUTATIONS, seed: int = SEED) -> list[PairedResult]:
    """``paired_difference(a, b)`` for each ``b`` of ``others`` (all on the same units as ``a``), the bootstrap
    resamples drawn once for all of them: the same draws each single comparison makes (they depend only on the
    number of units and the seed), at the cost of one. Why: a model against eight published systems on 7,253
    instances, per slice, took a minute drawn one by one."""
    x = np.asarray(a, dtype=np.float64)
    ys = [np.asarray(b, dtype=np.float64) for b in others]
    if not ys or any(y.shape != x.shape for y in ys) or x.ndim != 1 or len(x) == 0:
        raise ValueError("paired values need the same (non-zero) number of units")
    ds = np.column_stack([x - y for y in ys])
    varying = [j for j in range(ds.shape[1]) if not np.all(ds[:, j] == ds[0, j])]
    bounds = {}
    if varying:
        intervals = percentile_interval(resampled_means(ds[:, varying], resamples, seed), level)
        bounds = {j: [float(intervals[0, k]), float(intervals[1, k])] for k, j in enumerate(varying)}
    out = []
    for j, y in enumerate(ys):
        d = ds[:, j]
        ci = bounds.get(j, [float(d[0]), float(d[0])])
        right_or_wrong = binary
        if right_or_wrong is None:
            right_or_wrong = bool(np.all(np.isin(x, (0.0, 1.0))) and np.all(np.isin(y, (0.0, 1.0))))
        if right_or_wrong:
            p, detail = mcnemar_exact(x, y)
            test = "McNemar exact"
        else:
            p, detail = sign_flip_test(d, permutations, seed)
            test = "paired permutation"
        out.append(PairedResult(len(x), float(x.mean()), float(y.mean()), float(d.mean()), ci, test, p, detail))
    return out
