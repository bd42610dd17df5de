"""What a command reads and writes, in one place: checked before any work, written so nothing is lost.

Path options are declared (``option(..., path=INPUT)`` or ``cli_common.path_arg``) and ``guard`` derives
every check from them: no output is an input or inside one, no two outputs are one file, inputs are regular
files, outputs are writable and short enough for their derived names. Whole files are written by
``write_atomic`` (temporary file, then a rename: a link is replaced, never written through); appended files
are opened with ``open_private`` (never through a link); ``set_aside`` never replaces an older file. What a
reader reads beside a declared input (a gold key file beside its data) is declared with it (``reads``); a folder
written whole (an export) is staged beside it and renamed in (``whole_folder``), its staging removed if its writer
was killed; a name from data becomes a path only through ``files_inside`` (one safe name per component, no two
the same however cased).
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, Union

from lexprobe.data_home import data_dir
from lexprobe.errors import OutputBusyError, OutputError
from lexprobe.locks import not_own_file, own_file, raise_open_error, take_lock
from lexprobe.regular_files import require_regular


def _probe_dir(folder: Path, option: str, target: Path, create: bool = True) -> None:
    if not create:  # probe the nearest folder that exists: nothing is left behind by a check
        while not os.path.lexists(folder) and folder.parent != folder:
            folder = folder.parent
    try:
        if create:
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


#: the longest name derived from an output's name (``<out>.layer-12.partial.jsonl.rank15.stale.99.lock``):
#: a name leaving no room for it is refused up front (ENAMETOOLONG once came after the model loaded, D17)
DERIVED_NAME_RESERVE = len(".layer-999.partial.jsonl.rank999.stale.999.lock")


def check_output_file(path: str | Path, option: str = "--out") -> Path:
    """``path`` can be written as a file: not a folder, and its folder exists (created) and is writable."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(f"{option} {path} is a folder; give a file name, e.g. {path / 'result.json'}")
    if path.exists() and not stat.S_ISREG(os.stat(path).st_mode):
        raise OutputError(f"{option} {path} is not a regular file (a pipe or a device); choose a file name")
    try:
        room = os.pathconf(folder if folder.exists() else ".", "PC_NAME_MAX") - DERIVED_NAME_RESERVE
    except (OSError, ValueError):
        room = 255 - DERIVED_NAME_RESERVE
    if len(os.fsencode(path.name)) > room:
        raise OutputError(f"{option} {path}: the name is {len(os.fsencode(path.name))} bytes long; lexprobe keeps "
                          f"files named after it beside it (resume logs, locks), so use at most {room} bytes")
    if path.exists() and not os.access(path, os.W_OK) and not os.access(path.parent, os.W_OK):
        raise OutputError(f"{option} {path} is not writable; choose another file")
    _probe_dir(folder, option, path)
    return path


#: what matplotlib writes (``savefig`` picks the format from the extension)
IMAGE_SUFFIXES = (".png", ".pdf", ".svg", ".svgz", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff", ".webp")


def check_image_file(path: str | Path, option: str = "--out") -> Path:
    """``check_output_file`` for a figure whose extension names an image format (``--plot x.json`` once
    failed in matplotlib after the whole evaluation)."""
    path = Path(path)
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        raise OutputError(f"{option} {path}: {path.suffix or 'no extension'} is not an image format; "
                          f"end the name with .png, .pdf or .svg")
    return check_output_file(path, option)


def check_output_dir(path: str | Path, option: str = "--out-dir", create: bool = True) -> Path:
    """``path`` is (or can be created as) a writable folder (``create``: created now)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option} {path} is a file; give a folder")
    _probe_dir(path, option, path, create)
    return path


# --- one writer of whole files ---------------------------------------------------------

#: what ``write_atomic`` writes: bytes, text (UTF-8), or a function that writes into the open binary file
Content = Union[bytes, str, Callable[[BinaryIO], Any]]


def write_atomic(path: str | Path, content: Content, *, one_line_errors: bool = True) -> Path:
    """The one way lexprobe writes a whole file: a synced temporary file in ``path``'s folder renamed over
    ``path``, so a link there is replaced, never written through (D3), and a failed write leaves no partial
    file. A full disk or a folder at ``path`` is one ``OutputError`` unless ``one_line_errors`` is False
    (a cache handles the ``OSError`` itself)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        if one_line_errors:
            raise_if_disk_full(err, path)
        raise
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(content):
                content(f)
            else:
                f.write(content.encode("utf-8") if isinstance(content, str) else content)
            f.flush()
            os.fsync(f.fileno())  # a full disk shows here, not after the rename
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; outputs are ordinary files
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)  # a temporary file lives beside its target or nowhere
        if isinstance(err, OSError) and one_line_errors:
            raise_if_disk_full(err, path)
            if isinstance(err, IsADirectoryError) or (err.errno == errno.ENOTEMPTY):
                raise OutputError(f"{path} is a folder; lexprobe writes a file there: remove the folder (or choose "
                                  "another output)") from None
        raise
    return path


