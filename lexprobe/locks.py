"""The one lock of lexprobe: results (``<out>.lock``), resume logs, embedding stores, downloads, dataset fetches
and the human answer store all take theirs with ``take_lock``.

It is ``filelock``'s ``flock`` lock (``O_NOFOLLOW``: a link in its place is one line), released when the
process ends however it ends. A lock file is removed while still held, and ``filelock`` re-checks after
locking that its file is still in place, so two processes never both hold it (#33).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import Any, Callable, NoReturn

from lexprobe.errors import OutputBusyError, OutputError


class HeldLock:
    """A lock ``take_lock`` got: held until ``release()`` (or the process ends)."""

    def __init__(self, path: Path, lock: Any, identity: tuple[int, int]):
        self.path, self._lock, self._identity = path, lock, identity

    def release(self) -> None:
        """Remove the lock file *while still holding it* (if it is still the one locked), then let go: a
        process that opened it before finds it unlinked and retries on a fresh file."""
        if self._lock is None:
            return
        try:
            st = os.lstat(self.path)
            if (st.st_dev, st.st_ino) == self._identity:
                os.unlink(self.path)
        except OSError:
            pass  # gone already, or a read-only folder: the lock still works on the file
        finally:
            lock, self._lock = self._lock, None
            with contextlib.suppress(FileNotFoundError):  # (a soft lock's marker, where flock is missing)
                lock.release(force=True)

    def __enter__(self) -> "HeldLock":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def __del__(self) -> None:  # pragma: no cover - best effort (the process ending releases it anyway)
        with contextlib.suppress(Exception):
            self.release()


def raise_open_error(path: Path, err: OSError) -> NoReturn:
    """An ``O_NOFOLLOW`` open of an output that failed: a link or a non-file is one ``OutputError``; anything
    else is raised as it is."""
    if err.errno == errno.ELOOP:
        raise OutputError(f"{path} is a symbolic link; lexprobe never writes its files through links: "
                          "remove the link (or choose another output)") from None
    if err.errno in (errno.EISDIR, errno.ENXIO):
        raise OutputError(f"{path} is not a regular file; remove it or choose another output") from None
    raise err


def own_file(st: os.stat_result) -> bool:
    """A regular file with one name: an output lexprobe may write (not a device, not a hard link elsewhere)."""
    return stat.S_ISREG(st.st_mode) and st.st_nlink <= 1


def not_own_file(path: Path, st: os.stat_result) -> OutputError:
    what = "a hard link to another file" if stat.S_ISREG(st.st_mode) else "not a regular file"
    return OutputError(f"{path} is {what}; lexprobe never writes its files through links: remove it "
                       "(or choose another output)")


def take_lock(path: str | Path, busy: str | None = None, on_wait: Callable[[], None] | None = None) -> HeldLock:
    """The lock at ``path``. ``busy`` given: when another process holds it, one ``OutputBusyError`` line
    ``busy`` at once; else wait for it, calling ``on_wait()`` once first. Anything but a regular file in the
    lock's place is one ``OutputError``."""
    from filelock import FileLock, Timeout

    path = Path(path)
    lock = FileLock(path, timeout=0 if busy is not None or on_wait is not None else -1, thread_local=False)
    try:
        try:
            lock.acquire()
        except Timeout:
            if busy is not None:
                raise OutputBusyError(busy) from None
            if on_wait is not None:
                on_wait()
            lock.acquire(timeout=-1)
    except OSError as err:
        raise_open_error(path, err)
    st = os.lstat(path)
    if not own_file(st):
        lock.release(force=True)
        raise not_own_file(path, st)
    return HeldLock(path, lock, (st.st_dev, st.st_ino))
