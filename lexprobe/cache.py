"""Where lexprobe keeps caches, and an append-only log that makes long runs resumable.

A run writes each finished unit to ``<out>.partial.jsonl`` as soon as it is done; a rerun skips them.
The log's first line records the run's *key* (``resume_key``: the items evaluated, the model's weights
hash, the method, every option that changes a score); a log of another key is set aside as
``<log>.stale[.N]`` (never replaced) and one set aside earlier under this key is resumed. Every unit
line carries the key's digest: a line of another job, or a unit logged twice with different records, is
dropped with a notice and computed again. ``<log>.lock`` is held while the log is written.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Mapping, TypedDict, TypeVar

from lexprobe.errors import DataError, OutputError
from lexprobe.locks import take_lock
from lexprobe.outputs import disk_full, open_private, set_aside, sibling_files, write_atomic
from lexprobe.provenance import items_digest, scorer_options, scorer_revision  # noqa: F401  (their former home)
from lexprobe.redaction import redact_tree
from lexprobe.validation import problems

#: /3 lines carry their job's key digest; /2 logs are still read, their lines taken on the header's word
LOG_FORMAT = "lexprobe-resume/3"
LEGACY_LOG_FORMAT = "lexprobe-resume/2"


def cache_dir() -> Path:
    """``$LEXPROBE_CACHE`` or ``~/.cache/lexprobe``, created on demand; a read-only cache is read and
    nothing new is stored (one notice, D16)."""
    root = Path(os.environ.get("LEXPROBE_CACHE", Path.home() / ".cache" / "lexprobe"))
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        cache_not_writable(root, err)
    return root


_NOTICED: set[str] = set()


def cache_not_writable(path: Path, err: OSError) -> None:
    """One notice per process: the cache cannot be written, the work goes on without storing entries."""
    if "cache" in _NOTICED:
        return
    _NOTICED.add("cache")
    print(f"lexprobe: the cache cannot be written ({path}: {err.strerror or err}); working without storing "
          "new entries (set LEXPROBE_CACHE to a writable folder to keep them)", file=sys.stderr, flush=True)


def private_folder(prefix: str) -> Path:
    """A temporary folder removed at exit, for what a read-only cache cannot keep (D16)."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(folder)


