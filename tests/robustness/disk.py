"""A folder on a (nearly) full disk, for the ENOSPC tests of issue #19.

As root, ``full_folder`` mounts a real 2 MB tmpfs and fills it up to ``free`` bytes:
the kernel's own ENOSPC, wherever the code writes. Without the right to mount, it
simulates the same: Python-level writes (``open``, ``io.open``, ``os.fdopen``, and
``shutil`` copies, which are made to go through them) into the folder raise
``OSError(ENOSPC)`` once ``free`` bytes are used. ``full_folder.mode`` says which.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

SIZE = "2m"


def _mount(path: Path) -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(path)],
                          capture_output=True)
    return done.returncode == 0


def _fill(path: Path, free: int) -> None:
    st = os.statvfs(path)
    avail = st.f_bavail * st.f_frsize
    with open(path / "filler", "wb") as f:
        f.write(b"\0" * max(0, avail - free))


class _Budget:
    def __init__(self, root: Path, free: int):
        self.root, self.left = root.resolve(), free

    def covers(self, name) -> bool:
        try:
            p = Path(name).resolve()
        except (TypeError, OSError):
            return False
        return p == self.root or self.root in p.parents


class _FullFile:
    """A file object whose writes draw on the budget (ENOSPC once it is spent)."""

    def __init__(self, f, budget: _Budget):
        self._f, self._budget = f, budget

    def write(self, data):
        n = len(data.encode("utf-8") if isinstance(data, str) else data)
        if n > self._budget.left:
            self._budget.left = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._budget.left -= n
        return self._f.write(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()

    def __iter__(self):
        return iter(self._f)

    def __getattr__(self, name):
        return getattr(self._f, name)


@contextmanager
def _simulated(path: Path, free: int):
    budget = _Budget(path, free)
    real_open, real_io_open, real_fdopen = builtins.open, io.open, os.fdopen
    sendfile = getattr(shutil, "_USE_CP_SENDFILE", False)

    def writing(mode) -> bool:
        return any(c in str(mode) for c in "wax+")

    def fake_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        return _FullFile(f, budget) if writing(mode) and budget.covers(file) else f

    def fake_io_open(file, mode="r", *args, **kwargs):
        f = real_io_open(file, mode, *args, **kwargs)
        return _FullFile(f, budget) if writing(mode) and budget.covers(file) else f

    def fake_fdopen(fd, mode="r", *args, **kwargs):
        f = real_fdopen(fd, mode, *args, **kwargs)
        try:
            name = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return f
        return _FullFile(f, budget) if writing(mode) and budget.covers(name) else f

    builtins.open, io.open, os.fdopen = fake_open, fake_io_open, fake_fdopen
    shutil._USE_CP_SENDFILE = False
    try:
        yield
    finally:
        builtins.open, io.open, os.fdopen = real_open, real_io_open, real_fdopen
        shutil._USE_CP_SENDFILE = sendfile


@contextmanager
def full_folder(path: Path, free: int):
    """``path`` (created) with ``free`` bytes left: a real tmpfs when possible, simulated otherwise."""
    path.mkdir(parents=True, exist_ok=True)
    if _mount(path):
        full_folder.mode = "tmpfs"
        try:
            _fill(path, free)
            yield path
        finally:
            subprocess.run(["umount", "-l", str(path)], capture_output=True)
    else:
        full_folder.mode = "simulated"
        with _simulated(path, free):
            yield path


full_folder.mode = None
