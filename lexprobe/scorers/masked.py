"""Masked-LM slot scoring: log-probabilities of a word's tokens in a run of mask tokens.

A query (prefix tokens, n masks, suffix tokens) does not depend on the word, so each distinct query runs
once and every word of that token length is read off the same log-softmax at the masked positions.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from lexprobe.asking.requests import Fit
from lexprobe.batching import pad_batch, run_batched
from lexprobe.scorers.base import Scorer, TooLong, max_input_length
from lexprobe.scorers.encoder_tail import last_layer_cut, scored_logits


@dataclass(frozen=True)
class SlotRequest:
    """Token ids before the slot, of the word in the slot, and after the slot."""

    prefix: tuple[int, ...]
    word: tuple[int, ...]
    suffix: tuple[int, ...]

    @property
    def query(self) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
        return self.prefix, len(self.word), self.suffix


class MaskedLMScorer(Scorer):
    default_batch_size = 64

    def __init__(self, name: str, model, tokenizer, device: torch.device, batch_size: int | str | None = None):
        super().__init__(name)
        self.kind = "masked"
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.device = device
        self.batch_size = batch_size
        self.mask_id = tokenizer.mask_token_id
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.max_length = max_input_length(self)

    def slot_request(self, left: str, word: str, right: str, fit: bool = True,
                     max_tokens: int | None = None) -> SlotRequest:
        """``left + word + right`` tokenised (the word gets its running-text tokens, e.g. RoBERTa's leading
        space) and cut around the word's tokens; ``fit``: the query shortened to the model's input
        (``fit_query``); ``max_tokens``: the word's first tokens only."""
        enc = self.tokenizer(left + word + right, return_offsets_mapping=True, add_special_tokens=True)
        ids, offsets = enc["input_ids"], enc["offset_mapping"]
        start, end = len(left), len(left) + len(word)
        special = set(self.tokenizer.all_special_ids)
        inside = [i for i, (a, b) in enumerate(offsets) if b > a and a < end and b > start and ids[i] not in special]
        if not inside:
            raise ValueError(f"word {word!r} has no tokens in {left + word + right!r}")
        first, last = inside[0], inside[-1]
        # A zero-width token just before the word (byte-level BPE's lone "Ġ" when no
        # merge covers the space) is the word's leading space: it belongs to the word.
        while first > 0 and offsets[first - 1][0] == offsets[first - 1][1] == start and ids[first - 1] not in special:
            first -= 1
        word_ids = tuple(ids[first : last + 1])[:max_tokens]
        prefix, suffix = tuple(ids[:first]), tuple(ids[last + 1 :])
        if fit:
            prefix, suffix = fit_query(prefix, len(word_ids), suffix, self.max_length)
        return SlotRequest(prefix, word_ids, suffix)

    @torch.inference_mode()
    def slot_logprobs(self, requests: Sequence[SlotRequest], progress: bool = False) -> list[np.ndarray]:
        """Per-token log P(word token i | query) for every request; one forward per distinct query."""
        by_query: dict[tuple, list[int]] = defaultdict(list)
        for i, req in enumerate(requests):
            by_query[req.query].append(i)
        queries = list(by_query)
        results: list[np.ndarray | None] = [None] * len(requests)
        bar = tqdm(total=len(queries), desc="masked LM", unit="query", disable=not progress, leave=False)
        length = lambda q: len(q[0]) + q[1] + len(q[2])  # noqa: E731
        size, budget = self.batching(max(map(length, queries), default=1), self._probe_queries)
        logps = run_batched(queries, self._forward_queries, size, length=length, progress=bar.update,
                            max_tokens=budget)
        for query, logp in zip(queries, logps):
            for r in by_query[query]:
                word = requests[r].word
                results[r] = logp[np.arange(len(word)), list(word)]
        bar.close()
        return results  # type: ignore[return-value]

    def _whole_slot(self, r: Any) -> SlotRequest:
        """A ``Slot``'s whole ids, memoised: ``fit_slots`` and then ``slots`` ask for the same requests."""
        return self._memoised("_slot_ids", (r.left, r.word, r.right, r.max_tokens),
                          lambda: self.slot_request(r.left, r.word, r.right, fit=False, max_tokens=r.max_tokens))

    def fit_slots(self, requests: Sequence[Any]) -> list[Fit]:
        """``Slot``: cut far from the slot to fit (``fit_query``), or too long (the word's masks alone)."""
        out = []
        for r in requests:
            whole = self._whole_slot(r)
            try:
                prefix, suffix = fit_query(whole.prefix, len(whole.word), whole.suffix, self.max_length)
            except TooLong as err:
                out.append(Fit(too_long=str(err), tokens=len(whole.word)))
                continue
            out.append(Fit(cut=len(prefix) + len(suffix) < len(whole.prefix) + len(whole.suffix),
                           tokens=len(whole.word)))
        return out

    def slots(self, requests: Sequence[Any], progress: bool = False) -> list[np.ndarray]:
        """``Slot``: per word token log P in masked slots (one forward per distinct query)."""
        fitted = []
        for r in requests:
            whole = self._whole_slot(r)
            prefix, suffix = fit_query(whole.prefix, len(whole.word), whole.suffix, self.max_length)
            fitted.append(SlotRequest(prefix, whole.word, suffix))
        return self.slot_logprobs(fitted, progress=progress)

    def fit_pseudo_loglikelihoods(self, requests: Sequence[Any]) -> list[Fit]:
        """``PseudoLogLikelihood``: the context's start cut to fit (``pll.prefix_cut``), or too long."""
        from lexprobe.scorers.pll import ENCODINGS, prefix_cut

        out = []
        for r in requests:
            try:
                out.append(Fit(cut=prefix_cut(self, r.context, r.continuation, r.max_tokens, ENCODINGS[r.encoding])))
            except TooLong as err:
                out.append(Fit(too_long=str(err)))
        return out

    def pseudo_loglikelihoods(self, requests: Sequence[Any], progress: bool = False) -> list[np.ndarray]:
        """``PseudoLogLikelihood``: per continuation token PLL terms, requests of one variant, cut and encoding
        together."""
        from lexprobe.scorers.pll import ENCODINGS, pll_token_logprobs

        groups: dict[tuple, list[int]] = {}
        for i, r in enumerate(requests):
            groups.setdefault((r.variant, r.max_tokens, r.encoding), []).append(i)
        out: list[np.ndarray] = [np.empty(0)] * len(requests)
        for (variant, max_tokens, encoding), where in groups.items():
            terms = pll_token_logprobs(self, [(requests[i].context, requests[i].continuation) for i in where],
                                       variant=variant, max_tokens=max_tokens, encoder=ENCODINGS[encoding])
            for i, t in zip(where, terms):
                out[i] = t
        return out

    def _probe_queries(self, width: int, n: int) -> None:
        self._forward_queries([((self.pad_id,) * max(width - 1, 0), 1, ())] * n)

    def _forward_queries(self, queries) -> list[np.ndarray]:
        seqs = [list(p) + [self.mask_id] * n + list(s) for p, n, s in queries]
        ids, attn = pad_batch(seqs, self.pad_id)
        rows = torch.tensor([b for b, (p, n, _) in enumerate(queries) for _ in range(n)])
        cols = torch.tensor([len(p) + j for p, n, _ in queries for j in range(n)])
        # the LM head (and, where supported, the last encoder layer) runs at the masked positions only
        logits = scored_logits(self.model, ids.to(self.device), attn.to(self.device), rows, cols)
        self.count("last_layer_cut_passes" if last_layer_cut(self.model) else "full_encoder_passes")
        self.count("forward_passes")
        self.count("queries", len(queries))
        self.count("query_tokens", int(attn.sum()))
        logp = torch.log_softmax(logits.float(), dim=-1).cpu().numpy()
        out, k = [], 0
        for _, n, _ in queries:
            out.append(logp[k : k + n])
            k += n
        return out