def read_cache_file(path: Path) -> bytes | None:
    """A cache file's bytes, or None when it is missing, not a regular file or a link (never followed)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return f.read()


def write_cache_file(path: Path, data: bytes) -> bool:
    """Store a cache file with ``outputs.write_atomic`` (D21); False, with one notice, when it cannot be
    written (read-only, full): the caller goes on."""
    try:
        write_atomic(path, data, one_line_errors=False)
    except OSError as err:
        cache_not_writable(path.parent, err)
        return False
    return True


T = TypeVar("T")

#: what a cache file may raise while it is read, parsed and turned into its value: the file is then unusable
_UNUSABLE = (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError, DataError)
#: the first line of every cache entry: this format, the digest of its inputs and of the rest of the file
CACHE_FORMAT = "lexprobe-cache/1"


def cached_json(path: Path, spec: Any, compute: Callable[[], T], *, inputs: Any,
                read: Callable[[Any], T | None] | None = None, stored: Callable[[T], Any] | None = None,
                notice: Callable[[str], None] | None = None) -> T:
    """The value cached as JSON at ``path``, else ``compute()``'s, stored there for next time.

    Why one function: WDLMPro's groups and statistics, CoDA21's builds and SemCor's sentences each read,
    checked and wrote their cache file their own way. Here a file is read only when it is a regular file (never
    through a link: ``read_cache_file``), and only when it says it was built from these ``inputs`` (anything
    JSON can hold: WordNet's fingerprint, the options, the part of speech; stored as its digest) and its content
    is still what was stored (its SHA-256 on the entry's first line, ``cache_entry``): an entry trusted by its
    file name alone once scored verb groups as nouns after two files were swapped, and an edited definition was
    used silently. It is then parsed, checked against ``spec`` (``validation.problems``: a value of another type
    would become a candidate's text) and turned into the value by ``read`` (default: the JSON as it is; never a
    pickle: a planted one once ran code). An entry of other inputs, changed, foreign or ill-shaped (``read``
    returning None or raising one of ``_UNUSABLE``) is computed again and replaced, with one notice (``notice``,
    default stderr); a missing one is computed silently. ``stored(value)`` (default: the value) is written by
    ``write_cache_file``: a unique temporary name renamed into place, so two first runs never share one; a
    read-only cache is one notice and the value is used without storing it."""
    say = notice or (lambda line: print(f"lexprobe: {line}", file=sys.stderr, flush=True))
    value, why = _read_cached(path, spec, read, stable_hash(inputs, 64))
    if value is not None:
        return value
    if why:
        say(f"the cache entry {path} {why}; building it again")
    value = compute()
    write_cache_file(path, cache_entry(value if stored is None else stored(value), inputs))
    return value


def cache_entry(data: Any, inputs: Any) -> bytes:
    """A cache file's bytes: a first line naming ``CACHE_FORMAT``, the digest of ``inputs`` and the SHA-256 of
    the rest, then ``data`` as JSON."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    header = {"format": CACHE_FORMAT, "inputs": stable_hash(inputs, 64), "sha256": hashlib.sha256(body).hexdigest()}
    return json.dumps(header).encode("ascii") + b"\n" + body


def _read_cached(path: Path, spec: Any, read: Callable[[Any], T | None] | None, inputs: str) -> tuple[T | None, str]:
    """(the value of the cache file at ``path``, "") when it is usable (``cached_json``), else (None, why not:
    empty when there is no file)."""
    raw = read_cache_file(path)
    if raw is None:
        return None, ""
    first, _, body = raw.partition(b"\n")
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, dict) or header.get("format") != CACHE_FORMAT:
        return None, "is not a lexprobe cache entry of this version"
    if header.get("inputs") != inputs:
        return None, "was built from other inputs than this run's"
    if header.get("sha256") != hashlib.sha256(body).hexdigest():
        return None, "was changed after it was stored (its SHA-256 differs)"
    try:
        data = json.loads(body)
        if problems(data, spec):
            return None, "does not hold what it should"
        value = data if read is None else read(data)
    except _UNUSABLE:
        value = None
    return (value, "") if value is not None else (None, "does not hold what it should")


#: another process's ``<name>.<pid>.tmp`` is swept once that process is gone and it is this old (a shared
#: cache may be written from another machine)
STALE_TMP_AGE_S = 600


def sweep_dead_tmp(folder: Path) -> None:
    """Remove ``<name>.<pid>.tmp`` entries of ended processes (D23); errors are ignored."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for path in entries:
        m = re.fullmatch(r".+\.(\d+)\.tmp", path.name)
        if not m or int(m.group(1)) == os.getpid() or _alive(int(m.group(1))):
            continue
        try:
            times = [path.lstat().st_mtime] + [p.lstat().st_mtime for p in path.rglob("*")]
        except OSError:
            continue
        if time.time() - max(times) < STALE_TMP_AGE_S:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        pass  # another user's process (or no such number): leave it alone
    return True


def terminate_raises() -> Callable[[], None]:
    """Until the returned function is called, SIGTERM raises ``SystemExit(143)`` in the main thread, so
    ``finally`` blocks removing temporary files run (D23)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


def stable_hash(obj: Any, length: int = 16) -> str:
    """Hash of a JSON-serialisable object that does not depend on dict order."""
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:length]  # argv bytes (D3)


def resume_key(items: Any, model: str, method: str | None = None, options: Mapping | None = None) -> dict:
    """The identity of a run: what a resume log (or cache) must match to be reused. ``model``: a revision
    (``provenance``); ``method``: "<method>/<recipe>", stored as ``protocol`` so older logs still resume."""
    return {"items": items_digest(items), "model": model, "protocol": method, "options": dict(options or {})}