def raise_if_disk_full(err: OSError, path: Path) -> None:
    """A full disk while writing ``path`` as one ``OutputError`` (other errors: nothing)."""
    if disk_full(err):
        raise OutputError(f"no space left on the device to write {path} ({err.strerror}); nothing was lost (no "
                          "partial file was left and an older file there is unchanged; nothing computed was lost: "
                          "finished units stay in the run's resume log): free some space and rerun the same command"
                          ) from None


def open_new(path: str | Path) -> BinaryIO:
    """A new file in a folder this process just made (``O_EXCL | O_NOFOLLOW``: a name there is an error)."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644), "wb")


@contextlib.contextmanager
def files_into(folder: str | Path) -> Iterator[Path]:
    """A staging folder inside ``folder`` for a library that writes files by name (``save_pretrained``);
    on success each file is renamed into ``folder`` (replacing a planted link, never following it)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with staging_folder(folder, "lexprobe-staging") as staging:
        yield staging
        for path in sorted(staging.rglob("*")):
            if path.is_dir() and not path.is_symlink():
                private_folder_in(folder, str(path.relative_to(staging)))
            elif path.is_file() and not path.is_symlink():
                os.replace(path, folder / path.relative_to(staging))


# --- staging folders and folders written whole ---------------------------------------------------

#: a staging folder's name (``.<name>.partial-<pid>``); its lock ``.<name>.partial-<pid>.lock`` beside it is held
#: while its writer lives, so a free lock means a writer killed (``kill -9``) before it could clean up
_STAGING = re.compile(r"\.(?P<name>.+)\.partial-(?P<pid>[0-9]+)")
_STAGING_LOCK = ".lock"


def remove_abandoned_staging(parent: Path) -> list[Path]:
    """Remove the staging folders in ``parent`` whose writer is gone (their lock is free: a process killed while
    it wrote them, D23), with their locks; a live writer's are left alone. Returns what was removed."""
    removed: list[Path] = []
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return removed
    for name in names:
        stem = name[: -len(_STAGING_LOCK)] if name.endswith(_STAGING_LOCK) else name
        if not _STAGING.fullmatch(stem) or (stem != name and stem in names):
            continue  # not a staging name, or a lock whose folder is visited itself
        folder = parent / stem
        if os.path.lexists(folder) and (folder.is_symlink() or not folder.is_dir()):
            continue  # not a folder lexprobe staged
        try:
            held = take_lock(parent / (stem + _STAGING_LOCK), busy="")
        except (OutputBusyError, OutputError, OSError):
            continue  # its writer is alive (or the lock is not lexprobe's)
        try:
            if os.path.lexists(folder):
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
        finally:
            held.release()
    return removed


@contextlib.contextmanager
def staging_folder(parent: Path, name: str) -> Iterator[Path]:
    """A new folder ``parent/.<name>.partial-<pid>`` to write into, its lock held while the block runs and the
    folder removed when it ends (whatever was not moved out of it); staging folders of writers that were killed
    are removed first (``remove_abandoned_staging``), so none is left for ever (D23)."""
    parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned_staging(parent)
    folder = parent / f".{name}.partial-{os.getpid()}"
    lock = take_lock(parent / (folder.name + _STAGING_LOCK), busy=f"this process is already writing {folder}")
    try:
        shutil.rmtree(folder, ignore_errors=True)  # a killed writer's that had this process id: its lock was free
        folder.mkdir()
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        lock.release()


