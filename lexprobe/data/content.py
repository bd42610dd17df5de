"""The SemCor content digest: a NAF archive, tar.xz or unpacked tree is the pinned corpus or not.

Used by ``store`` and ``importing``; it reads with the SemCor reader, so it sits above ``semcor.py`` (no cycles).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from lexprobe.data.registry import Dataset
from lexprobe.errors import DataError


def naf_content_digest(path: Path) -> tuple[str, int]:
    """SHA-256 over ``relpath<TAB>sha256(bytes)`` lines of the SemCor NAF documents, sorted,
    and their number: the same for the repository archive, a tar.xz or an unpacked tree."""
    from lexprobe.data.semcor import iter_naf_members

    lines = sorted(f"{rel}\t{hashlib.sha256(data).hexdigest()}\n" for rel, data in iter_naf_members(path))
    if not lines:
        raise DataError(f"no SemCor NAF documents in {path}")
    return hashlib.sha256("".join(lines).encode()).hexdigest(), len(lines)


def _check_content(ds: Dataset, path: Path, shown: str) -> None:
    if not ds.content_sha256:
        return
    digest, n = naf_content_digest(path)
    if digest != ds.content_sha256:
        raise DataError(
            f"{shown} is not {ds.title} at {ds.pin[:12]}: its {n} NAF documents have content digest "
            f"{digest[:16]}..., expected {ds.content_sha256[:16]}... (352 documents)"
        )