class ResumeLog:
    """Append-only JSONL log of finished units, keyed by a unit id, locked while in use.

    >>> with ResumeLog(partial_path(out), resume_key(items, revision, "likelihood/paper", options)) as log:  # doctest: +SKIP
    ...     done = log.load()                 # {unit_id: record}; a stale log is set aside
    ...     log.append(unit_id, record)       # flushed and fsynced line by line
    ...     write_json(out, result); log.finish()   # the result exists: drop the log

    Without ``with`` the lock is taken by ``load``/``append`` and released by ``finish``/``close``.
    Several logs (one per stage) can sit beside one output as ``partial_path(out, stage)``.
    """

    def __init__(self, path: str | Path, key: Any, notice: Callable[[str], None] | None = None,
                 record: Any = Any):
        self.path = Path(path)
        self.key = key
        #: the shape of a unit's record (a ``validation`` spec): another shape is an invalid line, recomputed
        self.record = record
        self.key_hash = stable_hash(key, length=64)
        #: what every unit line carries: its job's key digest (a line of another job is refused, D13)
        self.line_key = self.key_hash[:LINE_KEY_LENGTH]
        self.notice = notice or (lambda msg: print(f"lexprobe: {msg}", file=sys.stderr, flush=True))
        self._lock: Any = None

    # --- locking -------------------------------------------------------------------
    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def acquire(self) -> None:
        if self._lock is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = take_lock(self.lock_path, f"another lexprobe run is writing {self.path} (lock "
                                               f"{self.lock_path.name} is held); wait for it to finish or pass another --out")
        if os.path.lexists(self.path):  # a link in the log's place is refused now, before any work (D6)
            try:
                os.close(open_private(self.path, os.O_RDONLY))
            except BaseException:
                self.close()
                raise

    def close(self) -> None:
        """Release the lock (the log stays for a later resume)."""
        if self._lock is None:
            return
        lock, self._lock = self._lock, None
        lock.release()

    def __enter__(self) -> "ResumeLog":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):  # pragma: no cover - best effort
        with contextlib.suppress(Exception):
            self.close()

    # --- reading and writing ----------------------------------------------------------
    def load(self) -> dict[str, Any]:
        """Finished units of a log written under the same key; a stale log is set aside. Lines of another job,
        invalid lines and units logged twice with different records are reported, dropped and recomputed."""
        self.acquire()
        if not self.path.exists():
            return {}
        done: dict[str, Any] = {}
        kept: list[tuple[str, bytes]] = []  # (unit id, raw line) of the good lines, in order
        good_end = 0
        invalid: list[str] = []
        with self._open(os.O_RDONLY, "rb") as f:
            header_raw = f.readline()
            header = _parsed_line(header_raw)
            if not self._ours(header):
                f.close()
                self._set_aside(header)
                if not self.path.exists():
                    return {}
                return self.load()  # an earlier log of this very run, set aside before, is back
            legacy = header.get("format") == LEGACY_LOG_FORMAT
            good_end = f.tell()
            spec = _line_spec(self.record)
            conflicts: set[str] = set()
            for number, raw in enumerate(f, start=2):
                if not raw.endswith(b"\n"):
                    break  # a line cut off by an interruption; everything before it is good
                good_end += len(raw)
                if not raw.strip():
                    continue
                entry = _parsed_line(raw)
                wrong = ["not JSON"] if entry is _INVALID else self._line_problems(entry, spec, legacy)
                if wrong:  # a damaged or foreign line: its unit is computed again
                    invalid.append(f"line {number}: {'; '.join(wrong[:2])}")
                    continue
                uid, record = entry["id"], entry["record"]
                if uid in done and not same_record(done[uid], record):
                    conflicts.add(uid)
                done[uid] = record
                kept.append((uid, raw))
        if conflicts:
            self.notice(f"resume log {self.path.name}: {len(conflicts)} unit(s) logged twice with different records "
                        f"(e.g. {sorted(conflicts)[0]!r}) ignored; they are computed again")
            for uid in conflicts:
                del done[uid]
        if invalid:
            self.notice(f"resume log {self.path.name}: {len(invalid)} invalid line(s) ignored ({invalid[0]}"
                        f"{', ...' if len(invalid) > 1 else ''}); their units are computed again")
        if invalid or conflicts:  # dropped from the log, so a rerun neither reports nor weighs them again
            write_atomic(self.path, header_raw + b"".join(raw for uid, raw in kept if uid not in conflicts))
        elif good_end < self.path.stat().st_size:
            os.truncate(self.path, good_end)  # the next append starts on a clean line
        return done

    def _ours(self, header: Any) -> bool:
        return (isinstance(header, dict) and header.get("key_hash") == self.key_hash
                and header.get("format") in (LOG_FORMAT, LEGACY_LOG_FORMAT))

    def _line_problems(self, entry: Any, spec: Any, legacy: bool) -> list[str]:
        """What is wrong with one unit line: its shape, or another job's key digest (none: only in a /2 log)."""
        if isinstance(entry, dict) and ("key" in entry or not legacy):
            if entry.get("key") != self.line_key:
                return ["written for another job (its key differs)" if "key" in entry else "no job key"]
            entry = {k: v for k, v in entry.items() if k != "key"}
        return problems(entry, spec)

    def drop(self, units: set[str]) -> None:
        """Remove every line of ``units`` from the log (a unit two rank logs hold with different records)."""
        self.acquire()
        if not units or not self.path.exists():
            return
        with self._open(os.O_RDONLY, "rb") as f:
            header_raw, lines = f.readline(), [raw for raw in f if raw.endswith(b"\n")]
        keep = []
        for raw in lines:
            entry = _parsed_line(raw)
            if not (isinstance(entry, dict) and entry.get("id") in units):
                keep.append(raw)
        write_atomic(self.path, header_raw + b"".join(keep))

    def _open(self, flags: int, mode: str):
        """The log, never through a link (``outputs.open_private``)."""
        return os.fdopen(open_private(self.path, flags), mode, encoding=None if "b" in mode else "utf-8")

    def _set_aside(self, header: Any) -> None:
        """Set a log of other settings aside, and bring back one of this run's key (A -> B -> A resumes A, D1)."""
        earlier = [p for p in sibling_files(self.path) if self._ours(_header_of(p))]
        stale = set_aside(self.path)
        old = header.get("key") if isinstance(header, dict) else None
        if isinstance(old, dict) and isinstance(self.key, dict) and old != self.key:
            changed = [k for k in sorted(set(old) | set(self.key)) if old.get(k) != self.key.get(k)]
            why = f"different {', '.join(changed) or 'settings'}"
        else:
            why = "an older format or other settings"
        if earlier:
            os.rename(earlier[-1], self.path)  # the path was just moved away: nothing is replaced
            self.notice(f"resume log {self.path.name} was written for {why}; set aside as {stale.name}, and "
                        f"{earlier[-1].name}, written for these settings, resumed")
            return
        self.notice(f"resume log {self.path.name} was written for {why}; set aside as {stale.name}, starting afresh")

    def append(self, unit_id: str, record: Any) -> None:
        """Add one finished unit; on a full disk the log is cut back to its last whole line and the run stops
        with one line (a rerun resumes from the units logged)."""
        self.acquire()
        line = _json_line({"id": unit_id, "key": self.line_key, "record": record})
        size = self.path.stat().st_size if self.path.exists() else 0
        try:
            with self._open(os.O_WRONLY | os.O_APPEND, "a") as f:
                if size == 0:
                    f.write(_json_line({"format": LOG_FORMAT, "key_hash": self.key_hash, "key": self.key}))
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
        except OSError as err:
            if not disk_full(err):
                raise
            try:
                os.truncate(self.path, size)
            except OSError:
                pass  # load() drops a cut line anyway
            raise OutputError(f"no space left on the device to extend the resume log {self.path} ({err.strerror}); "
                              "every unit finished before is kept in it: free some space and rerun the same "
                              "command to continue from them") from None

    def finish(self) -> None:
        """The final result is written: remove the log and release the lock."""
        self.path.unlink(missing_ok=True)
        self.close()


