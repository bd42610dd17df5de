"""Installing files into the data directory: atomic copies, swapped-in folders, state files.

Shared by ``store`` (downloads) and ``importing`` (a user's copies), so neither imports the other's internals.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from lexprobe.data.locations import _state_file
from lexprobe.errors import DataError

Say = Callable[[str], None]


def _write_state(name: str, state: dict) -> None:
    from lexprobe.outputs import write_atomic

    write_atomic(_state_file(name), json.dumps(state, indent=1, sort_keys=True), one_line_errors=False)


@contextmanager
def disk_full_is_one_line(what: str):
    """A full disk while ``what`` becomes one ``DataError``; the callers' own cleanup has removed
    every partial file by then (``.part`` files and folders), so the data directory is as before."""
    try:
        yield
    except OSError as err:
        if err.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        raise DataError(f"no space left on the device while {what} ({err.strerror or err}); the partial files were "
                        "removed and the data directory is as it was: free some space (or set LEXPROBE_DATA to "
                        "another disk) and rerun") from None


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())


def _copy_file(src: Path, dest: Path) -> None:
    """Copy ``src`` to ``dest`` whole or not at all (``outputs.write_atomic``: never through a link at ``dest``)."""
    from lexprobe.outputs import write_atomic

    with open(src, "rb") as f:
        write_atomic(dest, lambda out: shutil.copyfileobj(f, out, 1 << 20), one_line_errors=False)


def install_copies(dest: Path, copies: list[tuple[Path, str | Path]]) -> None:
    """Copy each ``(source, relpath)`` into a folder built beside ``dest`` and swapped in."""
    def fill(tmp: Path) -> None:
        for src, rel in copies:
            put(tmp, rel, src)

    _install_tree(dest, fill)


def put(folder: Path, rel: str | Path, content: bytes | str | Path) -> Path:
    """One file of a folder being built (``_install_tree``'s ``fill``): bytes, text, or a copy of a source file,
    created new (``outputs.open_new``: never an existing name, never through a link)."""
    from lexprobe.outputs import open_new

    dest = folder / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open_new(dest) as out:
        if isinstance(content, Path):
            with open(content, "rb") as f:
                shutil.copyfileobj(f, out, 1 << 20)
        else:
            out.write(content.encode("utf-8") if isinstance(content, str) else content)
    return dest


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