def check_new_folder(path: str | Path, option: str = "--out") -> Path:
    """``path`` can become a folder written whole (``whole_folder``): nothing is there, or an empty folder. A link
    (to a folder too: the rename that puts the folder in place replaces a link, it never fills the folder the link
    names, D15), a file, or a folder holding anything is one ``OutputError`` (a folder written whole never replaces
    files)."""
    path = Path(path)
    if os.path.islink(path):
        raise OutputError(f"{option} {path} is a link; a folder written whole is put in place by renaming it, which "
                          f"would replace the link: give the folder itself ({os.path.realpath(path)}) or a new name")
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option} {path} is a file; give a new (or empty) folder")
    if path.is_dir() and any(path.iterdir()):
        raise OutputError(f"{option} {path} is not empty; give a new folder (a folder written whole never replaces "
                          "files)")
    return path


@contextlib.contextmanager
def whole_folder(out: str | Path, option: str = "--out") -> Iterator[Path]:
    """A folder that appears whole or not at all: written in a staging folder beside ``out`` (``staging_folder``),
    renamed to ``out`` when the block ends without an error, removed otherwise. Why: a folder half written (a full
    disk, Ctrl-C) that looks complete would be read back as complete; and ``out`` must be new or empty
    (``check_new_folder``, before any work and again before the rename), so nothing there is ever replaced."""
    out = Path(out)
    check_new_folder(out, option)
    with staging_folder(out.parent if str(out.parent) else Path("."), out.name) as folder:
        yield folder
        check_new_folder(out, option)  # another writer may have filled it meanwhile
        if out.exists():
            out.rmdir()
        os.rename(folder, out)


# --- names from data -------------------------------------------------------------------------------

#: a name from data that becomes one component of a path (an export's part folder, a task's file): letters, digits
#: and ``_ - . +``, starting with a letter or digit (no ``.``, ``..`` or hidden name), at most 100 characters;
#: nothing a glob reads (``datasets`` reads a card's files as patterns: ``*`` or ``[`` would pick other parts)
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}")
SAFE_NAME_RULE = "letters, digits, '_', '-', '.' and '+', starting with a letter or digit, at most 100"


def name_problem(name: Any) -> str | None:
    """Why ``name`` (from data) cannot be one component of a path lexprobe writes or reads; None when it can."""
    if not isinstance(name, str):
        return f"is not text ({type(name).__name__})"
    if not name:
        return "is empty"
    if "\x00" in name:
        return "holds a NUL byte"
    if "/" in name or "\\" in name:
        return "holds a path separator"
    if name.startswith("."):
        return "starts with '.' (a hidden name, or one that leads out of its folder)"
    if not SAFE_NAME.fullmatch(name):
        return f"is not {SAFE_NAME_RULE} characters"
    return None


def relative_path_problem(rel: Any) -> str | None:
    """Why ``rel`` (a '/'-separated relative path from data, as an export's manifest names its files) cannot name
    a file inside its folder; None when it can: every component a safe name (``name_problem``)."""
    if not isinstance(rel, str):
        return f"is not text ({type(rel).__name__})"
    if rel.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", rel):
        return "is absolute"
    parts = rel.split("/")
    for part in parts:
        problem = name_problem(part)
        if problem is not None:
            return problem if len(parts) == 1 else f"has a component {shown(part)} that {problem}"
    return None


def shown(text: Any, limit: int = 80) -> str:
    """``text`` from data as a message shows it: quoted, control characters and NUL escaped, cut to ``limit``."""
    quoted = repr(text) if isinstance(text, str) else repr(str(text))
    return quoted if len(quoted) <= limit else quoted[: limit - 4] + "...'"


