"""Cyclic permutation debiasing of the label-likelihood reading (``--debias cyclic``).

An LM asked to pick a label prefers some positions whatever they hold (the first,
"1", "10"). Asked the same question in all n cyclic orders of its n options, each
option sits once at every position; averaging each option's label probability over
the orders cancels a preference that depends on the position only. This is the
permutation debiasing of the literature on LLMs as multiple-choice selectors (the
cyclic-permutation baseline of Zheng et al., ICLR 2024, "Large Language Models Are
Not Robust Multiple Choice Selectors", whose PriDe estimates the same prior from a
few items): the n of the n! orders that place every option at every position once.

Per order, the label log-probabilities are normalised over the shown labels (a
softmax: the probability of each label given that one of them is the answer), each
label's probability is credited to the option it labels in that order, and the
mean over orders is the option's debiased probability.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def rotations(order: Sequence[int]) -> list[list[int]]:
    """The n cyclic orders of ``order``, the given one first: option order[(i + r) % n] at position i."""
    order = list(order)
    return [order[r:] + order[:r] for r in range(len(order))]


def label_probabilities(logps: np.ndarray) -> np.ndarray:
    """Softmax over the last axis: label log-probabilities normalised over the shown labels."""
    logps = np.asarray(logps, dtype=np.float64)
    z = np.exp(logps - logps.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def debiased(logps_by_order: Sequence[np.ndarray], orders: Sequence[Sequence[int]], options: Sequence[int]) -> np.ndarray:
    """Mean over orders of each option's normalised label probability, indexed like ``options``.

    ``logps_by_order[r][j]`` is the log-probability of the j-th label when the options
    are shown in ``orders[r]`` (position j holds option ``orders[r][j]``). For a
    matching question pass [rows, labels] matrices: rows are kept, labels mapped back.
    """
    where = {o: i for i, o in enumerate(options)}
    total = np.zeros(np.shape(logps_by_order[0]), dtype=np.float64)
    for logps, order in zip(logps_by_order, orders):
        probs = label_probabilities(logps)
        mapped = np.zeros_like(probs)
        mapped[..., [where[o] for o in order]] = probs
        total = total + mapped
    return total / len(orders)
