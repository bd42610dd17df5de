"""Contextual embeddings of target words, from any Hugging Face encoder (or decoder).

A target's embedding is the mean of its subword vectors at one layer; subwords are found by character
offsets against the target's span, so WordPiece, BPE and SentencePiece models are served alike. A target
none of whose subwords survives is *skipped* and counted, never silently zeroed. ``layer`` indexes
``hidden_states`` (0: the embeddings; -1, the default: the last layer); "BERT Has Uncommon Sense"'s layer
L is ``hidden_states[L + 1]``. Batches are right-padded, so a decoder's states never depend on padding.

``words_alone=True`` is the authors' tokenisation (AllenNLP's mismatched indexer): each word tokenised on
its own, so byte-level BPE sees "dog", not "Ġdog". Each distinct sentence is encoded once per call of
``token_vectors`` (``TokenVector`` requests), with no disk cache: its callers keep their own store.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Sequence

import numpy as np
import torch

from lexprobe.asking.requests import TokenVector
from lexprobe.batching import pad_batch, run_batched
from lexprobe.data.instances import token_char_spans
from lexprobe.errors import ModelError
from lexprobe.scorers.base import Scorer


class TokenEmbedder(Scorer):
    """Mean-of-subwords target embeddings at one layer (``models.load_scorer(name, kind="token")``);
    ``view`` gives the same model at another layer or tokenisation."""

    def __init__(self, name: str, model, tokenizer, device, path: str | None = None, layer: int = -1,
                 batch_size: int | str | None = 32, max_length: int | None = None,
                 words_alone: bool = False):
        super().__init__(name)
        self.kind = "token"
        self.path = path or name
        self.model, self.tokenizer, self.device = model, tokenizer, device
        self.batch_size = batch_size  # an int; auto_batch when "auto" (Scorer.batch_size)
        self.words_alone = bool(words_alone)
        if not getattr(self.tokenizer, "is_fast", False):
            raise ModelError(f"model {name!r} has no fast tokenizer; target words are located by character offsets")
        self.model.eval()
        self.n_layers = self.model.config.num_hidden_layers
        self.layer = int(layer)
        self.layer_index(self.layer)
        limit = getattr(self.model.config, "max_position_embeddings", 512) or 512
        if self.model.config.model_type in ("roberta", "xlm-roberta", "camembert"):
            limit -= 2  # RoBERTa positions start after the padding index
        self.max_length = min(max_length or 512, limit)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
        self.tokenizer.padding_side = "right"  # left padding would shift a decoder's default positions
        self.stats.update({"sentences_encoded": 0, "forward_batches": 0})

    def view(self, layer: int | None = None, words_alone: bool | None = None) -> "TokenEmbedder":
        """The same loaded model read at another layer / with another tokenisation (shares the weights)."""
        other = copy.copy(self)
        if layer is not None:
            self.layer_index(layer)
            other.layer = int(layer)
        if words_alone is not None:
            other.words_alone = bool(words_alone)
        return other

    def _batching(self, jobs) -> tuple[int, int | None, Callable]:
        """(batch size, token budget, length): a fixed size by characters, or ``auto``'s token budget."""
        if not self.auto_batch:
            return int(self.batch_size), None, lambda j: len(" ".join(j[0]))
        lengths = {j[0]: n for j, n in zip(jobs, self._token_lengths(jobs))}
        width = min(max(lengths.values(), default=1), self.max_length)
        size, budget = self.batching(width, self._probe)
        return size, budget, lambda j: lengths[j[0]]

    def _token_lengths(self, jobs) -> list[int]:
        texts = [" ".join(tokens) for tokens, _ in jobs]
        ids = self.tokenizer(texts, add_special_tokens=True, truncation=True, max_length=self.max_length)["input_ids"]
        return [len(x) for x in ids]

    @torch.inference_mode()
    def _probe(self, width: int, rows: int) -> None:
        ids = torch.full((rows, width), self.tokenizer.pad_token_id or 0, dtype=torch.long, device=self.device)
        self.model(input_ids=ids, attention_mask=torch.ones_like(ids), output_hidden_states=True)

    def describe(self) -> dict:
        return {"name": self.name, "kind": self.kind, "layer": self.layer, "hidden_states_index": self.layer % (self.n_layers + 1),
                "max_length": self.max_length, "words_alone": self.words_alone}

    def layer_index(self, layer: int) -> int:
        """A hidden_states index (negative counts from the end) as a non-negative one; checked."""
        if not -(self.n_layers + 1) <= layer <= self.n_layers:
            raise ModelError(f"layer {layer} does not exist: {self.name!r} has hidden_states 0..{self.n_layers} "
                             f"(0 = embeddings, {self.n_layers} = last; negative counts from the end)")
        return layer % (self.n_layers + 1)

    def token_vectors(self, requests: Sequence[TokenVector], progress: bool = False) -> list[np.ndarray | None]:
        """``asking.requests.TokenVector``: the word's vector at the request's layer (None: this embedder's), None
        where its subwords were not found; each distinct sentence encoded once for every layer asked, in one
        ``encode_jobs`` call per tokenisation, no disk cache."""
        layers = sorted({self.layer_index(self.layer if r.layer is None else r.layer) for r in requests})
        out: list[np.ndarray | None] = [None] * len(requests)
        by_tokenisation: dict[bool, dict[tuple[str, ...], list[int]]] = {}
        for i, r in enumerate(requests):
            alone = self.words_alone if r.words_alone is None else bool(r.words_alone)
            by_tokenisation.setdefault(alone, {}).setdefault(tuple(r.words), []).append(i)
        for alone, sentences in by_tokenisation.items():
            jobs = sorted(((words, sorted({requests[i].target for i in where}, key=_target_order))
                           for words, where in sentences.items()),
                          key=lambda j: (-len(" ".join(j[0])), j[0], [_target_order(t) for t in j[1]]))
            encoder = self if alone == self.words_alone else self.view(words_alone=alone)
            for (words, targets), (vectors, ok) in zip(jobs, encoder.encode_jobs(jobs, layers)):
                for i in sentences[words]:
                    r, j = requests[i], targets.index(requests[i].target)
                    at = layers.index(self.layer_index(self.layer if r.layer is None else r.layer))
                    out[i] = vectors[j, at].copy() if ok[j] else None
        return out

    def _hidden(self, enc: dict, layers: list[int]) -> np.ndarray:
        """Hidden states [batch, tokens, len(layers), d] of the given (non-negative) layer indices."""
        if layers == [self.n_layers]:
            hidden = self.model(**enc).last_hidden_state[:, :, None]
        else:
            states = self.model(**enc, output_hidden_states=True).hidden_states
            hidden = torch.stack([states[x] for x in layers], dim=2)
        return hidden.float().cpu().numpy()

    def encode_jobs(self, jobs: Sequence[tuple[tuple[str, ...], Sequence[int | tuple[int, int]]]],
                    layers: Sequence[int] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """(vectors [n_targets, len(layers), d], aligned) of each (tokens, target indices) job, batched
        longest first, no cache; ``layers``: hidden_states indices (default: this embedder's layer)."""
        layers = [self.layer_index(self.layer)] if layers is None else [self.layer_index(x) for x in layers]
        size, budget, length = self._batching(jobs)
        return run_batched(jobs, lambda batch: self._encode_batch(batch, layers), size, length=length,
                           max_tokens=budget)

    def embed_sentence(self, tokens: Sequence[str], indices: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of ``tokens[i]`` for i in ``indices`` (no cache), and which aligned."""
        vecs, ok = self._encode_batch([(tuple(tokens), list(indices))], [self.layer_index(self.layer)])[0]
        return vecs[:, 0], ok

    @torch.inference_mode()
    def _encode_batch(self, jobs: Sequence[tuple[tuple[str, ...], Sequence[int | tuple[int, int]]]],
                      layers: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per sentence: vectors [n_targets, len(layers), d] and which targets aligned."""
        inputs = words_alone_inputs if self.words_alone else text_inputs
        enc, word_pieces = inputs(self.tokenizer, jobs, self.max_length)
        hidden = self._hidden({k: v.to(self.device) for k, v in enc.items()}, layers)  # [batch, tokens, layers, d]
        self.stats["sentences_encoded"] += len(jobs)
        self.stats["forward_batches"] += 1
        results = []
        for b, (_, idxs) in enumerate(jobs):
            vecs = np.zeros((len(idxs),) + hidden.shape[2:], dtype=np.float32)
            mask = np.zeros(len(idxs), dtype=bool)
            for j, t in enumerate(idxs):
                if len(word_pieces[b][t]):
                    vecs[j] = hidden[b, word_pieces[b][t]].mean(axis=0)
                    mask[j] = True
            results.append((vecs, mask))
        return results


def _target_order(target: int | tuple[int, int]) -> tuple:
    """Word indices before character spans, each in order (a sentence's targets sorted, whichever kind)."""
    return (1, *target) if isinstance(target, tuple) else (0, target)


def words_alone_inputs(tok, jobs: Sequence[tuple[Sequence[str], Sequence[Any]]], max_length: int):
    """Inputs of words tokenised one by one (AllenNLP's mismatched indexer), and each word's piece positions."""
    if any(isinstance(t, tuple) for _, targets in jobs for t in targets):
        raise ModelError("a target given as a character span needs its text tokenised whole, not word by word "
                         "(words_alone)")
    prefix, suffix = _special_frame(tok)
    keep = max(0, max_length - len(prefix) - len(suffix))
    rows, word_pieces = [], []
    for tokens, _ in jobs:
        ids: list[int] = []
        where: list[list[int]] = []
        for word in tokens:
            pieces = tok(word, add_special_tokens=False)["input_ids"]
            where.append(list(range(len(ids), len(ids) + len(pieces))))
            ids.extend(pieces)
        rows.append(prefix + ids[:keep] + suffix)
        word_pieces.append([[p + len(prefix) for p in w if p < keep] for w in where])
    input_ids, attention = pad_batch(rows, tok.pad_token_id)
    return {"input_ids": input_ids, "attention_mask": attention}, word_pieces


def text_inputs(tok, jobs: Sequence[tuple[Sequence[str], Sequence[Any]]], max_length: int):
    """Inputs of the sentences' texts, and each target's subword positions (by character offsets): a word index's
    characters in the joined words, or a character span of the text as given."""
    enc = tok([" ".join(tokens) for tokens, _ in jobs], return_offsets_mapping=True, padding=True, truncation=True,
              max_length=max_length, return_tensors="pt", return_special_tokens_mask=True)
    offsets = enc.pop("offset_mapping").numpy()
    real = enc["attention_mask"].numpy().astype(bool) & ~enc.pop("special_tokens_mask").numpy().astype(bool)
    word_pieces = []
    for b, (tokens, idxs) in enumerate(jobs):
        spans, starts, ends = token_char_spans(tokens), offsets[b, :, 0], offsets[b, :, 1]
        word_pieces.append({t: np.flatnonzero(target_subwords(starts, ends, real[b], *(t if isinstance(t, tuple)
                                                                                        else spans[t])))
                            for t in idxs})
    return dict(enc), word_pieces


def _special_frame(tok) -> tuple[list[int], list[int]]:
    """The special tokens the tokenizer puts before and after a single text."""
    plain = tok("a", add_special_tokens=False)["input_ids"]
    full = tok("a")["input_ids"]
    for i in range(len(full) - len(plain) + 1):
        if full[i : i + len(plain)] == plain:
            return full[:i], full[i + len(plain):]
    return [], []


def target_subwords(starts: np.ndarray, ends: np.ndarray, real: np.ndarray, s: int, e: int) -> np.ndarray:
    """Subwords of the word at characters [s, e): those overlapping it, plus zero-width
    pieces at its start (a byte-level BPE space token the tokenizer assigns to the word)."""
    overlap = (starts < e) & (ends > s)
    zero_width_at_start = (starts == ends) & (starts == s)
    return real & (overlap | zero_width_at_start)


__all__ = ["TokenEmbedder", "target_subwords", "text_inputs", "words_alone_inputs"]
