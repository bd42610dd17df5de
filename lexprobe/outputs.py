"""Output locations are checked before any work starts, so no computed result is lost.

``check_output_file`` / ``check_output_dir`` create missing folders and probe them
with a temporary file *beside the target* (removed at once); a folder given as a
file, a file given as a folder, a read-only or impossible location are one-line
``OutputError``s naming the option and the fix.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator

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


#: what matplotlib writes (``savefig`` picks the format from the extension)
IMAGE_SUFFIXES = (".png", ".pdf", ".svg", ".svgz", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff", ".webp")


def check_image_file(path: str | Path, option: str = "--out") -> Path:
    """``check_output_file`` for a figure: its extension names an image format, checked before the work
    (``--plot x.json`` once failed in matplotlib after the whole evaluation)."""
    path = Path(path)
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        raise OutputError(f"{option} {path}: {path.suffix or 'no extension'} is not an image format; "
                          f"end the name with .png, .pdf or .svg")
    return check_output_file(path, option)


def check_output_dir(path: str | Path, option: str = "--out-dir") -> Path:
    """``path`` is (or can be created as) a writable folder."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option} {path} is a file; give a folder")
    _probe_dir(path, option, path)
    return path


# --- one writer per output ------------------------------------------------------------

def exclusive_lock(path: Path, busy: str) -> int:
    """An exclusive, non-blocking flock on ``path`` (created if needed): its descriptor, or one
    ``OutputBusyError`` line ``busy`` when another process holds it. Output lock, resume log and
    embedding store all take their locks here."""
    import fcntl

    from lexprobe.errors import OutputBusyError

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise OutputBusyError(busy) from None
    return fd


#: the lock of a command that fills a whole folder, inside it (the folder was checked writable, its parent
#: may not be: ``--out-dir /tmp``)
FOLDER_LOCK = ".lexprobe-writing.lock"


@contextlib.contextmanager
def output_lock(out: str | Path, option: str = "--out", folder: bool = False) -> Iterator[None]:
    """Hold ``<out>.lock`` for a whole command, taken before the data and the model load, so a second
    writer on the same ``--out`` stops at once (it once waited ~22 s for the model before the resume
    log's own lock refused it). Only rank 0 of a launcher's processes takes it.

    ``folder``: ``out`` is a folder the command fills (``lexprobe run --out-dir``, ``senserank
    finetune --out``; ``check_output_dir`` made it); the lock is ``FOLDER_LOCK`` inside it."""
    if os.environ.get("RANK", "0") not in ("", "0"):
        yield
        return
    out = Path(out)
    lock = out / FOLDER_LOCK if folder else out.with_name(out.name + ".lock")
    fd = exclusive_lock(lock, f"another lexprobe run is writing {out} (lock {lock.name} is held); wait for it "
                              f"to finish or pass another {option}")
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)


# --- outputs never overwrite inputs ------------------------------------------------------

def _paths(value) -> list[Path]:
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple, set)):
        return [p for v in value for p in _paths(v)]
    return [Path(value).expanduser()]


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: compare as written
        return Path(os.path.abspath(path))


def _same(a: Path, b: Path) -> bool:
    if _resolved(a) == _resolved(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links, bind mounts
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    path, folder = _resolved(path), _resolved(folder)
    return path == folder or folder in path.parents


def check_not_inputs(outputs: dict, inputs: dict | None = None, writes: dict | None = None) -> None:
    """Refuse (one ``OutputError``) an output that would overwrite an input or the data directory.

    ``outputs`` / ``inputs``: ``{option: path | [paths] | None}`` as the command got them
    (``{"--out": args.out}``, ``{"--data": args.data, "--model": args.model}``). Refused:
    an output that is an existing input (the same file or folder, through symlinks and
    hard links too), an existing file inside an input folder (``--out MODEL/config.json``),
    and any output inside the data directory (``lexprobe data`` manages it: an output
    there would replace a dataset that ``data list`` still calls verified). ``writes``:
    ``{output option: [file names]}`` for output folders, so that an input among the
    files the command writes there is caught too. Inputs that do not exist (a model
    name, a variant name) cannot be overwritten and are skipped.
    """
    from lexprobe.data_home import data_dir

    root = data_dir()
    existing_inputs = [(opt, p) for opt, v in (inputs or {}).items() for p in _paths(v) if os.path.lexists(p)]
    for option, value in outputs.items():
        for out in _paths(value):
            if _inside(out, root):
                raise OutputError(f"{option} {out} lies inside the data directory {root}, where `lexprobe data` "
                                  "keeps the datasets; write it somewhere else")
            targets = [out] + [out / name for name in (writes or {}).get(option, ())]
            for in_option, src in existing_inputs:
                for target in targets:
                    if _same(target, src):
                        raise OutputError(f"{option} {out} is the input {in_option} {src}: writing it would destroy "
                                          f"the input; choose another {option}")
                    if src.is_dir() and target.exists() and not target.is_dir() and _inside(target, src):
                        raise OutputError(f"{option} {out} would overwrite {target}, part of the input {in_option} "
                                          f"{src}; choose another {option}")


def disk_full(err: BaseException) -> bool:
    """``err`` says the disk (or the user's quota) is full."""
    import errno

    return isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)
