"""Which attention layout a causal LM has, and whether packed rows can honour it.

The causal scorer's packed path (``causal.py``) replaces every mask the model would build with its own
4-D mask, so it is right only where that mask reproduces, layer by layer, what the model does to one
plain sequence: full causal layers; sliding-window layers (the same mask limited to keys fewer than
``sliding_window`` *positions* back, as positions restart for every continuation in a row); and several
layer types in one model (Gemma-3), one mask per type, as ``{layer type: mask}`` for the ``BY_TYPE``
families. Everything else takes the plain path: chunked attention (Llama-4), windows by column index
(GPT-Neo), ALiBi (BLOOM, MPT, Falcon), recurrent, convolutional and linear-attention layers (Mamba, RWKV,
Jamba, ...), bidirectional decoders, per-layer config overrides, and any family not listed: an unknown
layout is never packed. The families listed are those ``tests/scorers/test_sliding_window.py`` checks.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the decoder builds plain causal masks only (a ``sliding_window`` in its config is unused)
CAUSAL = "causal"
#: the decoder hands one mask to every layer: causal, or sliding when ``config.sliding_window`` is set
WINDOW = "window"
#: the decoder also takes ``{config.layer_types entry: 4-D mask}``, one mask per layer type
BY_TYPE = "by_type"

#: model_type -> how its layers are masked. Every entry reads positions from ``position_ids``
#: only and applies no mask of its own besides the one it is given.
PACKED_FAMILIES = {
    **dict.fromkeys(("gpt2", "gpt_neox", "gptj", "codegen", "gpt_bigcode", "opt", "llama", "gemma", "olmo", "olmo2",
                     "olmoe", "stablelm", "granite", "cohere", "phi", "glm", "glm4", "nemotron", "persimmon", "helium",
                     "seed_oss"), CAUSAL),
    **dict.fromkeys(("mistral", "mixtral", "phi3", "phimoe", "starcoder2", "qwen3_moe"), WINDOW),
    **dict.fromkeys(("qwen2", "qwen2_moe", "qwen3", "gemma2", "gemma3_text", "cohere2", "gpt_oss", "olmo3", "smollm3",
                     "ministral", "exaone4", "vaultgemma"), BY_TYPE),
}

#: layer types whose mask the packed path can build: full causal, and a sliding window
FULL, SLIDING = "full_attention", "sliding_attention"


@dataclass(frozen=True)
class Layout:
    """How to mask a packed row: ``masks`` maps a layer type (None: every layer) to its sliding window (None:
    full causal); ``masks`` None where packing cannot honour the model (``reason`` says why)."""

    masks: dict[str | None, int | None] | None
    reason: str = ""

    @property
    def packable(self) -> bool:
        return self.masks is not None

    @property
    def windows(self) -> dict[str, int]:
        """The sliding windows, by layer type (empty for full attention only)."""
        return {str(k or "all_layers"): w for k, w in (self.masks or {}).items() if w is not None}

    @property
    def smallest_window(self) -> int | None:
        return min(self.windows.values(), default=None)


def attention_layout(model) -> Layout:
    """The layout of ``model``'s attention, read from its config (conservatively)."""
    config = getattr(model, "config", None)
    model_type = getattr(config, "model_type", None)
    family = PACKED_FAMILIES.get(model_type) if isinstance(model_type, str) else None
    if family is None:
        return Layout(None, f"architecture {model_type or type(model).__name__} is not known to honour packed masks")
    if getattr(config, "is_heterogeneous", False) is True:
        return Layout(None, "per-layer config overrides")
    if getattr(config, "is_causal", True) is False or getattr(config, "use_bidirectional_attention", False):
        return Layout(None, "bidirectional attention")
    if getattr(config, "attention_chunk_size", None) is not None:
        return Layout(None, "chunked attention")
    if family == CAUSAL:
        return Layout({None: None})
    window = getattr(config, "sliding_window", None)
    layer_types = getattr(config, "layer_types", None) if family == BY_TYPE else None
    per_type: dict[str | None, int | None]
    if layer_types is None:  # every layer alike: full, or the one sliding window
        per_type = {None: window}
    else:
        unknown = sorted(set(layer_types) - {FULL, SLIDING})
        if unknown:
            return Layout(None, f"layer types {', '.join(unknown)}")
        per_type = {t: (window if t == SLIDING else None) for t in dict.fromkeys(layer_types)}
    for w in per_type.values():
        if w is not None and (isinstance(w, bool) or not isinstance(w, int) or w <= 0):
            return Layout(None, f"sliding_window {w!r}")
    if SLIDING in per_type and per_type[SLIDING] is None:
        return Layout(None, "sliding layers without a sliding_window")
    if len(set(per_type.values())) == 1:
        return Layout({None: next(iter(per_type.values()))})
    return Layout(per_type)