def require_name(name: Any, what: str) -> str:
    """``name`` (from data) when it can be one component of a path (``name_problem``); one ``OutputError`` naming
    ``what`` it is otherwise (a WSD set named ``a/b`` is one name, never two folders)."""
    problem = name_problem(name)
    if problem is not None:
        raise OutputError(f"{what} {shown(name)} comes from the data and cannot name a file or folder: it {problem}; "
                          f"rename it in the data ({SAFE_NAME_RULE} characters)")
    return name


def files_inside(folder: Path, names: list[str], what: str) -> list[Path]:
    """``folder / name`` for each relative path ``names`` (names that come from data), refused in one
    ``OutputError`` before anything is written unless each is a safe relative path (``relative_path_problem``:
    no ``..``, nothing absolute, no separator or NUL in a name) and no two are one file, or a file and a folder,
    however their case is spelled (``ok`` and ``OK`` are one name on a case-insensitive file system: one part
    would replace the other)."""
    files: dict[str, str] = {}
    folders: dict[str, str] = {}
    for name in names:
        problem = relative_path_problem(name)
        if problem is not None:
            raise OutputError(f"{what} {shown(name)} comes from the data and cannot name a file: it {problem}; rename "
                              f"it in the data ({SAFE_NAME_RULE} characters)")
        key = name.casefold()
        parents = ["/".join(key.split("/")[:i]) for i in range(1, key.count("/") + 1)]
        clash = files.get(key) or folders.get(key) or next((files[p] for p in parents if p in files), None)
        if clash is not None:
            raise OutputError(f"{what}s {shown(clash)} and {shown(name)} would be one file (names differing only in "
                              "case are one on a case-insensitive file system); rename one of them in the data")
        files[key] = name
        folders.update({p: name for p in parents})
    return [folder / name for name in names]


def private_folder_in(parent: Path, name: str) -> Path:
    """``parent/name`` as a real folder (created), refused in one line when a link or a file is there."""
    folder = Path(parent) / name
    if os.path.islink(folder) or (os.path.lexists(folder) and not folder.is_dir()):
        raise OutputError(f"{folder} is a link or a file, not a folder; lexprobe writes its files there only into "
                          "a folder of its own: remove it (or choose another output)")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_private(path: str | Path, flags: int = os.O_RDWR, mode: int = 0o644) -> int:
    """Open (creating it) a file lexprobe owns beside an output (a lock, a resume log), never through a
    symlink or a hard link, nor anything but a regular file (D6): one ``OutputError`` otherwise."""
    path = Path(path)
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0), mode)
    except OSError as err:
        raise_open_error(path, err)
    st = os.fstat(fd)
    if not own_file(st):
        os.close(fd)
        raise not_own_file(path, st)
    os.set_blocking(fd, True)
    return fd


def set_aside(path: str | Path, suffix: str = ".stale") -> Path:
    """Move ``path`` to ``<path>.stale`` (or ``.stale.1``, ``.stale.2``, ...), never onto an older one (D1)."""
    path = Path(path)
    for n in range(100000):
        target = path.with_name(path.name + suffix + (f".{n}" if n else ""))
        if os.path.lexists(target):
            continue
        try:
            if path.is_dir() and not path.is_symlink():
                os.rename(path, target)  # onto a non-empty folder this fails; it never replaces one
            else:
                os.link(path, target, follow_symlinks=False)  # fails if target exists: no overwrite
                os.unlink(path)
        except FileExistsError:
            continue
        except OSError as err:
            if err.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
                continue
            if err.errno in (errno.EPERM, errno.EXDEV, errno.EMLINK) and not path.is_dir():
                if os.path.lexists(target):
                    continue
                os.rename(path, target)  # a file system without hard links: checked just above
            else:
                raise
        return target
    raise OutputError(f"cannot set {path} aside: {path}{suffix}.N exist up to 99999; remove some of them")


