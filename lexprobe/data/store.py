"""The data directory: what is in it, and fetching, importing and verifying datasets.

Layout: every dataset's files sit at their registry ``relpath`` under the data
directory (``coda21/CoDA-clean-hard.json``, ``semcor/wsd_corpora-<commit>.tar.gz``,
``streusle-4.4/dev/...``), and ``.lexprobe/<name>.json`` records what was put
there: the files' SHA-256 (the pin for files the registry could not pin), where
they came from, what readers should open (``entry``) and when they were last
verified. Files copied in by hand are found too and pinned on ``data verify``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Callable, Iterable

from lexprobe.data.download import NetworkError, download, sha256_of, timeout_s
from lexprobe.data.registry import DATASETS, GROUPS, Dataset, data_dir, expand_names, mirror_url
from lexprobe.errors import DataError

STATE_DIR = ".lexprobe"
NLTK_INDEX_URL = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/index.xml"
#: what NLTK's downloader fetches for "wordnet" (NLTK's data server has no pinned revisions)
NLTK_WORDNET_URL = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/wordnet.zip"

Say = Callable[[str], None]


# --- state ---------------------------------------------------------------------------

def _state_file(name: str) -> Path:
    return data_dir() / STATE_DIR / f"{name}.json"


def read_state(name: str) -> dict:
    try:
        return json.loads(_state_file(name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_state(name: str, state: dict) -> None:
    path = _state_file(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())


def entry_path(name: str) -> Path:
    """What a reader opens for dataset ``name`` (it may not exist yet); the per-dataset overrides
    ``LEXPROBE_SEMCOR`` and ``LEXPROBE_CODA_DIR`` come first."""
    if name == "semcor" and os.environ.get("LEXPROBE_SEMCOR"):
        return Path(os.environ["LEXPROBE_SEMCOR"])
    if name.startswith("coda21-") and os.environ.get("LEXPROBE_CODA_DIR"):
        return Path(os.environ["LEXPROBE_CODA_DIR"]) / Path(DATASETS[name].entry).name
    entry = read_state(name).get("entry") or DATASETS[name].entry
    return data_dir() / entry


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


def missing_message(name: str, what: str | None = None) -> str:
    """One line saying a dataset is not in the data directory and the command that gets it."""
    ds = DATASETS[name]
    how = f"run `{ds.fetch_command}`"
    if ds.method == "http":
        how += f" (or `lexprobe data import {name} PATH` for a copy you have)"
    return f"{what or ds.title} not found in the data directory {data_dir()}; {how}"


def _pin(ds: Dataset, relpath: str, state: dict) -> str | None:
    for f in ds.files:
        if f.relpath == relpath and f.sha256:
            return f.sha256
    return (state.get("files") or {}).get(relpath)


# --- SemCor content digest -------------------------------------------------------------

def naf_content_digest(path: Path) -> tuple[str, int]:
    """SHA-256 over ``relpath<TAB>sha256(bytes)`` lines of the SemCor NAF documents, sorted,
    and their number: the same for the repository archive, a tar.xz or an unpacked tree."""
    from lexprobe.data.semcor import iter_naf_members

    lines = sorted(f"{rel}\t{hashlib.sha256(data).hexdigest()}\n" for rel, data in iter_naf_members(path))
    if not lines:
        raise DataError(f"no SemCor NAF documents in {path}")
    return hashlib.sha256("".join(lines).encode()).hexdigest(), len(lines)


def _check_content(ds: Dataset, path: Path, shown: str) -> None:
    if not ds.content_sha256:
        return
    digest, n = naf_content_digest(path)
    if digest != ds.content_sha256:
        raise DataError(
            f"{shown} is not {ds.title} at {ds.pin[:12]}: its {n} NAF documents have content digest "
            f"{digest[:16]}..., expected {ds.content_sha256[:16]}... (352 documents)"
        )


# --- fetch -----------------------------------------------------------------------------

def fetch(name: str, progress: bool = True, force: bool = False, say: Say = print) -> Path:
    """Download dataset ``name`` into the data directory (skipping files already verified there)."""
    ds = DATASETS[name]
    if ds.method == "import-only":
        raise DataError(f"{ds.title} cannot be downloaded ({ds.licence}); run `lexprobe data import {name} PATH`")
    if ds.method == "nltk":
        return _fetch_wordnet(progress, force, say)
    root = data_dir()
    state = read_state(name)
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
        check = (lambda p: _check_content(ds, p, url)) if ds.content_sha256 else None
        digest = download(url, target, sha256=f.sha256 or (None if force else pin), size=f.size,
                          label=f"{name} {Path(f.relpath).name}", progress=progress, check=check)
        files[f.relpath] = digest
        if f.sha256 is None and f.relpath not in pinned_here:
            pinned_here.add(f.relpath)
            say(f"{name}: {Path(f.relpath).name} pinned on first fetch: sha256 {digest}")
    _write_state(name, {
        "name": name, "version": ds.version, "entry": ds.entry, "files": files,
        "pinned_on_first_fetch": sorted(pinned_here), "source": "fetch " + ", ".join(mirror_url(f.url) for f in ds.files),
        "fetched": _now(), "verified": _now(),
    })
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
        # NLTK's downloader refuses private and loopback hosts, and its index names absolute
        # upstream URLs: from a mirror, fetch the same zip ourselves and unpack it as NLTK does
        url = mirror_url(NLTK_WORDNET_URL)
        say(f"wordnet: fetching {url}")
        download(url, archive, sha256=None if force else pinned, label="wordnet.zip", progress=progress,
                 check=_check_wordnet_zip)
        _unzip_wordnet(archive)
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
    _write_state("wordnet", {"name": "wordnet", "version": "3.0", "entry": "nltk_data",
                             "files": {"nltk_data/corpora/wordnet.zip": digest},
                             "pinned_on_first_fetch": ["nltk_data/corpora/wordnet.zip"],
                             "source": source, "fetched": _now(), "verified": _now()})
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


def _check_wordnet_zip(path: Path) -> None:
    import zipfile

    from lexprobe.data.wordnet import REQUIRED_FILES

    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
    except (zipfile.BadZipFile, OSError) as err:
        raise DataError(f"{path.name} is not NLTK's wordnet.zip ({err})") from None
    missing = [f for f in REQUIRED_FILES if f"wordnet/{f}" not in names]
    if missing:
        raise DataError(f"{path.name} is not NLTK's wordnet.zip (no wordnet/{', wordnet/'.join(missing)})")


def _unzip_wordnet(archive: Path) -> None:
    """Unpack ``wordnet/*`` beside the zip, as NLTK's downloader does."""
    import zipfile

    def fill(tmp: Path) -> None:
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if info.filename.startswith("wordnet/") and not info.is_dir():
                    (tmp / Path(info.filename).name).write_bytes(z.read(info))

    _install_tree(archive.parent / "wordnet", fill)


# --- import --------------------------------------------------------------------------------

def _copy_file(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def _install_tree(dest: Path, fill: Callable[[Path], None]) -> None:
    """Build a folder beside ``dest`` and swap it in, so ``dest`` is never half written."""
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        fill(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if dest.exists():
        old = dest.with_name(dest.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(dest, old)
        shutil.rmtree(old, ignore_errors=True)
    os.replace(tmp, dest)


def _content_sha(path: Path) -> str:
    """SHA-256 of a file's bytes, or of its decompressed bytes for ``.gz``."""
    if path.suffix != ".gz":
        return sha256_of(path)
    import gzip

    h = hashlib.sha256()
    with gzip.open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _check_pinned(ds: Dataset, relpath: str, src: Path) -> None:
    """A file the registry pins must match (``.gz`` copies: their decompressed content)."""
    plain = relpath[:-3] if relpath.endswith(".gz") else relpath
    pin = next((f.sha256 for f in ds.files if f.relpath == plain and f.sha256), None)
    if pin is None:
        return
    digest = _content_sha(src)
    if digest != pin:
        raise DataError(f"{src} is not the pinned {ds.title} file {Path(plain).name} "
                        f"(sha256 {digest}, expected {pin}); nothing was imported")


def _check_coda_json(path: Path) -> None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DataError(f"{path} is not a CoDA21 JSON file ({err})") from None
    groups = [g for pos in ("n", "v") for g in (data.get(pos) or [])] if isinstance(data, dict) else []
    if not groups or not all(isinstance(g, dict) and isinstance(g.get("candidates"), list) for g in groups):
        raise DataError(f'{path} is not a CoDA21 JSON file: expected {{"n": [group], "v": [group]}} with candidates')


def _check_prepdefs(path: Path) -> None:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
            con.execute("SELECT prep, sense, def FROM prepdefs LIMIT 1").fetchall()
    except sqlite3.Error as err:
        raise DataError(f"{path} is not the PDEP inventory (prepdefs.sqlite with table prepdefs): {err}") from None


def _check_nota(path: Path) -> None:
    try:
        lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"cannot read {path}: {err}") from None
    if not lines or not all(ln.count("_") >= 2 for ln in lines):
        raise DataError(f"{path} is not a none-of-the-above sense list (lines lemma_pos_sense)")


_SINGLE_FILE_DATASETS = set(GROUPS["coda21"]) | {"pdep-inventory", "ontonotes-nota"}
_FILE_CHECKS = {"coda21": _check_coda_json, "pdep-inventory": _check_prepdefs, "ontonotes-nota": _check_nota}


def import_dataset(name: str, sources: list[Path], say: Say = print) -> list[str]:
    """Validate and copy a user's copy into the data directory; returns the dataset names imported."""
    sources = [Path(s).expanduser() for s in sources]
    for s in sources:
        if not s.exists():
            raise DataError(f"{s} does not exist; give the path of your copy of {name}")
    names = expand_names([name])
    if name in GROUPS or names[0] in _SINGLE_FILE_DATASETS:
        return _import_single_files(name, names, sources, say)
    handler = {"semcor": _import_semcor, "streusle": _import_streusle, "pdep-corpus": _import_pdep_corpus,
               "ontonotes": _import_ontonotes, "wordnet": _import_wordnet}.get(names[0])
    if handler is None:  # pragma: no cover - every dataset has an importer
        raise DataError(f"{name} cannot be imported")
    handler(sources, say)
    return names


def _import_single_files(name: str, names: list[str], sources: list[Path], say: Say) -> list[str]:
    candidates: list[Path] = []
    for s in sources:
        candidates.extend(sorted(p for p in s.iterdir() if p.is_file()) if s.is_dir() else [s])
    done = []
    for member in names:
        if name == "pdep" and member == "pdep-corpus":
            conllu = [p for p in candidates if p.suffix == ".conllu"]
            if conllu:
                _import_pdep_corpus(conllu, say)
                done.append(member)
            continue
        ds = DATASETS[member]
        f = ds.files[0]
        basename = Path(f.relpath).name
        match = [p for p in candidates if p.name == basename]
        if not match and len(names) == 1 and len(candidates) == 1:
            match = candidates  # `data import coda21-clean-hard my-copy.json`
        if not match:
            continue
        src = match[0]
        _FILE_CHECKS["coda21" if member.startswith("coda21") else member](src)
        _check_pinned(ds, f.relpath, src)
        _copy_file(src, data_dir() / f.relpath)
        digest = sha256_of(data_dir() / f.relpath)
        _record_import(member, ds.entry, {f.relpath: digest}, src, say, pinned_now=[] if f.sha256 else [f.relpath])
        done.append(member)
    if not done:
        wanted = ", ".join(Path(DATASETS[m].files[0].relpath).name for m in names if DATASETS[m].files)
        raise DataError(f"no file of {name} in {', '.join(map(str, sources))}; expected {wanted}")
    return done


def _record_import(name: str, entry: str, files: dict, src: Path, say: Say, pinned_now=(), **extra) -> None:
    _write_state(name, {"name": name, "version": DATASETS[name].version, "entry": entry, "files": files,
                        "pinned_on_first_fetch": sorted(pinned_now), "source": f"import {src.resolve()}",
                        "imported": _now(), "verified": _now(), **extra})
    say(f"{name}: imported {src} -> {data_dir() / entry}")


def _import_semcor(sources: list[Path], say: Say) -> None:
    ds = DATASETS["semcor"]
    src = sources[0]
    _check_content(ds, src, str(src))
    if src.is_dir():
        from lexprobe.data.semcor import iter_naf_members

        def fill(tmp: Path) -> None:
            for rel, data in iter_naf_members(src):
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                (tmp / rel).write_bytes(data)

        _install_tree(data_dir() / "semcor" / "tree", fill)
        entry, files = "semcor/tree/semcor3.0", {}
    else:
        entry = f"semcor/{src.name}"
        _copy_file(src, data_dir() / entry)
        files = {entry: sha256_of(data_dir() / entry)}
    _record_import("semcor", entry, files, src, say, content_sha256=ds.content_sha256)


_STREUSLE_PATTERNS = ("*.json", "*.json.gz", "*.conllulex", "*.conllulex.gz", "*.vis", "*.vis.gz")


def _import_streusle(sources: list[Path], say: Say) -> None:
    from lexprobe.data.streusle import read_split

    ds = DATASETS["streusle"]
    src = sources[0]
    if not src.is_dir():
        raise DataError(f"{src} is not a folder; give the streusle-4.4 folder (with train/, dev/, test/)")
    chosen: list[tuple[Path, str]] = []
    for split in ("train", "dev", "test"):
        read_split(src, split, lemmatize=False)  # format check: raises on missing or malformed files
        for pattern in _STREUSLE_PATTERNS:
            for p in sorted((src / split).glob(pattern)):
                if ".govobj." in p.name or ".autoid." in p.name:
                    continue
                rel = f"streusle-4.4/{split}/{p.name}"
                _check_pinned(ds, rel, p)
                chosen.append((p, rel))

    def fill(tmp: Path) -> None:
        for p, rel in chosen:
            dest = tmp / rel.split("/", 1)[1]
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest)

    _install_tree(data_dir() / "streusle-4.4", fill)
    files = {rel: sha256_of(data_dir() / rel) for _, rel in chosen}
    _record_import("streusle", ds.entry, files, src, say)


def _import_pdep_corpus(sources: list[Path], say: Say) -> None:
    from lexprobe.data.pdep import conllu_files, read_pdep

    files = [f for s in sources for f in conllu_files(s)]
    for f in files:
        read_pdep(f)  # format and split-name check
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        raise DataError(f"two PDEP files share a name ({', '.join(names)}); import them one folder at a time")

    def fill(tmp: Path) -> None:
        for f in files:
            shutil.copyfile(f, tmp / f.name)

    _install_tree(data_dir() / "pdep" / "corpus", fill)
    recorded = {f"pdep/corpus/{n}": sha256_of(data_dir() / "pdep" / "corpus" / n) for n in names}
    _record_import("pdep-corpus", "pdep/corpus", recorded, sources[0], say, pinned_now=list(recorded))


def _import_ontonotes(sources: list[Path], say: Say) -> None:
    from lexprobe.data.ontonotes import conll_files, read_ontonotes

    src = sources[0]
    files = conll_files(src)
    read_ontonotes(files[0], nota=set(), split=None if src.is_dir() else "test")
    base = src if src.is_dir() else src.parent

    def fill(tmp: Path) -> None:
        for f in files:
            dest = tmp / f.relative_to(base)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dest)

    _install_tree(data_dir() / "ontonotes" / "conll-2012", fill)
    say(f"ontonotes: {len(files)} CoNLL-2012 files")
    _record_import("ontonotes", "ontonotes/conll-2012", {}, src, say)


def _import_wordnet(sources: list[Path], say: Say) -> None:
    from lexprobe.data.wordnet import REQUIRED_FILES, lexnames_text

    src = sources[0]
    missing = [f for f in REQUIRED_FILES if not (src / f).is_file()]
    if missing:
        raise DataError(f"{src} is not a WordNet 3.0 dict folder (missing {', '.join(missing)})")

    def fill(tmp: Path) -> None:
        for item in src.iterdir():
            if item.is_file():
                shutil.copyfile(item.resolve(), tmp / item.name)
        if not (tmp / "lexnames").exists():
            (tmp / "lexnames").write_text(lexnames_text())

    _install_tree(data_dir() / "wordnet" / "dict", fill)
    _record_import("wordnet", "wordnet/dict", {}, src, say)
    from lexprobe.data import wordnet

    wordnet.load_wordnet.cache_clear()


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
            files[rel] = digest
            pinned_now.append(rel)
    if ds.content_sha256 and not problems:
        try:
            _check_content(ds, path, str(path))
        except DataError as err:
            problems.append(str(err))
    if not problems:
        state.update(files=files, verified=_now(), entry=state.get("entry") or ds.entry, name=name)
        state["pinned_on_first_fetch"] = sorted(set(state.get("pinned_on_first_fetch") or []) | set(pinned_now))
        _write_state(name, state)
    return "ok", problems


def status(name: str) -> dict:
    """What ``data list`` shows: presence, location, verification, pins (no hashing: fast)."""
    ds = DATASETS[name]
    path = locate(name)
    state = read_state(name)
    info = {"name": name, "present": path is not None, "path": str(path) if path else None,
            "verified": state.get("verified") if path else None, "source": state.get("source"),
            "pinned_on_first_fetch": state.get("pinned_on_first_fetch") or []}
    if name == "wordnet" and path is not None and not state.get("files"):
        info["verified"] = None
        info["source"] = "system installation"
    return info

