"""Installing files into the data directory: atomic copies, swapped-in folders, state files, content checks.

Shared by ``store`` (downloads) and ``importing`` (a user's copies), so neither imports the other's
internals.
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
    path = _state_file(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    try:
        tmp.write_text(json.dumps(state, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


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
