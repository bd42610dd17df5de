"""Is this path a regular file? A FIFO blocks a reader forever and ``/dev/zero`` never ends, so a named pipe,
a device or a socket is one ``DataError`` (asked by the readers and ``outputs.guard``)."""

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
