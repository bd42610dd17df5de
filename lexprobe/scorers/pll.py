"""Masked-LM pseudo-log-likelihood (PLL) of a continuation after a prefix (CoDA21).

CoDA21 scores a definition ``d`` after a prompt ``Q`` with a masked LM as
``sum_i log P(d_i | Q, d_-i)``: each definition token is masked in turn (Salazar et
al.'s PLL). ``variant="word-l2r"`` is Kauf & Ivanova's (2023) fix for words split
into several tokens: when token i is scored, the later tokens *of the same word*
are masked too, so a word's own tail cannot give its first piece away.

Every (pair, position) masked copy is an independent sequence, so the copies of all pairs are
batched together, longest first; the LM head and the last encoder layer's query, output and
feed-forward blocks run only at each row's scored position (``encoder_tail``). ``pll_reference`` is
the plain per-pair version tests and scripts compare with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import torch

from lexprobe.batching import pad_batch, run_batched
from lexprobe.scorers.base import TooLong, max_input_length
from lexprobe.scorers.encoder_tail import last_layer_cut, scored_logits

VARIANTS = ("token", "word-l2r")


@dataclass(frozen=True)
class MaskedCopy:
    """One input row: ``ids`` with ``masked`` positions masked; score ``ids[target]``."""

    pair: int
    ids: tuple[int, ...]
    masked: tuple[int, ...]
    target: int


def encode_pair(tokenizer, prefix: str, continuation: str, max_tokens: int | None = None,
                max_length: int | None = None) -> tuple[list[int], list[int], list[int | None]]:
    """Token ids of ``prefix + continuation`` (encoded together, as in running text), the continuation's
    positions and word ids. Continuation tokens after ``max_tokens`` are dropped from the input; past
    ``max_length`` the prefix loses tokens from its start."""
    enc = tokenizer(prefix + continuation, return_offsets_mapping=True, add_special_tokens=True)
    ids = list(enc["input_ids"])
    offsets = enc["offset_mapping"]
    words = enc.word_ids() if hasattr(enc, "word_ids") else [None] * len(ids)
    special = set(tokenizer.all_special_ids)
    boundary = len(prefix)
    cont = [i for i, (a, b) in enumerate(offsets) if b > a and a >= boundary and ids[i] not in special]
    if not cont:
        raise ValueError(f"continuation {continuation!r} has no tokens")
    if max_tokens is not None and len(cont) > max_tokens:
        drop = set(cont[max_tokens:])
        keep = [i for i in range(len(ids)) if i not in drop]
        ids, words = [ids[i] for i in keep], [words[i] for i in keep]
        cont = cont[:max_tokens]
    return _cut_prefix(tokenizer, ids, cont, list(words), 1 if ids and ids[0] in special else 0, max_length,
                       "continuation")


def _cut_prefix(tokenizer, ids: list[int], positions: list[int], words: list, first: int, max_length: int | None,
                what: str) -> tuple[list[int], list[int], list]:
    """(ids, positions, words) with tokens cut from the prompt's start (after ``first`` kept ones) to fit."""
    limit = min(max_length or getattr(tokenizer, "model_max_length", None) or 512, 100_000)
    excess = len(ids) - limit
    if excess > 0:
        if excess > positions[0] - first:
            raise TooLong(f"a {what} of {len(positions)} tokens does not fit the model's {limit} input positions")
        del ids[first:first + excess]
        del words[first:first + excess]
        positions = [p - excess for p in positions]
    return ids, positions, words


def released_mlm_input(tokenizer, prompt: str, continuation: str, max_tokens: int | None = None,
                            max_length: int | None = None) -> tuple[list[int], list[int], list[int | None]]:
    """(ids, scored positions, word ids) as CoDA21's released code builds a masked-LM input
    (lksenel/CoDA21 @f5393e6, ``Aligner._create_batch_for_mlm``), token for token::

        definitions = [" " + C["definition"] for C in candidates]             # utils.py:43
        definition = " " + convert_tokens_to_string(tokenize(definition)[:48])  # aligner.py:99
        def_len = len(tokenize(definition))                                   # aligner.py:100
        def_start_ind = len(tokenize(inp)) + 1                                # aligner.py:95,103
        inputs.append(inp + definition)                                       # aligner.py:106

    ``convert_tokens_to_string`` keeps the leading space of the first token, so the text has two spaces
    before the definition. A WordPiece tokenizer ignores that; byte-level BPE (RoBERTa) makes the first
    space a token of its own, a lone ``Ġ``, which is inside ``def_len`` tokens and so masked and scored
    like a definition token (in every published RoBERTa row). An input too long loses tokens from the
    start of the prompt (the authors' inputs never were). ``encode_pair``'s signature.
    """
    tokens = tokenizer.tokenize(continuation)
    shown = " " + tokenizer.convert_tokens_to_string(tokens[:max_tokens] if max_tokens else tokens)
    def_len = len(tokenizer.tokenize(shown))
    start = len(tokenizer.tokenize(prompt)) + 1  # "assumes one special token at the beginning"
    enc = tokenizer(prompt + shown, add_special_tokens=True)
    ids = list(enc["input_ids"])
    words = list(enc.word_ids()) if hasattr(enc, "word_ids") else [None] * len(ids)
    return _cut_prefix(tokenizer, ids, list(range(start, start + def_len)), words, 1, max_length, "definition")


