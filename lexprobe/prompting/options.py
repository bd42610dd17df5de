"""Which candidates an item shows, and in which order — seeded, so a run can be repeated.

Groups larger than ``max_candidates`` are cut to a sample keeping the gold item, then shuffled once per
permutation. Every draw is seeded by (seed, item id, purpose), so it does not depend on which other items
run, in which order, or on how many processes share the work.
"""

from __future__ import annotations

import random


def _rng(seed: int, *key) -> random.Random:
    return random.Random(":".join(str(k) for k in (seed,) + key))  # str seeds hash with SHA-512


def sample_candidates(n: int, max_candidates: int | None, seed: int, item: str, keep: int | None = 0) -> list[int]:
    """Indices of the candidates shown, ascending: all of them, or ``max_candidates`` with ``keep`` among them."""
    if max_candidates is None or n <= max_candidates:
        return list(range(n))
    rng = _rng(seed, item, "sample")
    if keep is None:
        return sorted(rng.sample(range(n), max_candidates))
    others = [i for i in range(n) if i != keep]
    return sorted([keep] + rng.sample(others, max_candidates - 1))


def option_order(shown: list[int], seed: int, item: str, permutation: int, what: str = "options") -> list[int]:
    """The shown candidates in presentation order for one permutation."""
    order = list(shown)
    _rng(seed, item, what, permutation).shuffle(order)
    return order