def sibling_files(path: Path, suffix: str = ".stale") -> list[Path]:
    """``<path>.stale``, ``<path>.stale.1``, ... that exist (what ``set_aside`` made), oldest first."""
    found = []
    if path.parent.exists():
        for p in path.parent.iterdir():
            rest = p.name[len(path.name + suffix):] if p.name.startswith(path.name + suffix) else None
            if rest == "" or (rest and rest[0] == "." and rest[1:].isdigit() and rest[1:].isascii()):
                found.append((int(rest[1:] or 0) if rest else 0, p))
    return [p for _, p in sorted(found)]


#: the lock of a command that fills a whole folder, inside it (its parent may not be writable)
FOLDER_LOCK = ".lexprobe-writing.lock"


@contextlib.contextmanager
def output_lock(out: str | Path, option: str = "--out", folder: bool = False) -> Iterator[None]:
    """Hold ``<out>.lock`` (``FOLDER_LOCK`` inside ``out`` when ``folder``) for a whole command, before the
    model loads, so a second writer stops at once. Only rank 0 of a launcher takes it; re-entrant."""
    if os.environ.get("RANK", "0") not in ("", "0"):
        yield
        return
    out = Path(out)
    lock = out / FOLDER_LOCK if folder else out.with_name(out.name + ".lock")
    held = os.path.abspath(lock)
    if held in _HELD:  # ``eval`` holds it, then ``evaluate`` asks again
        yield
        return
    handle = take_lock(lock, f"another lexprobe run is writing {out} (lock {lock.name} is held); wait for it "
                             f"to finish or pass another {option}")
    _HELD.add(held)
    try:
        yield
    finally:
        _HELD.discard(held)
        handle.release()


#: whether an output holding another job's result may be replaced (``lexprobe run --overwrite``)
_OVERWRITE: contextvars.ContextVar[bool] = contextvars.ContextVar("lexprobe_overwrite", default=False)


@contextlib.contextmanager
def overwriting(allowed: bool) -> Iterator[None]:
    """Within the block, ``evaluate`` may replace results of other jobs (``--overwrite``)."""
    token = _OVERWRITE.set(bool(allowed))
    try:
        yield
    finally:
        _OVERWRITE.reset(token)


def overwrite_allowed() -> bool:
    return _OVERWRITE.get()


#: output locks this process holds (D4)
_HELD: set[str] = set()


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


def same_file(a: Path, b: Path) -> bool:
    """``a`` and ``b`` are one file, however spelled (links, ``..``, hard links)."""
    return _same(Path(a), Path(b))


def _inside(path: Path, folder: Path) -> bool:
    path, folder = _resolved(path), _resolved(folder)
    return path == folder or folder in path.parents


def check_not_inputs(outputs: dict, inputs: dict | None = None, writes: dict | None = None,
                     open_folders: tuple[str, ...] = ()) -> None:
    """Refuse (one ``OutputError``) an output that is an existing input (through links too), lies inside an
    input folder (read whole: ``--out TOKENIZER/tokenizer.json`` once replaced the tokenizer, D2) or inside
    the data directory. ``outputs``/``inputs``: ``{option: path | [paths] | None}``; ``open_folders``: input
    options whose folders may hold outputs (only an existing file there is refused); ``writes``: ``{output
    option: [file names]}`` written inside output folders."""
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
                                          f"the input; choose another {option.split(' (')[0]}")
                    if not src.is_dir() or not _inside(target, src):
                        continue
                    if in_option not in open_folders:
                        raise OutputError(f"{option} {out} lies inside the input {in_option} {src}, which is read "
                                          f"as a whole; write it outside that folder")
                    if target.exists() and not target.is_dir():
                        raise OutputError(f"{option} {out} would overwrite {target}, part of the input {in_option} "
                                          f"{src}; choose another {option}")


def check_distinct_outputs(outputs: list[tuple[str, Path]]) -> None:
    """No two outputs are the same name in the same folder, however spelled (D4). Two names linked to one file
    are two outputs: each is written by a rename, which replaces the link."""
    def entry(path: Path) -> tuple[Path, str]:
        return _resolved(path.parent if str(path.parent) else Path(".")), path.name

    seen: list[tuple[str, Path]] = []
    for option, path in outputs:
        for other_option, other in seen:
            if entry(path) == entry(other):
                both = option if option == other_option else f"{other_option} {other} and {option}"
                raise OutputError(f"{both} {path} name the same file: one output would overwrite the other; "
                                  "give each its own name")
        seen.append((option, path))