def fit_query(prefix: tuple[int, ...], n_masks: int, suffix: tuple[int, ...], limit: int):
    """An over-long query shortened far from the slot: the longer side's outer end first, then the other's,
    keeping the first ([CLS]) and last ([SEP]) tokens; ``TooLong`` where the masks alone do not fit."""
    excess = len(prefix) + n_masks + len(suffix) - limit
    if excess <= 0:
        return prefix, suffix
    if n_masks + min(len(prefix), 1) + min(len(suffix), 1) > limit:
        raise TooLong(f"a word of {n_masks} tokens does not fit the model's {limit} input positions")
    if len(suffix) >= len(prefix):
        suffix, excess = _cut(suffix, excess, at_end=True)
        prefix, excess = _cut(prefix, excess, at_end=False)
    else:
        prefix, excess = _cut(prefix, excess, at_end=False)
        suffix, excess = _cut(suffix, excess, at_end=True)
    return prefix, suffix


def _cut(ids: tuple[int, ...], excess: int, at_end: bool) -> tuple[tuple[int, ...], int]:
    """Up to ``excess`` tokens cut before the last one (``at_end``) or after the first; (the rest, still to cut)."""
    n = min(excess, max(len(ids) - 1, 0))
    if n:
        ids = ids[: len(ids) - 1 - n] + ids[-1:] if at_end else ids[:1] + ids[1 + n :]
    return ids, excess - n