#: hex digits of the key digest on every unit line (64 bits: two jobs never share one by chance)
LINE_KEY_LENGTH = 16


def same_record(a: Any, b: Any) -> bool:
    """Two logged records are the same (as JSON: a NaN equals a NaN)."""
    def canonical(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)

    return canonical(a) == canonical(b)


def _json_line(obj: Any) -> str:
    """One JSON line UTF-8 can hold (argv bytes that are not UTF-8 are escaped, D3), every string redacted
    (no secret reaches a resume log, #33 D7)."""
    obj = redact_tree(obj)
    line = json.dumps(obj, ensure_ascii=False, default=str)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(obj, ensure_ascii=True, default=str)
    return line + "\n"


def _header_of(path: Path) -> dict:
    """The first line of a (set-aside) log as a dict; {} when unreadable."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return {}
        with path.open("rb") as f:
            header = _parsed_line(f.readline(1 << 20))
    except OSError:
        return {}
    return header if isinstance(header, dict) else {}


_INVALID = object()


def _parsed_line(raw: bytes) -> Any:
    """A log line's JSON value, or ``_INVALID`` (bad UTF-8 or JSON, too deep, an integer over the digit limit)."""
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return _INVALID


def _line_spec(record: Any) -> Any:
    """The shape of one unit line: ``{"id": str, "record": <record>}``."""
    return TypedDict("LogLine", {"id": str, "record": record})  # type: ignore[operator]


def partial_path(out: str | Path, stage: str | None = None) -> Path:
    """``<out>.partial.jsonl`` (or ``<out>.<stage>.partial.jsonl``), beside the output."""
    out = Path(out)
    return out.with_name(out.name + (f".{stage}" if stage else "") + ".partial.jsonl")