#: how a ``PseudoLogLikelihood`` request's texts become the model's input (its ``encoding``)
ENCODINGS: dict[str, Callable] = {"text": encode_pair, "released-mlm-input": released_mlm_input}


def prefix_cut(scorer: Any, prefix: str, continuation: str, max_tokens: int | None = None,
               encoder: Callable | None = None) -> bool:
    """Whether the prefix loses tokens to fit the model (``TooLong``: the continuation alone does not fit),
    as ``pll_token_logprobs`` cuts it."""
    encode = encoder or encode_pair
    fitted = encode(scorer.tokenizer, prefix, continuation, max_tokens, max_input_length(scorer))[0]
    whole = encode(scorer.tokenizer, prefix, continuation, max_tokens, 100_000)[0]
    return len(fitted) < len(whole)


def masked_copies(pair: int, ids: Sequence[int], cont: Sequence[int], words: Sequence[int | None],
                  variant: str = "token") -> list[MaskedCopy]:
    if variant not in VARIANTS:
        raise ValueError(f"unknown PLL variant {variant!r}; use one of {', '.join(VARIANTS)}")
    out = []
    for j, pos in enumerate(cont):
        masked = [pos]
        if variant == "word-l2r" and words[pos] is not None:
            masked += [q for q in cont[j + 1:] if words[q] == words[pos]]
        out.append(MaskedCopy(pair, tuple(ids), tuple(masked), pos))
    return out


def _forward_copies(scorer: Any, batch: Sequence[MaskedCopy]) -> list[float]:
    ids, attn = pad_batch([c.ids for c in batch], scorer.pad_id)
    for row, c in enumerate(batch):
        ids[row, list(c.masked)] = scorer.mask_id
    ids, attn = ids.to(scorer.device), attn.to(scorer.device)
    rows = torch.arange(len(batch), device=scorer.device)
    cols = torch.tensor([c.target for c in batch], device=scorer.device)
    gold = torch.tensor([c.ids[c.target] for c in batch], device=scorer.device)
    with torch.inference_mode():
        logits = scored_logits(scorer.model, ids, attn, rows, cols)
        # under a device map the head may sit on another GPU than the inputs
        logp = torch.log_softmax(logits.float(), dim=-1)[rows.to(logits.device), gold.to(logits.device)]
    scorer.count("forward_passes")
    scorer.count("last_layer_cut_passes" if last_layer_cut(scorer.model) else "full_encoder_passes")
    scorer.count("pll_rows", len(batch))
    scorer.count("pll_tokens", int(attn.sum()))
    return logp.double().cpu().tolist()


def pll_token_logprobs(scorer: Any, requests: Sequence[tuple[str, str]], variant: str = "token",
                       max_tokens: int | None = None,
                       progress: Callable[[int], None] | None = None,
                       encoder: Callable | None = None) -> list[np.ndarray]:
    """Per-token PLL terms of each (prefix, continuation) request, batched across requests (``scorer``: a
    ``MaskedLMScorer``). ``encoder`` replaces ``encode_pair`` (same signature and result)."""
    copies: list[MaskedCopy] = []
    lengths = []
    limit = max_input_length(scorer)
    encode = encoder or encode_pair
    for i, (prefix, cont) in enumerate(requests):
        ids, positions, words = encode(scorer.tokenizer, prefix, cont, max_tokens, limit)
        copies.extend(masked_copies(i, ids, positions, words, variant))
        lengths.append(len(positions))
    width = max((len(c.ids) for c in copies), default=1)
    size, budget = scorer.batching(width, lambda w, n: _forward_copies(
        scorer, [MaskedCopy(0, (scorer.pad_id,) * w, (0,), 0)] * n))
    scores = run_batched(copies, lambda b: _forward_copies(scorer, b), size,
                         length=lambda c: len(c.ids), progress=progress, max_tokens=budget)
    out = [np.empty(n, dtype=np.float64) for n in lengths]
    filled = [0] * len(requests)
    for c, s in zip(copies, scores):  # copies of a pair are in position order
        out[c.pair][filled[c.pair]] = s
        filled[c.pair] += 1
    return out


@torch.inference_mode()
def pll_reference(scorer: Any, prefix: str, continuation: str, variant: str = "token",
                  max_tokens: int | None = None, encoder: Callable | None = None) -> np.ndarray:
    """Plain reference: one forward pass per masked copy of one pair, full logits."""
    ids, cont, words = (encoder or encode_pair)(scorer.tokenizer, prefix, continuation, max_tokens,
                                                max_input_length(scorer))
    out = []
    for copy in masked_copies(0, ids, cont, words, variant):
        masked = list(ids)
        for q in copy.masked:
            masked[q] = scorer.tokenizer.mask_token_id
        logits = scorer.model(input_ids=torch.tensor([masked], device=scorer.device)).logits[0, copy.target].float()
        scorer.count("reference_forward_passes")
        out.append(float(torch.log_softmax(logits, dim=-1)[ids[copy.target]]))
    return np.array(out)
