"""Cyclic permutation debiasing of the label-likelihood reading (``--debias cyclic``).

An LM prefers some label positions whatever they hold. Asked in all n cyclic orders of its n options, each
option sits once at every position, so averaging each option's label probability (softmax over the shown
labels) over the orders cancels a purely positional preference (the cyclic baseline of Zheng et al., ICLR
2024, "Large Language Models Are Not Robust Multiple Choice Selectors").
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterator, Sequence

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


def debiased_items(items: Sequence[dict], logps: Sequence, order_key: str,
                   options: Callable[[dict], list[int]]) -> Iterator[tuple[dict, list[int], np.ndarray]]:
    """Per question and permutation asked in all its cyclic orders (records with ``item``, ``permutation``,
    ``rotation`` and their presented order in ``order_key``; ``logps`` beside them): its first-order record,
    its ``options(first)`` and their debiased probabilities (``debiased``). A question with an order too long to
    ask is left out: it has no debiased reading."""
    orders: dict = defaultdict(list)
    for it, lp in zip(items, logps):
        orders[(it["item"], it["permutation"])].append((it, lp))
    for asked in orders.values():
        first = next((it for it, _ in asked if it["rotation"] == 0), None)
        if first is None or len(asked) < len(first[order_key]):
            continue
        shown = options(first)
        yield first, shown, debiased([lp for _, lp in asked], [it[order_key] for it, _ in asked], shown)
