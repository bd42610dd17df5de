"""Is this path a regular file? In the foundation layer because both the readers (``data/``) and the
output guard (``outputs.guard``, layer 0) ask it: a FIFO blocks a reader forever and ``/dev/zero``
never ends, so a named pipe, a device or a socket is one ``DataError``. Folders and missing paths are
left to the caller, which has the better message."""

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
