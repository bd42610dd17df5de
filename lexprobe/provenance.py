"""Identities that make results comparable and resume logs safe.

A digest of the exact items evaluated and a revision of the model's weights, shared by resume logs (which
must never mix two inputs), the run record and ``compare``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from lexprobe.model_names import resolve_model_path

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".vec", ".txt", ".pt", ".gguf", ".npy", ".parquet")  # .npy/.parquet: packaged vectors


def items_digest(items: Any) -> str:
    """SHA-256 (hex) of a JSON-serialisable description of the exact items evaluated (what determines the
    scores, never file paths; ``default=str`` is the last resort)."""
    blob = json.dumps(items, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()  # same digest for UTF-8 text


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


_REVISION_CACHE: dict[tuple, str] = {}


def model_revision(name_or_path: str) -> str:
    """What exactly the weights were: a hub snapshot's commit, ``sha256:<hex>`` over a local folder's weight
    and config files (cached per process by path, size and mtime), a GGUF file's plain SHA-256 (as its
    publishers print it), or ``name:<name>`` for a name that is not a local path."""
    if name_or_path == "random":
        return "random"
    p = Path(name_or_path)
    if not p.exists():
        return f"name:{name_or_path}"
    p = p.resolve()
    if p.is_dir() and p.parent.name == "snapshots" and len(p.name) == 40:
        return f"hub:{p.name}"
    files = [p] if p.is_file() else sorted(
        f for f in p.rglob("*")
        if f.is_file() and (f.suffix in _WEIGHT_SUFFIXES or f.name.endswith(".json")) and ".cache" not in f.parts
    )
    key = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in files)
    if key not in _REVISION_CACHE and p.is_file() and p.suffix.lower() == ".gguf":
        _REVISION_CACHE[key] = "sha256:" + file_sha256(p)
    if key not in _REVISION_CACHE:
        h = hashlib.sha256()
        for f in files:
            rel = f.name if p.is_file() else str(f.relative_to(p))
            h.update(rel.encode() + b"\0" + file_sha256(f).encode() + b"\n")
        _REVISION_CACHE[key] = "sha256:" + h.hexdigest()
    return _REVISION_CACHE[key]


def scorer_revision(scorer: Any) -> str:
    """The weights' identity behind a loaded scorer (``model_revision`` of its source)."""
    name = getattr(scorer, "path", None) or getattr(scorer, "name", "")
    if getattr(scorer, "kind", "") == "random" or name == "random":
        return "random"
    if not Path(str(name)).exists():
        try:  # the default model's aliases map to the bundled copy
            name = resolve_model_path(str(name))
        except Exception:  # noqa: BLE001 - an unresolvable name stays a name
            pass
    return model_revision(str(name))


def scorer_options(scorer: Any) -> dict:
    """What of a loaded scorer changes its scores besides the weights: its description and dtype."""
    described = dict(scorer.describe()) if hasattr(scorer, "describe") else {"name": str(scorer)}
    model = getattr(scorer, "model", None)
    if model is not None and hasattr(model, "dtype"):
        described["dtype"] = str(model.dtype)
    return described
