"""An export's folder appears whole or not at all: written in a staging folder beside it, then renamed.

Why: a folder half written (a full disk, Ctrl-C) that looks like an export would be read back as one; and an
export never replaces what is there: ``--out`` must be new or empty (checked before any work), so a dataset
folder, an earlier export or a user's files are never overwritten.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Iterator

from lexprobe.errors import OutputError


def check_new(out: Path) -> None:
    """``out`` does not exist or is an empty folder; one ``OutputError`` otherwise (before any work)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise OutputError(f"--out {out} is not empty; give a new folder (an export never replaces files)")


@contextlib.contextmanager
def staged(out: Path) -> Iterator[Path]:
    """A staging folder beside ``out`` to write into; renamed to ``out`` when the block ends without an error,
    removed otherwise."""
    check_new(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.partial-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        yield tmp
        check_new(out)  # another export may have filled it meanwhile
        if out.exists():
            out.rmdir()
        os.rename(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
