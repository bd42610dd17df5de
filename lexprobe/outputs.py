"""Output locations are checked before any work starts, so no computed result is lost.

``check_output_file`` / ``check_output_dir`` create missing folders and probe them
with a temporary file *beside the target* (removed at once); a folder given as a
file, a file given as a folder, a read-only or impossible location are one-line
``OutputError``s naming the option and the fix.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from lexprobe.errors import OutputError


def _probe_dir(folder: Path, option: str, target: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{option} {target}: {folder} is a file, not a folder; choose another location") from None
    except OSError as err:
        raise OutputError(f"{option} {target}: cannot create folder {folder} ({err.strerror or err}); "
                          "choose a writable location") from None
    if not folder.is_dir():
        raise OutputError(f"{option} {target}: {folder} is not a folder; choose another location")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise OutputError(f"{option} {target}: folder {folder} is not writable ({err.strerror or err}); "
                          "choose a writable location") from None


def check_output_file(path: str | Path, option: str = "--out") -> Path:
    """``path`` can be written as a file: not a folder, and its folder exists (created) and is writable."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{option} {path} is a folder; give a file name, e.g. {path / 'result.json'}")
    if path.exists() and not os.access(path, os.W_OK) and not os.access(path.parent, os.W_OK):
        raise OutputError(f"{option} {path} is not writable; choose another file")
    _probe_dir(path.parent if str(path.parent) else Path("."), option, path)
    return path


def check_output_dir(path: str | Path, option: str = "--out-dir") -> Path:
    """``path`` is (or can be created as) a writable folder."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option} {path} is a file; give a folder")
    _probe_dir(path, option, path)
    return path
