"""The data directory: what is in it, and fetching, importing and verifying datasets.

Every dataset's files sit at their registry ``relpath`` under the data directory, and ``.lexprobe/<name>.json``
records what was put there: the files' SHA-256 (the pin for files the registry could not pin), their source,
what readers open (``entry``), when they were last verified and each file's ``stamps`` (size, mtime, ctime,
inode) then. Nothing is pinned before it passed its format check (``validator``), so a mirror answering with an
HTML page is refused, not pinned. Readers call ``pins.check_unchanged`` before opening a dataset file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable, Iterable

from lexprobe.data.download import NetworkError, download, sha256_of, timeout_s
from lexprobe.data.install import Say, _install_tree, _now, _write_state, disk_full_is_one_line
from lexprobe.data.locations import STATE_DIR, entry_path, read_state
from lexprobe.data.pins import _pin, stamp, stamps, write_record
from lexprobe.data.registry import DATASETS, data_dir, mirror_url
from lexprobe.data.semcor import check_content
from lexprobe.errors import DataError
from lexprobe.locks import take_lock

NLTK_INDEX_URL = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/index.xml"
#: what NLTK's downloader fetches for "wordnet" (NLTK's data server has no pinned revisions)
NLTK_WORDNET_URL = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/wordnet.zip"


def locate(name: str) -> Path | None:
    """The dataset's entry in the data directory, or None when it is not there."""
    if name == "wordnet":
        return _wordnet_location()
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
        if ds.method == "nltk":
            return _fetch_wordnet(progress, force, say)
        return _fetch_http(ds, progress, force, say)


def validator(name: str, relpath: str) -> Callable[[Path], None] | None:
    """The format check of one dataset file (``check(path)`` raises ``DataError``), or None."""
    from lexprobe.data import importing

    ds = DATASETS[name]
    if ds.check is not None:
        check = ds.check
        return lambda p: check(p, relpath)
    if name.startswith("coda21-"):
        variant = name[len("coda21-"):]
        return lambda p: importing.check_coda_json(p, expected=importing.CODA_PUBLISHED_GROUPS.get(variant))
    if ds.content_sha256:
        return check_content
    if name == "wordnet":
        return _check_wordnet_zip
    if name == "streusle" and relpath.endswith(".json"):
        from lexprobe.data.streusle import read_streusle_json

        return lambda p: importing.require_records(read_streusle_json(p, "train"), p, "STREUSLE sentences")
    if name == "wsd":
        from lexprobe.data.wsd import check_file

        return lambda p: check_file(p, relpath)
    if name == "pdep-corpus":
        from lexprobe.data.pdep import read_pdep

        split = "train" if "train" in Path(relpath).name else "test"
        return lambda p: importing.require_records(read_pdep(p, split=split), p, "PDEP sense-tagged prepositions")
    return importing.FILE_CHECKS.get(name)


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


# --- WordNet -----------------------------------------------------------------------------

def _wordnet_location() -> Path | None:
    from lexprobe.data.wordnet import wordnet_source_dir

    src = wordnet_source_dir()
    if src is not None:
        return src
    nltk_root = data_dir() / "nltk_data" / "corpora"
    for p in (nltk_root / "wordnet", nltk_root / "wordnet.zip"):
        if p.exists():
            return p
    return None


def _fetch_wordnet(progress: bool, force: bool, say: Say) -> Path:
    where = _wordnet_location()
    if where is not None and not force:
        say(f"wordnet: already installed at {where}")
        return where
    root = data_dir() / "nltk_data"
    root.mkdir(parents=True, exist_ok=True)
    archive = root / "corpora" / "wordnet.zip"
    state = read_state("wordnet")
    pinned = (state.get("files") or {}).get("nltk_data/corpora/wordnet.zip")
    if os.environ.get("LEXPROBE_DATA_MIRROR"):
        # NLTK's downloader refuses private and loopback hosts and its index names upstream URLs: fetch the zip
        # ourselves and unpack it as NLTK does, checked before it is pinned (D17: a mirror's 2 GiB of NULs was
        # once pinned as verified)
        url = mirror_url(NLTK_WORDNET_URL)
        say(f"wordnet: fetching {url}")
        download(url, archive, sha256=None if force else pinned, label="wordnet.zip", progress=progress,
                 check=_unzip_wordnet)
        ok, source = True, url
    else:
        say(f"wordnet: fetching with NLTK's downloader into {root}")
        ok, source = _nltk_download_wordnet(root, progress), f"nltk.download('wordnet') ({NLTK_INDEX_URL})"
    if not ok or not archive.exists():
        raise DataError(f"NLTK's downloader did not install wordnet under {root}")
    digest = sha256_of(archive)
    if pinned and pinned != digest and not force:
        raise DataError(f"checksum mismatch for {archive}: sha256 {digest}, pinned on first fetch {pinned}; "
                        "rerun with --force to accept the new file")
    rel = "nltk_data/corpora/wordnet.zip"
    write_record("wordnet", "nltk_data", {rel: digest}, source, [rel], fetched=_now())
    from lexprobe.data import wordnet

    wordnet.load_wordnet.cache_clear()
    say(f"wordnet: ready at {archive}")
    return archive


def _nltk_download_wordnet(root: Path, progress: bool) -> bool:
    import socket

    import nltk

    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(timeout_s())  # NLTK's downloader opens URLs without a timeout
    try:
        return nltk.downloader.Downloader(download_dir=str(root)).download(
            "wordnet", quiet=not progress, raise_on_error=True)
    except Exception as err:  # noqa: BLE001 - NLTK raises ValueError, URLError, OSError...
        raise NetworkError(f"NLTK's downloader could not fetch wordnet ({err}); install Debian's wordnet-base, or "
                           "`lexprobe data import wordnet DICT_DIR` a WordNet 3.0 dict folder") from None
    finally:
        socket.setdefaulttimeout(previous)


