"""Input files must be regular files: a FIFO blocks a reader forever and ``/dev/zero`` never ends.

``require_regular`` is called by every reader before it opens a file (and by ``data
import`` for every source): a named pipe, a device or a socket is one ``DataError``.
Folders and missing paths are left to the caller, which has the better message.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from lexprobe.errors import DataError

_KINDS = {stat.S_ISFIFO: "a named pipe (FIFO)", stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device",
          stat.S_ISSOCK: "a socket"}


def require_regular(path: str | Path, fix: str = "pass a regular file") -> Path:
    """``path`` itself when it is a regular file, a folder or missing; one ``DataError`` otherwise."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return path  # missing or unreadable: the reader says so in its own words
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return path
    kind = next((name for test, name in _KINDS.items() if test(mode)), "not a regular file")
    raise DataError(f"{path} is {kind}, not a regular file: reading it would never end; {fix}")


def unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` for ``json.loads``: a key twice in one object is an error, not 'the
    last one wins' (a CoDA21 file with ``"n"`` twice would silently lose its first noun groups)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice = None
        for key, _ in pairs:
            if key in seen:
                twice = key
                break
            seen.add(key)
        raise ValueError(f"duplicate key {twice!r} in one JSON object")
    return out