# --- declared path options -------------------------------------------------------------

#: what a path option is: read, a file written, a figure drawn, a folder filled
INPUT, OUTPUT, IMAGE, OUTPUT_DIR = "input", "output", "image", "output_dir"
PATH_KINDS = (INPUT, OUTPUT, IMAGE, OUTPUT_DIR)


@dataclass(frozen=True)
class PathOption:
    """One declared path option with the value it got (``option(path=...)`` or ``cli_common.path_arg``)."""
    option: str  #: as the user wrote it: ``--out``, ``RESULT``
    kind: str  #: INPUT, OUTPUT, IMAGE or OUTPUT_DIR
    value: Any  #: a path, several, or None
    writes: tuple[str, ...] = ()  #: OUTPUT_DIR: the files the command writes inside
    #: INPUT: a folder that may hold this command's outputs (``report RESULTS --out RESULTS/report``)
    outputs_inside: bool = False
    #: INPUT: what its reader reads beside a value, ``path -> {what: path}`` (the gold key file beside a WSD
    #: ``<name>.data.xml``; the whole export of an export's sub-folder): inputs too, no output may replace them
    reads: Callable[[Path], dict[str, Path]] | None = None
    #: OUTPUT_DIR: a folder written whole (``whole_folder``): new or empty, never a link (``check_new_folder``)
    new: bool = False


def read_beside(declared: list[PathOption]) -> list[PathOption]:
    """The inputs an INPUT option's reader reads beside its value (``PathOption.reads``), as INPUT options named
    ``<option> (<what>)``: a file read but not declared was once replaced by an output (the WSD gold key file, D1)."""
    return [PathOption(f"{d.option} ({what})", INPUT, path) for d in declared if d.kind == INPUT and d.reads
            for value in _paths(d.value) for what, path in d.reads(value).items()]


def guard(declared: list[PathOption], checked: dict[str, Any] | None = None) -> None:
    """Every check a command's declared paths need, before any work (see the module docstring).
    ``checked``: input options an earlier guard checked, with their values: not checked again."""
    declared = list(declared) + read_beside(declared)
    outputs = {d.option: d.value for d in declared if d.kind in (OUTPUT, IMAGE, OUTPUT_DIR) and _paths(d.value)}
    inputs = {d.option: d.value for d in declared if d.kind == INPUT and _paths(d.value)}
    check_not_inputs(outputs, inputs, writes={d.option: d.writes for d in declared if d.writes},
                     open_folders=tuple(d.option for d in declared if d.kind == INPUT and d.outputs_inside))
    check_distinct_outputs([(d.option, p) for d in declared if d.kind in (OUTPUT, IMAGE) for p in _paths(d.value)]
                           + [(d.option, p / name) for d in declared if d.kind == OUTPUT_DIR for p in _paths(d.value)
                              for name in d.writes])
    for d in declared:
        for path in _paths(d.value):
            if d.kind == INPUT:
                if d.option not in (checked or {}) or (checked or {})[d.option] != d.value:
                    require_regular(path, f"pass a regular file as {d.option}")
            elif d.kind == OUTPUT:
                check_output_file(path, d.option)
            elif d.kind == IMAGE:
                check_image_file(path, d.option)
            elif d.kind == OUTPUT_DIR:
                if d.new:
                    check_new_folder(path, d.option)
                check_output_dir(path, d.option, create=False)  # made by the command, once its inputs are read
            else:
                raise ValueError(f"unknown path kind {d.kind!r} of {d.option}")


def make_output_dir(path: str | Path, option: str) -> Path:
    """Create a declared output folder once the inputs are read (``guard`` made nothing)."""
    return check_output_dir(path, option, create=True)


def disk_full(err: BaseException) -> bool:
    """``err`` says the disk (or the user's quota) is full."""
    return isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)