#: WordNet 3.0's dict files are at most 15,300,280 bytes each and ~36 MB together: an archive beyond these caps
#: is refused before anything is unpacked (D17)
WORDNET_MEMBER_CAP = 64 << 20
WORDNET_TOTAL_CAP = 256 << 20
WORDNET_MEMBERS = 200
#: how WordNet's data and index files begin (the licence's first line), and a line of index.sense
_WORDNET_HEADER = b"  1 This software and database is being provided"
_SENSE_LINE = re.compile(rb"[^ %\n]+%\d:\d\d:\d\d:[^ \n]*:[^ \n]* \d{8} \d+ \d+\n")


def _wordnet_members(archive: Path) -> list:
    """The archive's ``wordnet/NAME`` file members, checked without reading them (plain names directly under
    ``wordnet/``, declared sizes under the caps, WordNet's required files there); one ``DataError`` otherwise."""
    import zipfile

    from lexprobe.data.wordnet import REQUIRED_FILES

    label = _archive_label(archive)
    try:
        with zipfile.ZipFile(archive) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise DataError(f"{label} is not NLTK's wordnet.zip ({err})") from None
    files, seen = [], set()
    for info in infos:
        name = info.filename
        if name == "wordnet/" and info.is_dir():
            continue
        base = name[len("wordnet/"):] if name.startswith("wordnet/") else ""
        if not base or base in (".", "..") or any(c in base for c in "/\\\0") or info.is_dir():
            raise DataError(f"{label}: member {name!r} is not a file directly under wordnet/; the archive is "
                            "refused (nothing was unpacked or pinned): check LEXPROBE_DATA_MIRROR")
        if name in seen:
            raise DataError(f"{label}: member {name!r} appears twice; the archive is refused (nothing was unpacked "
                            "or pinned): check LEXPROBE_DATA_MIRROR")
        seen.add(name)
        files.append(info)
    too_big = [i for i in files if i.file_size > WORDNET_MEMBER_CAP]
    total = sum(i.file_size for i in files)
    if too_big or total > WORDNET_TOTAL_CAP or len(files) > WORDNET_MEMBERS:
        what = (f"member {too_big[0].filename} would unpack to {too_big[0].file_size:,} bytes (WordNet's largest "
                f"file has 15,300,280; at most {WORDNET_MEMBER_CAP:,} are taken)" if too_big else
                f"{len(files)} members would unpack to {total:,} bytes (at most {WORDNET_MEMBERS} members and "
                f"{WORDNET_TOTAL_CAP:,} bytes are taken)")
        raise DataError(f"{label} is not NLTK's wordnet.zip: {what}; nothing was unpacked or pinned: check "
                        "LEXPROBE_DATA_MIRROR")
    names = {i.filename for i in files}
    missing = [f for f in REQUIRED_FILES if f"wordnet/{f}" not in names]
    if missing:
        raise DataError(f"{label} is not NLTK's wordnet.zip (no wordnet/{', wordnet/'.join(missing)})")
    return files


def _check_wordnet_zip(path: Path) -> None:
    _wordnet_members(path)


def _unzip_wordnet(archive: Path) -> None:
    """Unpack ``wordnet/*`` beside the zip as NLTK does: members streamed in blocks (an 8 MB zip read whole once
    took 4.3 GB, D17) under the caps, the required files checked to be WordNet's, the folder swapped in whole.
    One ``DataError`` otherwise, and nothing is left behind."""
    import zipfile

    from lexprobe.data.wordnet import REQUIRED_FILES
    from lexprobe.outputs import open_new

    members = _wordnet_members(archive)
    label = _archive_label(archive)

    def fill(tmp: Path) -> None:
        total = 0
        with zipfile.ZipFile(archive) as z:
            for info in members:
                base = info.filename[len("wordnet/"):]
                with z.open(info) as src, open_new(tmp / base) as dst:
                    written = 0
                    for block in iter(lambda: src.read(1 << 20), b""):
                        written += len(block)
                        total += len(block)
                        if written > WORDNET_MEMBER_CAP or total > WORDNET_TOTAL_CAP:
                            raise DataError(f"{label}: member {info.filename} unpacks to more than its caps "
                                            "allow; nothing was unpacked or pinned: check LEXPROBE_DATA_MIRROR")
                        dst.write(block)
        for name in REQUIRED_FILES:
            with (tmp / name).open("rb") as f:
                head = f.read(len(_WORDNET_HEADER) if name != "index.sense" else 200)
            ok = (_SENSE_LINE.match(head) is not None if name == "index.sense" else head == _WORDNET_HEADER)
            if not ok:
                raise DataError(f"{label}: wordnet/{name} is not a WordNet 3.0 file (it begins "
                                f"{head[:40]!r}); nothing was unpacked or pinned: check LEXPROBE_DATA_MIRROR")

    try:
        _install_tree(archive.parent / "wordnet", fill)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as err:
        raise DataError(f"{label} is not NLTK's wordnet.zip ({err}); nothing was unpacked or pinned") from None


def _archive_label(archive: Path) -> str:  # a download's ``.part`` is checked before it is renamed
    return archive.name.removesuffix(".part")


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
    if name == "wordnet":
        where = _wordnet_location()
        if where is None:
            return "missing", []
        state = read_state(name)
        if not (state.get("files") and str(where).startswith(str(data_dir()))):
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
    if ds.content_sha256 and not problems:
        try:
            check_content(path)
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
    if name == "wordnet" and path is not None and not state.get("files"):
        info["verified"] = None
        info["source"] = "system installation"
    return info

