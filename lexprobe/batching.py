"""Batching shared by all scorers, after lm-evaluation-harness's collator.

Requests are sorted longest first so that an out-of-memory error shows on the
first batch, not an hour in; on OOM the batch size halves and the batch is retried.
"""

from __future__ import annotations

import logging
from typing import Callable, Iterator, Sequence, TypeVar

import torch

T = TypeVar("T")
R = TypeVar("R")

log = logging.getLogger(__name__)


def longest_first(items: Sequence[T], length: Callable[[T], int]) -> list[int]:
    """Indices of ``items`` ordered by decreasing length (stable for ties)."""
    return sorted(range(len(items)), key=lambda i: -length(items[i]))


def _is_oom(err: BaseException) -> bool:
    if isinstance(err, torch.cuda.OutOfMemoryError):
        return True
    return isinstance(err, RuntimeError) and "out of memory" in str(err).lower()


def run_batched(items: Sequence[T], fn: Callable[[list[T]], list[R]], batch_size: int,
                length: Callable[[T], int] | None = None, progress: Callable[[int], None] | None = None,
                max_tokens: int | None = None) -> list[R]:
    """``fn`` (one result per item) applied to batches of ``items``, results in input order. With ``length``,
    batches go longest first and stay under ``max_tokens`` padded tokens; on an out-of-memory error the
    batch size (and the token budget) halves, down to one item, and the batch is retried."""
    order = longest_first(items, length) if length else list(range(len(items)))
    results: list[R | None] = [None] * len(items)
    pos = 0
    size = max(1, int(batch_size))
    budget = max_tokens if (max_tokens and length) else None
    while pos < len(order):
        take = size
        if budget and length is not None:  # longest first: the first item of the batch sets the padded width
            take = max(1, min(size, budget // max(length(items[order[pos]]), 1)))
        idx = order[pos : pos + take]
        try:
            out = fn([items[i] for i in idx])
        except Exception as err:  # noqa: BLE001 - re-raised unless it is an OOM
            if not _is_oom(err) or len(idx) == 1:
                raise
            if budget and take < size:  # the token budget made this batch: halve the budget
                budget = max(1, budget // 2)
            else:
                size = max(1, size // 2)
                budget = max(1, budget // 2) if budget else None
            log.warning("out of memory; batch size lowered to %d", size)
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            continue
        if len(out) != len(idx):
            raise RuntimeError(f"batch function returned {len(out)} results for {len(idx)} items")
        for i, r in zip(idx, out):
            results[i] = r
        pos += len(idx)
        if progress:
            progress(len(idx))
    return results  # type: ignore[return-value]


def pad_batch(rows: Sequence[Sequence[int]], pad_id: int, left: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Token-id rows as one padded ``[len(rows), longest]`` id tensor and its attention mask
    (right padding; ``left`` for generation, where every row must end at the last column)."""
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for b, r in enumerate(rows):
        cols = slice(width - len(r), width) if left else slice(0, len(r))
        ids[b, cols] = torch.tensor(list(r), dtype=torch.long)
        mask[b, cols] = 1
    return ids, mask


def chunks(seq: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(seq), size):
        yield seq[start : start + size]


#: token budget of ``--batch-size auto`` on CPU, where memory errors do not show as OOM exceptions
CPU_TOKEN_BUDGET = 8192
#: first token budget tried by the search on an accelerator
START_TOKEN_BUDGET = 1 << 17


def find_token_budget(probe: Callable[[int], int | None], start: int = START_TOKEN_BUDGET, minimum: int = 1) -> int:
    """The largest budget, halving from ``start``, for which ``probe(budget)`` (a worst-case forward pass,
    returning the tokens it ran) runs without OOM. Unlike lm-evaluation-harness's one probed batch shape, a
    token budget bounds every batch."""
    budget = max(int(start), minimum)
    while True:
        try:
            ran = probe(budget)
            return int(ran) if ran else budget
        except Exception as err:  # noqa: BLE001 - re-raised unless it is an OOM
            if not _is_oom(err) or budget <= minimum:
                raise
            budget = max(budget // 2, minimum)
            log.info("auto batch size: out of memory, trying %d tokens", budget)
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
