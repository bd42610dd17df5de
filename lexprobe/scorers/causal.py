"""Causal-LM scoring: log-probabilities of continuations given a context.

Context and continuation are encoded together and split (as lm-evaluation-harness does), so a
continuation is tokenised as in running text. Requests sharing a context are packed into one unit,
``[context, continuation 1[:-1], continuation 2[:-1], ...]``, under a 4-D attention mask (each
continuation sees its context and itself, positions restarting after the context), so the context is
fed once; units share rows and the LM head runs only where a token is scored (docs/scale.md). The mask
also applies each layer's sliding window; layouts it cannot reproduce take the ``plain`` strategy
(``attention_layout.py``), and flash attention (no 4-D mask) the ``cache`` strategy: the context's
key/value cache computed once and copied for every continuation row.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from lexprobe.batching import chunks, pad_batch, run_batched
from lexprobe.scorers.attention_layout import attention_layout
from lexprobe.scorers.base import Scorer

# the tokenisation every causal backend shares (torch-free), under the names its users import from here
from lexprobe.scorers.causal_tokens import (  # noqa: F401
    CausalTokenization,
    chat_text,
    cut_at_stop,
    fit_context,
    tokenizer_limit,
    until_stop,
)


class CausalLMScorer(Scorer, CausalTokenization):
    def __init__(self, name: str, model, tokenizer, device: torch.device, batch_size: int | str | None = None):
        super().__init__(name)
        self.kind = "causal"
        self.model = model.eval()
        self.use_tokenizer(tokenizer)
        self.device = device
        self.batch_size = batch_size
        self.max_length = _max_length(model, tokenizer)
        self.layout = attention_layout(model)
        self.strategy = _strategy(self.layout, getattr(getattr(model, "config", None), "_attn_implementation", None))
        self.pack_tokens = 512  # longest unit (context + continuations); more continuations make more units
        self.context_factor = 2  # ... or up to twice its context: a long context is not fed once per continuation
        self.row_tokens = 256  # units share rows of this many tokens (or the longest unit)
        self.max_batch_tokens: int | None = None  # padded tokens per forward pass (set by --batch-size auto)
        self.logit_elements = 1 << 24  # vocabulary logits materialised at once (64 MB in fp32)
        self.plain_logit_elements = 1 << 27  # logits one forward pass of the plain strategy may return
        self._head, self._softcap, self.vocab_size = _output_head(model)

    def describe(self):
        """Sliding windows change scores (older results are not reused); a path other than ``packed`` is named."""
        described = super().describe()
        if self.layout.windows:
            described["attention_windows"] = self.layout.windows
        if self.strategy != "packed":
            described["scoring_path"] = self.strategy
            if self.strategy == "plain" and self.layout.reason:
                described["scoring_path_reason"] = self.layout.reason
        return described

    @torch.inference_mode()
    def token_logprobs(self, requests: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
                       progress: bool = False) -> list[np.ndarray]:
        """Like ``continuation_logprobs`` on already tokenised (context, continuation) pairs."""
        if not requests:
            return []
        by_context: dict[tuple[int, ...], list[int]] = defaultdict(list)
        for i, (ctx, _) in enumerate(requests):
            by_context[ctx].append(i)
        contexts = list(by_context)
        results: list[np.ndarray | None] = [None] * len(requests)
        self.count(f"{self.strategy}_requests", len(requests))
        items: Sequence[Any]
        score: Callable[[list], list]
        length: Callable[[Any], int]
        if self.strategy == "plain":  # each request its own row
            items = [(r, tuple(ctx), tuple(cont)) for r, (ctx, cont) in enumerate(requests)]
            size, budget = self.batching(max(map(_fed_length, items)), self._probe_plain)
            score, length, unit = (lambda batch: [[x] for x in self._score_plain_rows(batch)]), _fed_length, "request"
        elif self.strategy == "packed":
            units = pack_units(contexts, by_context, requests, self.pack_tokens, self.context_factor)
            items = pack_rows(units, _row_capacity(units, self.row_tokens))
            size, budget = self.batching(max(map(_row_length, items)), self._probe_packed)
            score, length, unit = self._score_packed_rows, _row_length, "sequence"
        else:  # cache: a batch of contexts, then their continuations on copies of its key/value cache
            items, size, budget, length, unit = contexts, self.batch_size, None, len, "context"

            def score(batch_contexts: list) -> list:
                return self._score_context_batch(batch_contexts, [[(r, requests[r][1]) for r in by_context[c]]
                                                                  for c in batch_contexts])

        bar = tqdm(total=len(items), desc="causal LM", unit=unit, disable=not progress, leave=False)
        for scored in run_batched(items, score, size, length=length, max_tokens=budget, progress=bar.update):
            for r, lp in scored:
                results[r] = lp
        bar.close()
        return results  # type: ignore[return-value]

    @torch.inference_mode()
    def generate_ids(self, prompts: Sequence[Sequence[int]], max_new_tokens: int,
                     stop: Sequence[str] | None = None) -> list[str]:
        """Greedy continuation of each prompt's ids (left-padded batches), decoded and cut before ``stop``."""
        tok = self.tokenizer
        stops = self.stop_ids()

        def run(batch: list[list[int]]) -> list[str]:
            input_ids, mask = pad_batch(batch, self.pad_id, left=True)
            out = self.model.generate(input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device),
                                      max_new_tokens=max_new_tokens, do_sample=False, num_beams=1, temperature=None,
                                      top_p=None, top_k=None, pad_token_id=self.pad_id, eos_token_id=stops or None)
            self.count("generate_calls")
            return [cut_at_stop(tok.decode(until_stop(row, stops), skip_special_tokens=True), stop)
                    for row in out[:, input_ids.shape[1]:].tolist()]

        return run_batched([list(p) for p in prompts], run, self.batch_size, length=len)

    def stop_ids(self) -> list[int]:
        """The tokenizer's EOS and the model's generation EOS ids (chat models end a turn with their own)."""
        ids = [self.tokenizer.eos_token_id]
        configured = getattr(getattr(self.model, "generation_config", None), "eos_token_id", None)
        ids += configured if isinstance(configured, list) else [configured]
        return list(dict.fromkeys(i for i in ids if i is not None))

    def _probe_packed(self, width: int, n_rows: int) -> None:
        pad = self.pad_id
        unit = PackedUnit((pad,) * max(width - 1, 1), ((0, (pad, pad)),))
        self._score_packed_rows([(unit,)] * n_rows)

    def _score_packed_rows(self, rows: Sequence[tuple["PackedUnit", ...]]) -> list[list[tuple[int, np.ndarray]]]:
        """One forward pass over rows of packed units (the module docstring says how they are masked)."""
        dev = self.device
        width = max(map(_row_length, rows))
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        unit_of = torch.full((len(rows), width), -1, dtype=torch.long)  # -1 padding
        segment = torch.zeros((len(rows), width), dtype=torch.long)  # 0 context, s >= 1 continuation s
        positions = torch.zeros((len(rows), width), dtype=torch.long)
        gather_rows: list[int] = []  # scored positions
        gather_cols: list[int] = []
        where: list[int] = []  # (scored position, target token) in output order
        tokens: list[int] = []
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
        mask = self._packed_masks(unit_of, segment, positions)
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

    def _packed_masks(self, unit_of, segment, positions):
        """The 4-D mask of a packed batch, or ``{layer type: mask}`` when layers' windows differ (a window
        no position reaches changes nothing: then one mask serves all)."""
        span = int(positions.max()) + 1
        layout = self.layout.masks or {None: None}
        windows = {kind: (w if w is not None and w < span else None) for kind, w in layout.items()}
        built = {w: packed_attention_mask(unit_of, segment, self.model.dtype, positions, w).to(self.device)
                 for w in dict.fromkeys(windows.values())}
        if any(w is not None for w in built):
            self.count("windowed_passes")
        if len(built) == 1:
            return next(iter(built.values()))
        return {kind: built[w] for kind, w in windows.items()}

    def _hidden(self, ids, mask, positions):
        """Final hidden states (after the last norm), without the LM head."""
        if self._head is None:
            return self.model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=False).logits
        return self.model.base_model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=False)[0]

    def _target_logprobs(self, hidden, rows, cols, where, tokens, logits: bool = False) -> np.ndarray:
        """log P(tokens[i]) at scored position where[i]; scored position j is hidden[rows[j], cols[j]].

        The LM head and log-softmax run on scored positions only, in chunks of ``logit_elements`` logits
        (bounded memory for 128k vocabularies). ``logits``: ``hidden`` already holds the model's logits.
        """
        head, softcap = (None, None) if logits else (self._head, self._softcap)
        picked = hidden[rows, cols]
        vocab = picked.shape[-1] if head is None else self.vocab_size
        step = max(1, self.logit_elements // max(vocab, 1))
        values = torch.empty(len(where), dtype=torch.float64)
        for start in range(0, picked.shape[0], step):
            stop = min(start + step, picked.shape[0])
            chunk = picked[start:stop] if head is None else head(picked[start:stop])
            chunk = chunk.float()
            if softcap:
                chunk = torch.tanh(chunk / softcap) * softcap
            logp = torch.log_softmax(chunk, dim=-1)
            sel = ((where >= start) & (where < stop)).nonzero().squeeze(-1)
            values[sel.cpu()] = logp[where[sel] - start, tokens[sel]].double().cpu()
        return values.numpy()

    def _probe_plain(self, width: int, n_rows: int) -> None:
        pad = self.pad_id
        self._score_plain_rows([(0, (pad,) * max(width - 1, 1), (pad, pad))] * n_rows)

    def _score_plain_rows(self, items) -> list[tuple[int, np.ndarray]]:
        """(request, log-probs) of (request, context, continuation) items, one right-padded row each: the
        model builds its own masks, so any layout is honoured. Only columns from the earliest scored one
        come back as logits (``logits_to_keep``), in groups under ``plain_logit_elements``."""
        out: list[tuple[int, np.ndarray]] = []
        vocab = self.vocab_size or getattr(getattr(self.model, "config", None), "vocab_size", None) or 1
        keeps = _takes(self.model, "logits_to_keep")
        group: list = []
        width = first = 0  # the group's longest row and earliest scored column
        for item in items:
            w, f = _fed_length(item), len(item[1]) - 1
            if group:
                w, f = max(w, width), min(f, first)
                if (len(group) + 1) * (w - f if keeps else w) * vocab > self.plain_logit_elements:
                    out.extend(self._plain_forward(group))
                    group, w, f = [], _fed_length(item), len(item[1]) - 1
            group.append(item)
            width, first = w, f
        return out + self._plain_forward(group)

    def _plain_forward(self, items) -> list[tuple[int, np.ndarray]]:
        dev = self.device
        ids, mask = pad_batch([ctx + cont[:-1] for _, ctx, cont in items], self.pad_id)
        width = ids.shape[1]
        first = min(len(ctx) for _, ctx, _ in items) - 1  # the earliest scored column
        keep = {"logits_to_keep": width - first} if _takes(self.model, "logits_to_keep") else {}
        logits = self.model(input_ids=ids.to(dev), attention_mask=mask.to(dev), use_cache=False, **keep).logits
        self.count("forward_passes")
        self.count("context_forwards", len(items))
        offset = width - logits.shape[1]  # columns dropped on the left by logits_to_keep
        rows: list[int] = []
        cols: list[int] = []
        tokens: list[int] = []
        for b, (_, ctx, cont) in enumerate(items):
            rows.extend([b] * len(cont))
            cols.extend(range(len(ctx) - 1 - offset, len(ctx) - 1 - offset + len(cont)))
            tokens.extend(cont)
        on = logits.device
        values = self._target_logprobs(logits, torch.tensor(rows, device=on), torch.tensor(cols, device=on),
                                       torch.arange(len(tokens), device=on), torch.tensor(tokens, device=on),
                                       logits=True)
        out, k = [], 0
        for r, _, cont in items:
            out.append((r, values[k:k + len(cont)].copy()))
            k += len(cont)
        return out

    def _score_context_batch(self, contexts, members):
        from transformers import DynamicCache

        ids, mask = pad_batch(contexts, self.pad_id, left=True)  # every context ends at the last column
        ids, mask = ids.to(self.device), mask.to(self.device)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        last_only = {"logits_to_keep": 1} if _takes(self.model, "logits_to_keep") else {}
        # a cache built without the config keeps every key: the model's own sliding-window
        # cache layers would drop all but the last window, which the continuation rows need
        out = self.model(input_ids=ids, attention_mask=mask, position_ids=positions, past_key_values=DynamicCache(),
                         use_cache=True, **last_only)
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
        for chunk in chunks(rows, max(int(self.batch_size) * 4, 1)):
            self._score_continuation_rows(chunk, kv, mask, ctx_lengths)
        return scored

    def _score_continuation_rows(self, rows, kv, ctx_mask, ctx_lengths):
        from transformers import DynamicCache

        dev = self.device
        sel = torch.tensor([b for b, _, _ in rows], device=dev)
        ids, cmask = pad_batch([cont[:-1] for _, cont, _ in rows], self.pad_id)
        ids, cmask = ids.to(dev), cmask.to(dev)
        n = ids.shape[1]
        # under a device map each layer's cache lives on that layer's device
        cache = DynamicCache([(k.index_select(0, sel.to(k.device)), v.index_select(0, sel.to(v.device)))
                              for k, v in kv])
        attention = torch.cat([ctx_mask.index_select(0, sel), cmask], dim=1)
        positions = ctx_lengths.index_select(0, sel)[:, None] + torch.arange(n, device=dev)[None, :]
        if self.max_length:  # padding columns of short rows may run past the table; they are masked
            positions = positions.clamp(max=self.max_length - 1)
        out = self.model(input_ids=ids, attention_mask=attention, position_ids=positions, past_key_values=cache,
                         use_cache=True)
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
    """Each context with as many of its continuations as fit ``pack_tokens`` (at least one), or up to
    ``context_factor`` times the context's length (a long context is not fed once per continuation)."""
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


def _fed_length(item) -> int:
    """Tokens the plain strategy feeds for (request, context, continuation): all but the last."""
    return len(item[1]) + len(item[2]) - 1


def _strategy(layout, attn: str | None) -> str:
    """packed where a 4-D mask reproduces the model's masks; cache where the kernel takes no 4-D mask (flash
    attention); plain (each request its own row, the model's own masks) for layouts packing cannot honour."""
    if not layout.packable:
        return "plain"
    return "packed" if attn in ("eager", "sdpa") else "cache"


def packed_attention_mask(unit: torch.Tensor, segment: torch.Tensor, dtype: torch.dtype,
                          positions: torch.Tensor | None = None, window: int | None = None) -> torch.Tensor:
    """Additive [batch, 1, L, L] mask from unit ids (-1 padding) and segment ids (0 context, s continuation s).

    Query i sees key j <= i of its unit that is context or in its own segment; padding sees itself only.
    A sliding ``window`` also hides keys ``window`` positions back (positions, not columns: a
    continuation's positions follow its context's).
    """
    n = unit.shape[1]
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    same_unit = (unit[:, :, None] == unit[:, None, :]) & (unit[:, None, :] >= 0)
    q, k = segment[:, :, None], segment[:, None, :]
    allowed = causal & same_unit & ((k == 0) | (k == q))
    if window is not None:
        if positions is None:
            raise ValueError("a sliding window needs the tokens' positions")
        allowed &= (positions[:, :, None] - positions[:, None, :]) < window
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


def _output_head(model):
    """(LM head module, logit soft-cap, vocabulary size); head None: use the model's full logits."""
    config = getattr(model, "config", None)
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    base = getattr(model, "base_model", None)
    scaled = any(getattr(config, attr, None) not in (None, 1, 1.0) for attr in ("logit_scale", "logits_scaling"))
    if head is None or base is None or base is model or scaled:
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
    return tokenizer_limit(tokenizer)
