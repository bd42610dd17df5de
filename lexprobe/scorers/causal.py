"""Causal-LM scoring: log-probabilities of continuations given a context.

Context and continuation are encoded together and split (as lm-evaluation-harness
does), so a continuation is tokenised exactly as the model sees it in running text
and no boundary token is mis-tokenised.

Requests that share a context are packed into one unit, ``[context, continuation 1
[:-1], continuation 2[:-1], ...]``, under a 4-D attention mask: each continuation
sees its context and itself only, its positions restart right after the context,
so every token gets the hidden state it has in ``context + continuation`` alone.
Units share rows (first-fit), the LM head and the log-softmax run only where a
token is scored. The context is fed once and each continuation token once, so the
saving in tokens shows in wall time (docs/scale.md). Flash attention takes no 4-D
mask: there the context's key/value cache is computed once per batch and copied
for every continuation row (the ``cache`` strategy).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
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
        #: "packed": a context and its continuations in one row with a 4-D mask (default);
        #: "cache": the context's key/value cache copied per continuation (flash attention takes no 4-D mask)
        self.strategy = "cache" if _attn_implementation(model) == "flash_attention_2" else "packed"
        self.pack_tokens = 512  # longest unit (context + continuations); more continuations make more units
        self.context_factor = 2  # ... or up to twice its context: a long context is not fed once per continuation
        self.row_tokens = 256  # units share rows of this many tokens (or the longest unit)
        self.max_batch_tokens: int | None = None  # padded tokens per forward pass (set by --batch-size auto)
        self.logit_elements = 1 << 24  # vocabulary logits materialised at once (64 MB in fp32)
        self._head, self._softcap, self.vocab_size = _output_head(model)

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
        n_ctx = len(self._encode(context))  # an empty context still holds a BOS the tokenizer adds
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
        if self.strategy == "packed":
            units = pack_units(contexts, by_context, requests, self.pack_tokens, self.context_factor)
            rows = pack_rows(units, _row_capacity(units, self.row_tokens))
            bar = tqdm(total=len(rows), desc="causal LM", unit="sequence", disable=not progress, leave=False)
            size, budget = self.batching(max(map(_row_length, rows)), self._probe_packed)
            scored = run_batched(rows, self._score_packed_rows, size, length=_row_length, max_tokens=budget,
                                 progress=bar.update)
            for per_row in scored:
                for r, lp in per_row:
                    results[r] = lp
        else:
            bar = tqdm(total=len(contexts), desc="causal LM", unit="context", disable=not progress, leave=False)

            def score(batch_contexts):
                members = [[(r, requests[r][1]) for r in by_context[c]] for c in batch_contexts]
                return self._score_context_batch(batch_contexts, members)

            size = self.batch_size if self.batch_size != "auto" else 32
            for per_context in run_batched(contexts, score, size, length=len, progress=bar.update):
                for r, lp in per_context:
                    results[r] = lp
        bar.close()
        return results  # type: ignore[return-value]

    # ------------------------------------------------------------------ packed strategy
    def _probe_packed(self, width: int, n_rows: int) -> None:
        """A worst-case batch for the token-budget search: n_rows full rows of ``width`` tokens."""
        pad = self.pad_id
        unit = PackedUnit((pad,) * max(width - 1, 1), ((0, (pad, pad)),))
        self._score_packed_rows([(unit,)] * n_rows)

    def _score_packed_rows(self, rows: Sequence[tuple["PackedUnit", ...]]) -> list[list[tuple[int, np.ndarray]]]:
        """One forward pass over rows of packed units [context, continuation 1[:-1], continuation 2[:-1], ...].

        A 4-D attention mask lets every continuation see its own context and itself
        only; positions restart at each context and right after it for every
        continuation, so each token gets exactly the hidden state it would get in
        ``context + continuation`` alone. Several units share a row to avoid padding.
        """
        dev = self.device
        width = max(map(_row_length, rows))
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        unit_of = torch.full((len(rows), width), -1, dtype=torch.long)  # -1 padding
        segment = torch.zeros((len(rows), width), dtype=torch.long)  # 0 context, s >= 1 continuation s
        positions = torch.zeros((len(rows), width), dtype=torch.long)
        gather_rows, gather_cols = [], []  # scored positions
        where, tokens = [], []  # (scored position, target token) in output order
        n_units = 0
        for b, row in enumerate(rows):
            at = 0
            for unit in row:
                n = len(unit.context)
                ids[b, at:at + n] = torch.tensor(unit.context)
                unit_of[b, at:at + n] = n_units
                positions[b, at:at + n] = torch.arange(n)
                # the context's last position predicts every continuation's first token: gathered once
                first = len(gather_rows)
                gather_rows.append(b)
                gather_cols.append(at + n - 1)
                at += n
                for s_id, (_, cont) in enumerate(unit.members, start=1):
                    where.append(first)
                    tokens.append(cont[0])
                    k = len(cont) - 1
                    if k:
                        ids[b, at:at + k] = torch.tensor(cont[:-1])
                        unit_of[b, at:at + k] = n_units
                        segment[b, at:at + k] = s_id
                        positions[b, at:at + k] = torch.arange(n, n + k)
                        where.extend(range(len(gather_rows), len(gather_rows) + k))
                        tokens.extend(cont[1:])
                        gather_rows.extend([b] * k)
                        gather_cols.extend(range(at, at + k))
                        at += k
                n_units += 1
        mask = packed_attention_mask(unit_of, segment, self.model.dtype).to(dev)
        hidden = self._hidden(ids.to(dev), mask, positions.to(dev))
        self.count("forward_passes")
        self.count("context_forwards", n_units)
        self.count("packed_tokens", int((unit_of >= 0).sum()))
        on = hidden.device
        values = self._target_logprobs(hidden, torch.tensor(gather_rows, device=on), torch.tensor(gather_cols, device=on),
                                       torch.tensor(where, device=on), torch.tensor(tokens, device=on))
        out: list[list[tuple[int, np.ndarray]]] = []
        k = 0
        for row in rows:
            scored = []
            for unit in row:
                for r, cont in unit.members:
                    scored.append((r, values[k:k + len(cont)].copy()))
                    k += len(cont)
            out.append(scored)
        return out

    def _hidden(self, ids, mask, positions):
        """Final hidden states (after the last norm), without the LM head."""
        if self._head is None:
            return self.model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=False).logits
        return self.model.base_model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=False)[0]

    def _target_logprobs(self, hidden, rows, cols, where, tokens) -> np.ndarray:
        """log P(tokens[i]) at scored position where[i]; scored position j is hidden[rows[j], cols[j]].

        The LM head and the full-vocabulary log-softmax run only on scored positions,
        in chunks of at most ``logit_elements`` logits, so memory stays bounded for
        128k vocabularies.
        """
        picked = hidden[rows, cols]
        vocab = picked.shape[-1] if self._head is None else self.vocab_size
        step = max(1, self.logit_elements // max(vocab, 1))
        values = torch.empty(len(where), dtype=torch.float64)
        for start in range(0, picked.shape[0], step):
            stop = min(start + step, picked.shape[0])
            logits = picked[start:stop] if self._head is None else self._head(picked[start:stop])
            logits = logits.float()
            if self._softcap:
                logits = torch.tanh(logits / self._softcap) * self._softcap
            logp = torch.log_softmax(logits, dim=-1)
            sel = ((where >= start) & (where < stop)).nonzero().squeeze(-1)
            values[sel.cpu()] = logp[where[sel] - start, tokens[sel]].double().cpu()
        return values.numpy()

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
        last_only = {"logits_to_keep": 1} if _takes(self.model, "logits_to_keep") else {}
        out = self.model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True, **last_only)
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
        for chunk in chunks(rows, max(int(self.batch_size if self.batch_size != "auto" else 32) * 4, 1)):
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
        # under a device map each layer's cache lives on that layer's device
        cache = DynamicCache([(k.index_select(0, sel.to(k.device)), v.index_select(0, sel.to(v.device)))
                              for k, v in kv])
        attention = torch.cat([ctx_mask.index_select(0, sel), cmask], dim=1)
        positions = ctx_lengths.index_select(0, sel)[:, None] + torch.arange(n, device=dev)[None, :]
        if self.max_length:  # padding columns of short rows may run past the table; they are masked
            positions = positions.clamp(max=self.max_length - 1)
        out = self.model(
            input_ids=ids, attention_mask=attention, position_ids=positions, past_key_values=cache, use_cache=True
        )
        self.count("forward_passes")
        logp = torch.log_softmax(out.logits.float(), dim=-1)
        on = logp.device
        for j, (_, cont, lp) in enumerate(rows):
            target = torch.tensor(cont[1:], device=on)
            lp[1:] = logp[j, torch.arange(len(cont) - 1, device=on), target].double().cpu().numpy()


@dataclass(frozen=True)
class PackedUnit:
    """A context and some of its continuations, as (request index, ids), fed as one block."""

    context: tuple[int, ...]
    members: tuple[tuple[int, tuple[int, ...]], ...]

    def __len__(self) -> int:
        return len(self.context) + sum(len(c) - 1 for _, c in self.members)


def pack_units(contexts, by_context, requests, pack_tokens: int, context_factor: int = 1) -> list[PackedUnit]:
    """Each context with as many of its continuations as fit ``pack_tokens`` (at least one).

    With ``context_factor`` f, a unit may also grow to f times its context's length: a
    long context is fed again only after (f - 1) times its own length of continuation
    tokens (the scorer uses 2: a 520-token question with 49 three-token answers is one
    unit, not 49).
    """
    units = []
    for ctx in contexts:
        members: list[tuple[int, tuple[int, ...]]] = []
        size = len(ctx)
        limit = max(pack_tokens, context_factor * len(ctx))
        for r in by_context[ctx]:
            cont = tuple(requests[r][1])
            if members and size + len(cont) - 1 > limit:
                units.append(PackedUnit(ctx, tuple(members)))
                members, size = [], len(ctx)
            members.append((r, cont))
            size += len(cont) - 1
        units.append(PackedUnit(ctx, tuple(members)))
    return units


def pack_rows(units: Sequence[PackedUnit], capacity: int, window: int = 64) -> list[tuple[PackedUnit, ...]]:
    """First-fit decreasing over the last ``window`` open rows: units into rows of at most
    ``capacity`` tokens (deterministic; linear time for large runs)."""
    rows: list[list[PackedUnit]] = []
    free: list[int] = []
    for unit in sorted(units, key=lambda u: -len(u)):
        for i in range(max(0, len(rows) - window), len(rows)):
            if len(unit) <= free[i]:
                rows[i].append(unit)
                free[i] -= len(unit)
                break
        else:
            rows.append([unit])
            free.append(capacity - len(unit))
    return [tuple(r) for r in rows]


def _row_capacity(units: Sequence[PackedUnit], row_tokens: int) -> int:
    """Rows of about ``row_tokens``, evened out so that the last row is not mostly padding."""
    total, longest = sum(map(len, units)), max(map(len, units))
    n_rows = max(1, -(-total // max(row_tokens, 1)))
    capacity = max(longest, -(-total // n_rows))
    for _ in range(16):
        if len(pack_rows(units, capacity)) <= n_rows:
            return capacity
        capacity += max(4, capacity // 32)
    return max(longest, row_tokens)


def _row_length(row: Sequence[PackedUnit]) -> int:
    return sum(map(len, row))


def packed_attention_mask(unit: torch.Tensor, segment: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Additive [batch, 1, L, L] mask from unit ids (-1 padding) and segment ids (0 context, s continuation s).

    Query i sees key j when j <= i in the same unit and j is context or in i's own
    segment; padding rows see themselves only (their outputs are never read).
    """
    n = unit.shape[1]
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    same_unit = (unit[:, :, None] == unit[:, None, :]) & (unit[:, None, :] >= 0)
    q, k = segment[:, :, None], segment[:, None, :]
    allowed = causal & same_unit & ((k == 0) | (k == q))
    allowed |= torch.eye(n, dtype=torch.bool)
    mask = torch.zeros(allowed.shape, dtype=dtype)
    mask.masked_fill_(~allowed, torch.finfo(dtype).min)
    return mask[:, None]


def _takes(model, argument: str) -> bool:
    import inspect

    try:
        return argument in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


def _attn_implementation(model) -> str | None:
    return getattr(getattr(model, "config", None), "_attn_implementation", None)


def _output_head(model):
    """(LM head module, logit soft-cap, vocabulary size); head None: use the model's full logits."""
    config = getattr(model, "config", None)
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    base = getattr(model, "base_model", None)
    if head is None or base is None or base is model or getattr(config, "logit_scale", None) is not None:
        return None, None, None
    vocab = head.weight.shape[0] if getattr(head, "weight", None) is not None else getattr(config, "vocab_size", None)
    if vocab is None:
        return None, None, None
    return head, getattr(config, "final_logit_softcapping", None), int(vocab)


def _max_length(model, tokenizer) -> int | None:
    """Longest input the model takes: its position table, or the tokenizer's limit if sane."""
    config = getattr(model, "config", None)
    for attr in ("n_positions", "max_position_embeddings", "n_ctx"):
        value = getattr(config, attr, None)
        if isinstance(value, int) and value > 0:
            return value
    limit = getattr(tokenizer, "model_max_length", None)
    return limit if isinstance(limit, int) and 0 < limit < 10**6 else None
