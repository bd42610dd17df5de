"""The data directory: what is in it, and fetching, importing and verifying datasets.

Every dataset's files sit at their registry ``relpath`` under the data directory, and ``.lexprobe/<name>.json``
records what was put there: the files' SHA-256 (the pin for files the registry could not pin), their source,
what readers open (``entry``), when they were last verified and each file's ``stamps`` (size, mtime, ctime,
inode) then. Nothing is pinned before it passed its format check (``validator``), so a mirror answering with an
HTML page is refused, not pinned. Readers call ``pins.check_unchanged`` before opening a dataset file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from lexprobe.data import catalog  # noqa: F401  (registers the datasets lexprobe ships)
from lexprobe.data.download import NetworkError, download, sha256_of
from lexprobe.data.install import Say, _now, _write_state, disk_full_is_one_line
from lexprobe.data.locations import STATE_DIR, entry_path, read_state
from lexprobe.data.pins import _pin, stamp, stamps, write_record
from lexprobe.data.registry import DATASETS, data_dir, mirror_url
from lexprobe.errors import DataError
from lexprobe.locks import take_lock


def locate(name: str) -> Path | None:
    """The dataset's entry in the data directory (or where its own ``locate`` finds it), or None when it is not
    there."""
    own = DATASETS[name].locate
    if own is not None:
        return own()
    path = entry_path(name)
    if not path.exists():
        return None
    if path.is_dir() and not any(p.is_file() for p in path.rglob("*")):
        return None
    return path


# --- fetch -----------------------------------------------------------------------------

def fetch(name: str, progress: bool = True, force: bool = False, say: Say = print) -> Path:
    """Download dataset ``name`` into the data directory, skipping files verified there. One process fetches a
    dataset at a time: a second waits (saying so), then finds the files verified."""
    ds = DATASETS[name]
    if ds.method == "import-only":
        raise DataError(f"{ds.title} cannot be downloaded ({ds.licence}); run `lexprobe data import {name} PATH`")
    lock = data_dir() / STATE_DIR / f"{name}.fetch.lock"
    waiting = lambda: say(f"{name}: another `lexprobe data fetch` is fetching it; waiting for it to finish")  # noqa: E731
    lock.parent.mkdir(parents=True, exist_ok=True)
    with disk_full_is_one_line(f"fetching {name} into {data_dir()}"), take_lock(lock, on_wait=waiting):
        if ds.fetcher is not None:  # a download of its own (WordNet through NLTK's downloader)
            return ds.fetcher(progress, force, say)
        return _fetch_http(ds, progress, force, say)


def validator(name: str, relpath: str) -> Callable[[Path], None] | None:
    """The format check of one dataset file (``check(path)`` raises ``DataError``), or None: its dataset's own."""
    check = DATASETS[name].check
    return None if check is None else (lambda p: check(p, relpath))


def _fetch_http(ds, progress: bool, force: bool, say: Say) -> Path:
    name = ds.name
    root = data_dir()
    state = read_state(name)  # read under the lock: what another fetch just finished counts
    if state.get("entry") and state["entry"] != ds.entry and locate(name) and not force:
        say(f"{name}: already imported at {entry_path(name)} (use --force to download the upstream copy)")
        return entry_path(name)
    files = dict(state.get("files") or {}) if state.get("entry", ds.entry) == ds.entry else {}
    pinned_here = set(state.get("pinned_on_first_fetch") or [])
    for f in ds.files:
        target = root / f.relpath
        pin = _pin(ds, f.relpath, {"files": files})
        if target.exists() and not force and pin and files.get(f.relpath) == pin:
            continue  # fetched and verified before
        url = mirror_url(f.url)
        say(f"{name}: fetching {url}")
        digest = download(url, target, sha256=f.sha256 or (None if force else pin), size=f.size,
                          label=f"{name} {Path(f.relpath).name}", progress=progress,
                          check=validator(name, f.relpath))  # a file that fails is deleted, never pinned
        files[f.relpath] = digest
        if f.sha256 is None and f.relpath not in pinned_here:
            pinned_here.add(f.relpath)
            say(f"{name}: {Path(f.relpath).name} pinned on first fetch: sha256 {digest}")
    if ds.unpack is not None:  # what readers open, made from the files just fetched (each member checked)
        ds.unpack(say)
    write_record(name, ds.entry, files, "fetch " + ", ".join(mirror_url(f.url) for f in ds.files), pinned_here,
                 fetched=_now())
    say(f"{name}: ready at {root / ds.entry}")
    return root / ds.entry


