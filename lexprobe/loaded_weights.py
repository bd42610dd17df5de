"""Weights are complete or refused: transformers' loading report, read for every kind of model.

``from_pretrained`` fills weights a checkpoint lacks with random numbers and only logs it, so a damaged
checkpoint gave random scores with exit 0 (#26 D8, D9). Every load passes its report here, which refuses
in one line, telling a missing *head* (use another ``--kind``) from missing *body* weights. Not refused:
tied weights and ignorable buffers (the report leaves them out), a base model's unread pooler, and
weights for parts the model lacks (another head). Weights the model *has a place for* but does not take
(an unknown parameter, a layer beyond the config's) are refused: checkpoint and config disagree.
"""

from __future__ import annotations

from typing import Any, Iterable

from lexprobe.errors import ModelError

#: what a base model (token or sentence embeddings) may lack: the pooler, which it never reads
BASE_MAY_LACK = ("pooler.",)
#: buffers recomputed by the model, never trained
BUFFERS = ("position_ids",)
SHOWN = 3


def _names(keys: Iterable[str]) -> str:
    keys = sorted(keys)
    return ", ".join(keys[:SHOWN]) + (f" and {len(keys) - SHOWN} more" if len(keys) > SHOWN else "")


def _misplaced(model: Any, unexpected: Iterable[str]) -> list[str]:
    """Unexpected keys the model has a place for: a parameter its module lacks, or a layer of one of
    its module lists beyond the config's count. Others (another model's head) are unused, not wrong."""
    import torch

    modules = dict(model.named_modules())
    out = []
    for key in unexpected:
        parts = key.split(".")
        parent = ".".join(parts[:-1])
        if parent in modules:
            out.append(key)
            continue
        for cut in range(len(parts) - 2, 0, -1):  # the nearest module that exists above the key
            above = ".".join(parts[:cut])
            if above in modules:
                if isinstance(modules[above], torch.nn.ModuleList):
                    out.append(key)
                break
    return out


def check_complete(model: Any, info: dict, path: str, kind: str) -> None:
    """Refuse, in one line, a model whose checkpoint lacked weights it needs or held weights it has a place
    for but did not take (``info``: ``from_pretrained``'s loading report; ``kind``: lexprobe's)."""
    base_kind = kind in ("token", "embedding")
    missing = [k for k in info.get("missing_keys") or () if not any(b in k for b in BUFFERS)
               and not (base_kind and k.startswith(BASE_MAY_LACK))]
    mismatched = [f"{m[0]} (shape {tuple(m[1])} in the checkpoint, {tuple(m[2])} in the model)"
                  if isinstance(m, (tuple, list)) and len(m) == 3 else str(m) for m in info.get("mismatched_keys") or ()]
    misplaced = _misplaced(model, info.get("unexpected_keys") or ())
    if missing:
        prefix = getattr(model, "base_model_prefix", "") or ""
        has_body = bool(prefix) and hasattr(model, prefix)  # a model with a head around its base model
        head_only = has_body and not any(k.startswith(prefix + ".") for k in missing)
        if head_only and kind in ("masked", "causal"):
            raise ModelError(f"model {path!r} has no trained {kind}-LM head (its checkpoint lacks {_names(missing)}); "
                             f"use --kind embedding or token, or a checkpoint with a {kind}-LM head")
        raise ModelError(f"model {path!r} is incomplete: its checkpoint lacks {len(missing)} weight(s) the model "
                         f"needs ({_names(missing)}), which would be random; the file is damaged or from another "
                         "architecture: download or save the model again")
    if mismatched:
        raise ModelError(f"model {path!r}: weights of the wrong shape for its config ({_names(mismatched)}); the "
                         "checkpoint and its config.json do not belong together: download or save the model again")
    if misplaced:
        raise ModelError(f"model {path!r}: its checkpoint holds {len(misplaced)} weight(s) the model has a place for "
                         f"but does not take ({_names(misplaced)}); the checkpoint and its config.json do not belong "
                         "together: download or save the model again")
