"""Causal-LM scoring: log-probabilities of continuations given a context.

Context and continuation are encoded together and split (as lm-evaluation-harness
does), so a continuation is tokenised exactly as the model sees it in running text
and no boundary token is mis-tokenised. Requests that share a context share one
forward pass over it: the context's key/value cache is computed once, in batches
of left-padded contexts, and then gathered row by row for all its continuations.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from lexprobe.batching import chunks, run_batched
from lexprobe.scorers.base import Scorer


class CausalLMScorer(Scorer):
    def __init__(self, name: str, model, tokenizer, device: torch.device, batch_size: int = 32):
        super().__init__(name)
        self.kind = "causal"
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.device = device
        self.batch_size = batch_size
        fallback = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else fallback
        self.prefix_id = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else fallback
        self.max_length = _max_length(model, tokenizer)

    # ------------------------------------------------------------------ tokenisation
    def _encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=True)["input_ids"]

    def split(self, context: str, continuation: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Token ids of (context, continuation), encoded together and split."""
        trailing = len(context) - len(context.rstrip(" "))
        if trailing:  # a trailing space belongs to the continuation's first token
            continuation = context[-trailing:] + continuation
            context = context[:-trailing]
        whole = self._encode(context + continuation)
        n_ctx = len(self._encode(context)) if context else 0
        ctx, cont = whole[:n_ctx], whole[n_ctx:]
        if not ctx:
            ctx = [self.prefix_id]
        if not cont:
            raise ValueError(f"empty continuation after tokenisation: {continuation!r}")
        if self.max_length and len(ctx) + len(cont) > self.max_length:
            if len(cont) >= self.max_length:
                raise ValueError(f"continuation of {len(cont)} tokens does not fit the model's {self.max_length}")
            ctx = ctx[len(ctx) + len(cont) - self.max_length :]  # keep the context's end, nearest the continuation
            self.count("truncated_contexts")
        return tuple(ctx), tuple(cont)

    # ------------------------------------------------------------------ scoring
    @torch.inference_mode()
    def continuation_logprobs(
        self, requests: Sequence[tuple[str, str]], progress: bool = False
    ) -> list[np.ndarray]:
        """Per-token log-probabilities of each continuation given its context."""
        split = [self.split(c, x) for c, x in requests]
        return self.token_logprobs(split, progress=progress)

    @torch.inference_mode()
    def token_logprobs(
        self, requests: Sequence[tuple[tuple[int, ...], tuple[int, ...]]], progress: bool = False
    ) -> list[np.ndarray]:
        """Like ``continuation_logprobs`` on already tokenised (context, continuation) pairs."""
        by_context: dict[tuple[int, ...], list[int]] = defaultdict(list)
        for i, (ctx, _) in enumerate(requests):
            by_context[ctx].append(i)
        contexts = list(by_context)
        results: list[np.ndarray | None] = [None] * len(requests)
        bar = tqdm(total=len(contexts), desc="causal LM", unit="context", disable=not progress, leave=False)

        def score(batch_contexts):
            members = [[(r, requests[r][1]) for r in by_context[c]] for c in batch_contexts]
            return self._score_context_batch(batch_contexts, members)

        for per_context in run_batched(contexts, score, self.batch_size, length=len, progress=bar.update):
            for r, lp in per_context:
                results[r] = lp
        bar.close()
        return results  # type: ignore[return-value]

    def _score_context_batch(self, contexts, members):
        dev = self.device
        n_ctx = max(len(c) for c in contexts)
        ids = torch.full((len(contexts), n_ctx), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(contexts), n_ctx), dtype=torch.long)
        for b, c in enumerate(contexts):  # left padding: every context ends at the last column
            ids[b, n_ctx - len(c):] = torch.tensor(c)
            mask[b, n_ctx - len(c):] = 1
        ids, mask = ids.to(dev), mask.to(dev)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        # only the last position's logits are needed: with a 150k vocabulary, all of them would not fit
        keep = {"logits_to_keep": 1} if _takes_logits_to_keep(self.model) else {}
        out = self.model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True, **keep)
        self.count("forward_passes")
        self.count("context_forwards", len(contexts))
        first = torch.log_softmax(out.logits[:, -1, :].float(), dim=-1)
        kv = [(layer.keys, layer.values) for layer in out.past_key_values.layers]
        ctx_lengths = mask.sum(-1)

        scored: list[list] = [[] for _ in contexts]  # one list of (request, log-probs) per context
        rows = []  # continuations longer than one token need a second forward pass
        for b, group in enumerate(members):
            for r, cont in group:
                lp = np.empty(len(cont), dtype=np.float64)
                lp[0] = first[b, cont[0]].item()
                scored[b].append((r, lp))
                if len(cont) > 1:
                    rows.append((b, cont, lp))
        rows.sort(key=lambda row: -len(row[1]))
        for chunk in chunks(rows, max(self.batch_size * 4, 1)):
            self._score_continuation_rows(chunk, kv, mask, ctx_lengths)
        return scored

    def _score_continuation_rows(self, rows, kv, ctx_mask, ctx_lengths):
        from transformers import DynamicCache

        dev = self.device
        n = max(len(cont) - 1 for _, cont, _ in rows)
        sel = torch.tensor([b for b, _, _ in rows], device=dev)
        ids = torch.full((len(rows), n), self.pad_id, dtype=torch.long)
        cmask = torch.zeros((len(rows), n), dtype=torch.long)
        for j, (_, cont, _) in enumerate(rows):
            ids[j, : len(cont) - 1] = torch.tensor(cont[:-1])
            cmask[j, : len(cont) - 1] = 1
        ids, cmask = ids.to(dev), cmask.to(dev)
        cache = DynamicCache([(k.index_select(0, sel), v.index_select(0, sel)) for k, v in kv])
        attention = torch.cat([ctx_mask.index_select(0, sel), cmask], dim=1)
        positions = ctx_lengths.index_select(0, sel)[:, None] + torch.arange(n, device=dev)[None, :]
        if self.max_length:  # padding columns of short rows may run past the table; they are masked
            positions = positions.clamp(max=self.max_length - 1)
        out = self.model(
            input_ids=ids, attention_mask=attention, position_ids=positions, past_key_values=cache, use_cache=True
        )
        self.count("forward_passes")
        logp = torch.log_softmax(out.logits.float(), dim=-1)
        for j, (_, cont, lp) in enumerate(rows):
            target = torch.tensor(cont[1:], device=dev)
            lp[1:] = logp[j, torch.arange(len(cont) - 1, device=dev), target].double().cpu().numpy()


def _takes_logits_to_keep(model) -> bool:
    import inspect

    return "logits_to_keep" in inspect.signature(model.forward).parameters


def _max_length(model, tokenizer) -> int | None:
    """Longest input the model takes: its position table, or the tokenizer's limit if sane."""
    config = getattr(model, "config", None)
    for attr in ("n_positions", "max_position_embeddings", "n_ctx"):
        value = getattr(config, attr, None)
        if isinstance(value, int) and value > 0:
            return value
    limit = getattr(tokenizer, "model_max_length", None)
    return limit if isinstance(limit, int) and 0 < limit < 10**6 else None