def fetch_many(names: Iterable[str], progress: bool = True, force: bool = False, say: Say = print) -> list[str]:
    """Fetch each dataset; returns one line per failure (every dataset is tried)."""
    failures = []
    for name in names:
        try:
            fetch(name, progress=progress, force=force, say=say)
        except DataError as err:
            failures.append(f"{name}: {err}")
    return failures


def ensure(names: Iterable[str], allow_fetch: bool = True, say: Say = print) -> dict[str, Path | None]:
    """For ``lexprobe run``: each dataset's location, fetching what is missing while the network
    answers (after one unreachable host no further download is tried)."""
    found: dict[str, Path | None] = {}
    offline = not allow_fetch
    for name in names:
        path = locate(name)
        if path is None and not offline:
            try:
                path = fetch(name, progress=True, say=say)
            except NetworkError as err:
                say(f"lexprobe: could not fetch {name}: {err}")
                offline = True
            except DataError as err:
                say(f"lexprobe: could not fetch {name}: {err}")
        found[name] = path
    return found


# --- import --------------------------------------------------------------------------------


def import_dataset(name: str, sources: list[Path], say: Say = print) -> list[str]:
    """Validate and copy a user's copy into the data directory (see ``importing``)."""
    from lexprobe.data.importing import import_dataset as _import

    with disk_full_is_one_line(f"importing {name} into {data_dir()}"):
        return _import(name, sources, say)


# --- verify and status ----------------------------------------------------------------------

def verify(name: str) -> tuple[str, list[str]]:
    """Re-check a present dataset: ``("ok"|"missing"|"system", problems)``; pins unpinned files."""
    ds = DATASETS[name]
    if ds.system is not None and ds.system() is not None:  # installed outside the data directory: nothing pinned
        return "system", []
    path = locate(name)
    if path is None:
        return "missing", []
    state = read_state(name)
    files = dict(state.get("files") or {})
    if not state:
        files = {f.relpath: None for f in ds.files if (data_dir() / f.relpath).is_file()}
    problems, pinned_now = [], []
    for rel, recorded in files.items():
        p = data_dir() / rel
        if not p.is_file():
            problems.append(f"{p} is missing (recorded when the data was fetched or imported)")
            continue
        digest = sha256_of(p)
        pin = _pin(ds, rel, state) or recorded
        if pin and digest != pin:
            problems.append(f"{p}: sha256 {digest} differs from the pinned {pin}")
        elif not pin:
            check = validator(name, rel)
            try:
                if check is not None:
                    check(p)  # never pin what the reader would refuse
            except DataError as err:
                problems.append(f"{p} is not pinned: {err}")
                continue
            files[rel] = digest
            pinned_now.append(rel)
    if ds.content_sha256 and ds.check is not None and not problems:  # pinned by content, whatever its files
        try:
            ds.check(path, ds.entry)
        except DataError as err:
            problems.append(str(err))
    if not problems:
        state.update(files=files, stamps=stamps(files), verified=_now(), entry=state.get("entry") or ds.entry,
                     name=name)
        state["pinned_on_first_fetch"] = sorted(set(state.get("pinned_on_first_fetch") or []) | set(pinned_now))
        _write_state(name, state)
    return "ok", problems


def _stamps_changed(state: dict) -> bool:
    """A recorded file's size, mtime, ctime or inode is not what it was at verification (a stat each)."""
    for rel, recorded in (state.get("stamps") or {}).items():
        try:
            if stamp(data_dir() / rel) != recorded:
                return True
        except OSError:
            return True
    return False


def status(name: str) -> dict:
    """What ``data list`` shows: presence, location, verification, pins (no hashing: fast)."""
    path = locate(name)
    state = read_state(name)
    info = {"name": name, "present": path is not None, "path": str(path) if path else None,
            "verified": state.get("verified") if path else None, "source": state.get("source"),
            "pinned_on_first_fetch": state.get("pinned_on_first_fetch") or [],
            "changed": _stamps_changed(state) if path else False}
    system = DATASETS[name].system
    if path is not None and system is not None and system() is not None and not state.get("files"):
        info["verified"] = None
        info["source"] = "system installation"
    return info

