"""The common face of every scorer: one model behind the primitives benchmarks compose (continuation and
slot log-probabilities, embeddings, random scores), so no benchmark calls a model directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from lexprobe.backends.options import batch_size as batch_size_option


def resolve_batch_size(value, default: int) -> tuple[int, bool]:
    """(batch size, auto?) of a ``--batch-size`` value: None and ``auto`` give ``default`` (``auto`` also asks
    for the token-budget search); read by the option's own checker (``backends.options.batch_size``, the one
    parser of ``--batch-size``; ValueError with the reason)."""
    if value is None:
        return int(default), False
    checked = batch_size_option(value)
    return (int(default), True) if checked == "auto" else (int(checked), False)

#: entries a tokenisation memo keeps before it starts again (a run's prompts are asked once each, in batches)
MEMO_ENTRIES = 100_000


def max_input_length(scorer) -> int:
    """Longest input the model takes: the tokenizer's limit, else the position table's."""
    limit = getattr(scorer.tokenizer, "model_max_length", None)
    if limit and limit < 100_000:
        return int(limit)
    positions = getattr(getattr(scorer.model, "config", None), "max_position_embeddings", None)
    return int(positions) - 2 if positions else 512  # RoBERTa-style tables reserve two rows


class TooLong(ValueError):
    """The scored part of a request alone does not fit the model's input positions: cutting it would change
    what is measured, so benchmarks skip the unit and count it (``skipped_too_long``)."""


class Memoised:
    """Memos kept on the instance: every scorer's, and the causal tokenisation's on whatever it is mixed into
    (a scorer, or a bare tokenizer in the template tests)."""

    def _memoised(self, name: str, key: Any, make: Callable[[], Any]) -> Any:
        """``make()``, kept in the memo ``name`` (emptied past ``MEMO_ENTRIES``) under ``key``: tokenisations
        asked by a request's fit and then by its scoring."""
        memo = self.__dict__.setdefault(name, {})
        if key not in memo:
            if len(memo) > MEMO_ENTRIES:
                memo.clear()
            memo[key] = make()
        return memo[key]


@dataclass
class Scorer(Memoised):
    """Base class. ``kind`` is one of ``masked``, ``causal``, ``embedding``, ``static``, ``random``."""

    name: str
    kind: str = field(init=False, default="")
    #: counts of model forward passes, for benchmark scripts and honesty in reports
    stats: dict[str, int] = field(init=False, default_factory=dict)

    def describe(self) -> dict[str, Any]:
        """What identifies this scorer in a result file and in cache keys."""
        return {"name": self.name, "kind": self.kind}

    def count(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n

    #: ``--batch-size auto`` probes forward passes for the largest token budget (None: on accelerators only)
    probe_memory = None
    _token_budget = None
    #: the batch size a scorer of this class takes when none (or ``auto``) is given
    default_batch_size = 32
    #: ``--batch-size auto`` was asked: ``batching`` searches a token budget (``batch_size`` stays an int)
    auto_batch = False

    @property
    def batch_size(self) -> int:
        """Always an int: ``auto`` is resolved where it is set (``int("auto")`` was a traceback, #26)."""
        return getattr(self, "_batch_size", self.default_batch_size)

    @batch_size.setter
    def batch_size(self, value) -> None:
        self._batch_size, self.auto_batch = resolve_batch_size(value, self.default_batch_size)

    def batching(self, width: int, probe: Callable[[int, int], Any]) -> tuple[int, int | None]:
        """(batch size, token budget) for items of up to ``width`` tokens: a fixed ``batch_size`` as given;
        ``auto`` searches once for the largest padded-token budget a worst-case ``probe(width, rows)`` fits
        (on CPU, where memory errors are not exceptions, a fixed budget)."""
        from lexprobe.batching import CPU_TOKEN_BUDGET, find_token_budget

        if not self.auto_batch:
            return int(self.batch_size), getattr(self, "max_batch_tokens", None)
        if self._token_budget is None:
            device = getattr(self, "device", None)
            search = self.probe_memory if self.probe_memory is not None else getattr(device, "type", "cpu") != "cpu"
            if search:
                def run(budget: int) -> int:
                    rows = max(1, budget // width)
                    probe(width, rows)
                    return rows * width

                saved = dict(self.stats)  # probe passes are not work: keep the counters honest
                try:
                    self._token_budget = find_token_budget(run, minimum=width)
                finally:
                    self.stats.clear()
                    self.stats.update(saved)
            else:
                self._token_budget = CPU_TOKEN_BUDGET
            self.count("auto_token_budget", self._token_budget)
        return self._token_budget, self._token_budget  # the budget binds: at most one row per token
