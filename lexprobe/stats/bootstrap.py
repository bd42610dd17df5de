"""Seeded percentile-bootstrap intervals of means over units (groups, queries, targets).

Every lexprobe metric is a mean over independent units (a WDLMPro target, a CoDA21
group, a sense-ranking query), so one resampling of the units serves all metrics of
a slice: the same resampled unit sets give every metric's interval, and the seed is
fixed, so a rerun or a resumed run gives the same interval. The percentile method is
used rather than BCa because BCa needs a jackknife that is quadratic in the number
of units (50,000 queries are common).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

LEVEL = 0.95
RESAMPLES = 1000
SEED = 0
#: cells (resamples x units) held at once; bounds memory for large unit counts
_MAX_CELLS = 4_000_000


def resampled_means(values: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples of the rows of ``values`` (units x metrics).

    Returns an array (resamples x metrics). Resample r draws n units with replacement;
    it is the same draw for every metric (one column each).
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n = values.shape[0]
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, values.shape[1]))
    step = max(1, _MAX_CELLS // max(n, 1))
    for start in range(0, resamples, step):
        b = min(step, resamples - start)
        idx = rng.integers(0, n, size=(b, n))
        # counts of each unit in each resample, then one matrix product
        counts = np.bincount((idx + (np.arange(b) * n)[:, None]).ravel(), minlength=b * n).reshape(b, n)
        out[start:start + b] = counts @ values / n
    return out


def percentile_interval(samples: np.ndarray, level: float = LEVEL) -> np.ndarray:
    """(2 x metrics) lower and upper percentiles, as numpy's default (linear) percentile."""
    alpha = (1.0 - level) / 2.0
    return np.percentile(samples, [100 * alpha, 100 * (1 - alpha)], axis=0)


def mean_interval(values: Sequence[float], level: float = LEVEL, resamples: int = RESAMPLES,
                  seed: int = SEED) -> list[float] | None:
    """Bootstrap interval [lo, hi] of the mean of ``values``; None for no units."""
    out = mean_intervals({"x": values}, level, resamples, seed)
    return out.get("x")


def mean_intervals(per_unit: Mapping[str, Sequence[float | None]], level: float = LEVEL,
                   resamples: int = RESAMPLES, seed: int = SEED) -> dict[str, list[float]]:
    """Intervals of several per-unit metrics of the same units, from one set of resamples.

    Every sequence holds one value per unit, in the same unit order. A metric with a
    missing value (None, e.g. a rank score a person's single choice cannot give) gets
    no interval; a slice with no units gives an empty dict.
    """
    names = [k for k, v in per_unit.items() if len(v) and all(x is not None for x in v)]
    if not names:
        return {}
    n = len(per_unit[names[0]])
    if any(len(per_unit[k]) != n for k in names):
        raise ValueError("every metric needs one value per unit")
    values = np.column_stack([np.asarray(per_unit[k], dtype=np.float64) for k in names])
    lo, hi = percentile_interval(resampled_means(values, resamples, seed), level)
    # a constant column gives exactly its value (no floating-point drift from the averaging)
    const = np.all(values == values[0], axis=0)
    lo = np.where(const, values[0], lo)
    hi = np.where(const, values[0], hi)
    return {k: [round(float(a), 6), round(float(b), 6)] for k, a, b in zip(names, lo, hi)}


def describe(unit: str, level: float = LEVEL, resamples: int = RESAMPLES, seed: int = SEED) -> dict:
    """The ``intervals`` block of a result file: how every ``ci`` in it was obtained."""
    return {"method": "percentile bootstrap of the mean over units", "unit": unit, "level": level,
            "resamples": resamples, "seed": seed}
