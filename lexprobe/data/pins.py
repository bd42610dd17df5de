"""Is a dataset file still what was pinned? Stamps (size, mtime, ctime, inode) make the answer a ``stat``.

Readers call ``check_unchanged`` before opening a dataset file; kept apart from ``store`` so they need none of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from lexprobe.data.download import sha256_of
from lexprobe.data.install import _now, _write_state
from lexprobe.data.locations import read_state
from lexprobe.data.registry import DATASETS, Dataset, data_dir
from lexprobe.errors import DataError


def _pin(ds: Dataset, relpath: str, state: dict) -> str | None:
    for f in ds.files:
        if f.relpath == relpath and f.sha256:
            return f.sha256
    return (state.get("files") or {}).get(relpath)


def stamp(path: Path) -> list[int]:
    """What ``check_unchanged`` compares without reading the file: size, mtime, ctime, inode."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def stamps(files: Iterable[str]) -> dict[str, list[int]]:
    out = {}
    for rel in files:
        try:
            out[rel] = stamp(data_dir() / rel)
        except OSError:
            pass
    return out


def write_record(name: str, entry: str, files: dict, source: str, pinned: Iterable[str], **extra: str) -> None:
    """The state file of a dataset just fetched or imported: its files' pins and stamps, verified now."""
    _write_state(name, {"name": name, "version": DATASETS[name].version, "entry": entry, "files": files,
                        "stamps": stamps(files), "pinned_on_first_fetch": sorted(pinned), "source": source,
                        "verified": _now(), **extra})


def record_import(name: str, entry: str, files: dict, src: Path, say: Callable[[str], None], pinned_now=(),
                  **extra: str) -> None:
    """The state file of a dataset just imported from ``src``, and one line saying so."""
    write_record(name, entry, files, f"import {src.resolve()}", pinned_now, imported=_now(), **extra)
    say(f"{name}: imported {src} -> {data_dir() / entry}")


def content_sha(path: Path) -> str:
    """SHA-256 of a file's bytes, or of its decompressed bytes for ``.gz``."""
    if path.suffix != ".gz":
        return sha256_of(path)
    import gzip
    import hashlib

    h = hashlib.sha256()
    with gzip.open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_pinned(ds: Dataset, relpath: str, src: Path) -> None:
    """A file the dataset pins must match before it is imported (``.gz`` copies: their decompressed content)."""
    plain = relpath[:-3] if relpath.endswith(".gz") else relpath
    pin = next((f.sha256 for f in ds.files if f.relpath == plain and f.sha256), None)
    if pin is None:
        return
    digest = content_sha(src)
    if digest != pin:
        raise DataError(f"{src} is not the pinned {ds.title} file {Path(plain).name} "
                        f"(sha256 {digest}, expected {pin}); nothing was imported")


def _inside_data_dir(path: Path, root: Path) -> Path | None:
    """``path`` as a path under ``root.resolve()`` when it lies in the data directory as resolved *or* as
    written: a dataset replaced by a symlink to a file elsewhere is still the data directory's file and
    still checked against its pin (resolving the link once let it through, D12). None when outside."""
    import os

    try:
        base = root.resolve()
        spellings = [(path.resolve(), base), (Path(os.path.abspath(path)), Path(os.path.abspath(root))),
                     (Path(os.path.abspath(path)), base), (path.parent.resolve() / path.name, base)]
    except (OSError, RuntimeError):
        return None
    for target, folder in spellings:
        if target == folder or folder in target.parents:
            return base / target.relative_to(folder)
    return None


def check_unchanged(path: str | Path) -> None:
    """Refuse (one ``DataError``) a dataset file (or folder of them) in the data directory that no longer matches
    its pin; files outside it or without a pin are not checked. Unchanged stamps cost a ``stat``; other files are
    hashed, and their new stamps recorded when the hash still matches (a copied or touched file)."""
    root = data_dir()
    target = _inside_data_dir(Path(path), root)
    if target is None:
        return
    base = root.resolve()
    for name, ds in DATASETS.items():
        state = read_state(name)
        recorded = dict(state.get("files") or {})
        for f in ds.files:  # copied in by hand: the registry's pins still apply
            if f.sha256 and (root / f.relpath).is_file():
                recorded.setdefault(f.relpath, f.sha256)
        changed_stamps = {}
        for rel in recorded:
            file = base / rel
            if file != target and target not in file.parents:
                continue
            try:
                now = stamp(file)
            except OSError:
                continue  # missing: the reader says so
            if (state.get("stamps") or {}).get(rel) == now:
                continue
            pin = _pin(ds, rel, state) or recorded.get(rel)
            if not pin:
                continue
            digest = sha256_of(file)
            if digest != pin:
                raise DataError(
                    f"{file} changed since it was fetched or verified (sha256 {digest[:16]}..., pinned "
                    f"{pin[:16]}...); restore it with `lexprobe data fetch {name} --force` or "
                    f"`lexprobe data import {name} PATH`")
            changed_stamps[rel] = now
        if changed_stamps and state:
            try:
                _write_state(name, {**state, "stamps": {**(state.get("stamps") or {}), **changed_stamps}})
            except OSError:
                pass  # a read-only data directory: checked by hash again next time
