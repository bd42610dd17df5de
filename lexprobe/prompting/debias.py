"""Cyclic permutation debiasing of the label-likelihood reading (``--debias cyclic``).

An LM prefers some label positions whatever they hold. Asked in all n cyclic orders of its n options, each
option sits once at every position, so averaging each option's label probability (softmax over the shown
labels) over the orders cancels a purely positional preference (the cyclic baseline of Zheng et al., ICLR
2024, "Large Language Models Are Not Robust Multiple Choice Selectors").
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def rotations(order: Sequence[int]) -> list[list[int]]:
    """The n cyclic orders of ``order``, the given one first: option order[(i + r) % n] at position i."""
    order = list(order)
    return [order[r:] + order[:r] for r in range(len(order))]


def debiased(logps_by_order: Sequence[np.ndarray], orders: Sequence[Sequence[int]], options: Sequence[int]) -> np.ndarray:
    """Mean over orders of each option's normalised label probability, indexed like ``options``.
    ``logps_by_order[r][j]``: the j-th label's log-probability in ``orders[r]``; [rows, labels] matrices
    keep their rows."""
    from scipy.special import softmax  # not at import: ``lexprobe --help`` stays free of scipy

    where = {o: i for i, o in enumerate(options)}
    total = np.zeros(np.shape(logps_by_order[0]), dtype=np.float64)
    for logps, order in zip(logps_by_order, orders):
        probs = softmax(np.asarray(logps, dtype=np.float64), axis=-1)
        mapped = np.zeros_like(probs)
        mapped[..., [where[o] for o in order]] = probs
        total = total + mapped
    return total / len(orders)
