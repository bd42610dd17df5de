"""Installing files into the data directory: atomic copies, swapped-in folders, state files, content checks.

Shared by ``store`` (downloads) and ``importing`` (a user's copies), so neither imports the other's
internals.
"""

from __future__ import annotations

import hashlib  # noqa: F401
import json
import os
import shutil
import time
from pathlib import Path
from typing import Callable

from lexprobe.data.locations import _state_file
from lexprobe.data.registry import Dataset
from lexprobe.errors import DataError

Say = Callable[[str], None]


def _write_state(name: str, state: dict) -> None:
    path = _state_file(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())


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


def _copy_file(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def _install_tree(dest: Path, fill: Callable[[Path], None]) -> None:
    """Build a folder beside ``dest`` and swap it in, so ``dest`` is never half written."""
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        fill(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if dest.exists():
        old = dest.with_name(dest.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(dest, old)
        shutil.rmtree(old, ignore_errors=True)
    os.replace(tmp, dest)


