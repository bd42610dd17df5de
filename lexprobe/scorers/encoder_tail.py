"""Masked-LM outputs at the scored positions only, with the last encoder layer cut to them.

Masked-LM scoring reads a few positions per row. In the last layer keys and values are needed
everywhere, but the query projection, attention output and feed-forward only at those positions (for
BERT-base about 7% of the encoder's FLOPs, same maths). The model's own code runs up to the last layer,
where a forward pre-hook captures the input and stops the forward; the last layer's self-attention is
computed here and its output and feed-forward are its own modules. Only layers known to compute exactly
this (post-LN BERT-family, absolute positions) take the cut (``last_layer_cut``); others run in full.
"""

from __future__ import annotations

import weakref
from contextlib import contextmanager

import torch
import torch.nn.functional as F

#: transformers layer classes whose forward is BertLayer's (checked against transformers 5.23 sources)
KNOWN_LAYERS = frozenset({"BertLayer", "RobertaLayer", "XLMRobertaLayer", "CamembertLayer", "ElectraLayer",
                          "Data2VecTextLayer", "ErnieLayer"})

_decisions: "weakref.WeakKeyDictionary[torch.nn.Module, bool]" = weakref.WeakKeyDictionary()


class _StopBeforeLastLayer(Exception):
    """Raised by the pre-hook to end the base model's forward at the last layer's input."""


def lm_head(model):
    """The module mapping hidden states to vocabulary logits, for architectures we know."""
    for attr in ("cls", "lm_head"):  # BERT-style, RoBERTa/XLM-R/ModernBERT-style
        head = getattr(model, attr, None)
        if head is not None and callable(head):
            return head
    return None


def _last_layer(model):
    layers = getattr(getattr(getattr(model, "base_model", None), "encoder", None), "layer", None)
    if isinstance(layers, torch.nn.ModuleList) and len(layers) > 0:
        return layers[-1]
    return None


def _cut_supported(model) -> bool:
    config = getattr(model, "config", None)
    layer = _last_layer(model)
    if config is None or layer is None or type(layer).__name__ not in KNOWN_LAYERS:
        return False
    if getattr(config, "is_decoder", False) or getattr(config, "add_cross_attention", False):
        return False
    attention = getattr(getattr(layer, "attention", None), "self", None)
    parts = ("query", "key", "value", "num_attention_heads", "attention_head_size", "scaling")
    if attention is None or not all(hasattr(attention, a) for a in parts):
        return False
    if not all(hasattr(m, a) for m, a in ((layer.attention, "output"), (layer, "intermediate"), (layer, "output"))):
        return False
    for where in (config, attention):  # older transformers kept relative positions on both
        if getattr(where, "position_embedding_type", "absolute") not in (None, "absolute"):
            return False
    return attention.query.weight.device.type != "meta"  # offloaded weights: leave them to accelerate


def last_layer_cut(model) -> bool:
    """Whether ``model`` computes its last encoder layer at the scored positions only (decided once per
    model; a model in training mode always takes the full path)."""
    if model not in _decisions:
        _decisions[model] = _cut_supported(model)
    return _decisions[model] and not model.training


@contextmanager
def full_last_layer(model):
    """Run ``model``'s last layer at every position inside the block (for side-by-side timings)."""
    last_layer_cut(model)  # decide first, so the decision is what gets restored
    saved, _decisions[model] = _decisions[model], False
    try:
        yield
    finally:
        _decisions[model] = saved


def _last_layer_input(model, input_ids, attention_mask):
    """The last layer's input hidden states, or the base model's output if the layer never ran."""
    captured = {}

    def stop(module, args, kwargs):
        captured["hidden"] = args[0] if args else kwargs["hidden_states"]
        raise _StopBeforeLastLayer

    handle = _last_layer(model).register_forward_pre_hook(stop, with_kwargs=True)
    try:
        out = model.base_model(input_ids=input_ids, attention_mask=attention_mask)
    except _StopBeforeLastLayer:
        return captured["hidden"], None
    finally:
        handle.remove()
    return None, out[0]


def _slots(rows: torch.Tensor, n_rows: int) -> tuple[torch.Tensor, int]:
    """Index of each scored position among its row's scored positions, and the most per row."""
    counts = torch.bincount(rows, minlength=n_rows)
    order = torch.argsort(rows, stable=True)
    starts = torch.cumsum(counts, 0) - counts
    slot = torch.empty_like(rows)
    slot[order] = torch.arange(len(rows), device=rows.device) - starts[rows[order]]
    return slot, int(counts.max()) if len(rows) else 0


def _last_layer_at(layer, hidden, attention_mask, rows, cols):
    """The last layer's output at (rows, cols): keys/values everywhere, the rest at those positions."""
    attn = layer.attention.self
    batch, width, _ = hidden.shape
    heads, size = attn.num_attention_heads, attn.attention_head_size
    slot, per_row = _slots(rows, batch)
    x = hidden[rows, cols]
    queries = hidden.new_zeros((batch, per_row, heads * size))
    queries[rows, slot] = attn.query(x)
    q = queries.view(batch, per_row, heads, size).transpose(1, 2)
    k = attn.key(hidden).view(batch, width, heads, size).transpose(1, 2)
    v = attn.value(hidden).view(batch, width, heads, size).transpose(1, 2)
    mask = None if attention_mask is None else attention_mask.bool()[:, None, None, :]
    context = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=attn.scaling)
    context = context.transpose(1, 2).reshape(batch, per_row, heads * size)[rows, slot]
    attended = layer.attention.output(context, x)
    return layer.output(layer.intermediate(attended), attended)


def scored_hidden_states(model, input_ids, attention_mask, rows, cols) -> torch.Tensor:
    """``model.base_model(input_ids, attention_mask)[0][rows, cols]``, the last layer cut where supported."""
    if not last_layer_cut(model) or len(rows) == 0:
        hidden = model.base_model(input_ids=input_ids, attention_mask=attention_mask)[0]
        return hidden[rows.to(hidden.device), cols.to(hidden.device)]
    before, full = _last_layer_input(model, input_ids, attention_mask)
    if full is not None:  # the hook never fired: this model is not what it looked like
        _decisions[model] = False
        return full[rows.to(full.device), cols.to(full.device)]
    layer = _last_layer(model)
    device = layer.attention.self.query.weight.device  # under a device map, the layer's own device
    before, rows, cols = before.to(device), rows.to(device), cols.to(device)
    mask = None if attention_mask is None else attention_mask.to(device)
    return _last_layer_at(layer, before, mask, rows, cols)


def scored_logits(model, input_ids, attention_mask, rows, cols) -> torch.Tensor:
    """Vocabulary logits at (rows[i], cols[i]) only: the LM head (and the last layer, where
    supported) runs on those positions alone; unknown heads take the model's full output."""
    head = lm_head(model)
    if head is None:
        logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
        return logits[rows.to(logits.device), cols.to(logits.device)]
    return head(scored_hidden_states(model, input_ids, attention_mask, rows, cols))
