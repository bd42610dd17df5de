"""WordNet 3.0 through NLTK, from wherever it is installed.

``nltk.download("wordnet")`` (or ``lexprobe data fetch wordnet``) puts it where NLTK finds it. Debian's
``wordnet-base`` installs it under ``/usr/share/wordnet``, but NLTK (>= 3.9) reads only under ``nltk.data.path``,
rejects symlinks and needs a ``lexnames`` file Debian does not ship: the files are copied once into
``<cache>/nltk_data/corpora/wordnet/`` with our ``lexnames``. Synsets are keyed by name or sense key, never by
byte offset (some Debian verb offsets differ from Princeton's).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from lexprobe.cache import cache_dir
from lexprobe.errors import DataError

DEBIAN_WORDNET_DIRS = ("/usr/share/wordnet", "/usr/local/share/wordnet")
REQUIRED_FILES = ("data.noun", "data.verb", "index.noun", "index.verb", "index.sense")

# lexnames(5WN): number, name, syntactic category (1 noun, 2 verb, 3 adj, 4 adv)
LEXNAMES = [
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event",
    "noun.feeling", "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object",
    "noun.person", "noun.phenomenon", "noun.plant", "noun.possession", "noun.process",
    "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time",
    "verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition",
    "verb.consumption", "verb.contact", "verb.creation", "verb.emotion", "verb.motion",
    "verb.perception", "verb.possession", "verb.social", "verb.stative", "verb.weather",
    "adj.ppl",
]
_CATEGORY = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}


def lexnames_text() -> str:
    return "".join(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def _candidate_source_dirs() -> list[Path]:
    from lexprobe.data.registry import data_dir

    env = os.environ.get("LEXPROBE_WORDNET")
    dirs = [Path(env)] if env else []
    # Debian's wordnet-base, then `lexprobe data import wordnet DIR`'s copy
    return dirs + [Path(d) for d in DEBIAN_WORDNET_DIRS] + [data_dir() / "wordnet" / "dict"]


def wordnet_source_dir() -> Path | None:
    """The first WordNet dict directory lexprobe would copy from (None: rely on nltk_data)."""
    for src in _candidate_source_dirs():
        if all((src / f).exists() for f in REQUIRED_FILES):
            return src
    return None


def _install_into_nltk_data(src: Path) -> Path:
    """Copy a WordNet dict directory into an NLTK data root under our cache; return the root."""
    root = Path(os.environ.get("LEXPROBE_NLTK_DATA", cache_dir() / "nltk_data"))
    target = root / "corpora" / "wordnet"
    marker = target / ".lexprobe-source"
    if marker.exists() and marker.read_text() == str(src.resolve()):
        return root
    from lexprobe.data.install import _copy_file
    from lexprobe.outputs import write_atomic

    try:
        target.mkdir(parents=True, exist_ok=True)
        for item in src.iterdir():
            if item.is_file():  # each file whole or not at all (never through a link there); the marker last
                _copy_file(item.resolve(), target / item.name)
        if not (target / "lexnames").exists():
            write_atomic(target / "lexnames", lexnames_text(), one_line_errors=False)
        write_atomic(marker, str(src.resolve()), one_line_errors=False)
    except OSError as err:
        from lexprobe.outputs import disk_full

        if not disk_full(err):
            raise
        # shutil names the file it read from (err.filename); the one that could not be written is ours
        raise DataError(f"no space left on the device to copy WordNet into {target} ({err.strerror}); free some "
                        "space, or set LEXPROBE_CACHE (or LEXPROBE_NLTK_DATA) to a folder on another disk") from None
    return root


def _installed(src: Path) -> Path:
    """``_install_into_nltk_data``, or (the cache cannot be written: a read-only shared cache, D16) the
    same copy in a private temporary folder removed at exit, with one notice."""
    try:
        return _install_into_nltk_data(src)
    except OSError as err:
        import errno

        from lexprobe.cache import cache_not_writable, private_folder

        if err.errno in (errno.ENOSPC, errno.EDQUOT) or "LEXPROBE_NLTK_DATA" in os.environ:
            raise
        cache_not_writable(Path(err.filename or cache_dir()), err)
        os.environ["LEXPROBE_NLTK_DATA"] = str(private_folder("lexprobe-nltk-"))
        try:
            return _install_into_nltk_data(src)
        finally:
            del os.environ["LEXPROBE_NLTK_DATA"]


def _reader_class():
    """NLTK's WordNet reader without the Open Multilingual WordNet mapping NLTK 3.10 builds in ``__init__``
    (``map_wn()``: ~14 s of a ~25 s load on two cores); lexprobe never uses OMW, nothing else changes."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class WordNet30(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):
            return None if self._omw_reader is None else super().map_wn(version)

    return WordNet30


def wordnet_key() -> str:
    """The installed WordNet's identity without loading it (~20 s): version from the data files' header and a hash
    of their sizes, where ``load_wordnet`` looks first (else loaded). Keys every cache built from WordNet."""
    import re

    from lexprobe.cache import stable_hash

    src = wordnet_source_dir()
    if src is not None:
        files = [src / "data.noun", src / "data.verb"]
        with files[0].open(encoding="utf-8", errors="replace") as f:
            match = re.search(r"WordNet (\d+(?:\.\d+)*) Copyright", f.read(4000))
        version = match.group(1) if match else "unknown"
        return f"wordnet-{version}-{stable_hash([p.stat().st_size for p in files], 8)}"
    return f"wordnet-{load_wordnet().get_version()}"


@lru_cache(maxsize=1)
def load_wordnet():
    """Return NLTK's WordNet reader (WordNet 3.0), setting NLTK up if needed."""
    import warnings

    import nltk

    WordNetCorpusReader = _reader_class()
    # NLTK warns that Open Multilingual WordNet is absent; lexprobe never uses it
    warnings.filterwarnings("ignore", message="The multilingual functions are not available")

    src = wordnet_source_dir()
    if src is not None:
        root = _installed(src)
        if str(root) not in nltk.data.path:
            nltk.data.path.insert(0, str(root))
        return WordNetCorpusReader(str(root / "corpora" / "wordnet"), None)
    looked = [str(d) for d in _candidate_source_dirs()]
    from lexprobe.data.registry import data_dir

    fetched = data_dir() / "nltk_data"  # `lexprobe data fetch wordnet`
    if fetched.is_dir() and str(fetched) not in nltk.data.path:
        nltk.data.path.append(str(fetched))
    try:  # nltk.download("wordnet") on a user's machine
        path = nltk.data.find("corpora/wordnet")
        return WordNetCorpusReader(str(path), None)
    except LookupError:
        looked.append("nltk_data (nltk.data.path)")
    raise DataError(
        "WordNet 3.0 not found (looked in " + ", ".join(looked) + "); run `lexprobe data fetch wordnet` "
        "(NLTK's downloader) or `apt-get install wordnet-base wordnet-sense-index`, "
        "or set LEXPROBE_WORDNET to a WordNet dict directory"
    )


def synset_string(name: str) -> str:
    """String form of a synset: ``warm_up.v.04`` -> ``warm up``."""
    return name.rsplit(".", 2)[0].replace("_", " ")

# --- the dataset: fetch, import, where it is --------------------------------------------------------------------

import re  # noqa: E402
from typing import Callable  # noqa: E402

from lexprobe.data.download import NetworkError, download, sha256_of, timeout_s  # noqa: E402
from lexprobe.data.install import _install_tree, _now, put  # noqa: E402
from lexprobe.data.locations import read_state  # noqa: E402
from lexprobe.data.pins import record_import, write_record  # noqa: E402
from lexprobe.data.registry import Dataset, RemoteFile, data_dir, mirror_url, register_dataset  # noqa: E402

NLTK_INDEX_URL = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/index.xml"
#: what NLTK's downloader fetches for "wordnet" (NLTK's data server has no pinned revisions)
NLTK_WORDNET_URL = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/wordnet.zip"



def location() -> Path | None:
    """Where WordNet is: a dict folder lexprobe copies from (Debian's, ``$LEXPROBE_WORDNET``, an imported one), else
    NLTK's data under the data directory; None: nowhere."""
    src = wordnet_source_dir()
    if src is not None:
        return src
    nltk_root = data_dir() / "nltk_data" / "corpora"
    for p in (nltk_root / "wordnet", nltk_root / "wordnet.zip"):
        if p.exists():
            return p
    return None


def fetch_wordnet(progress: bool, force: bool, say: Callable[[str], None]) -> Path:
    """``lexprobe data fetch wordnet``: NLTK's downloader (or, under ``$LEXPROBE_DATA_MIRROR``, the zip itself,
    checked and unpacked as NLTK does); the zip pinned on first fetch."""
    where = location()
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
    load_wordnet.cache_clear()
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


def check_wordnet_zip(path: Path) -> None:
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


def system_copy() -> Path | None:
    """A WordNet installed outside the data directory (Debian's, ``$LEXPROBE_WORDNET``): nothing lexprobe pinned."""
    where = location()
    state = read_state("wordnet")
    if where is not None and not (state.get("files") and str(where).startswith(str(data_dir()))):
        return where
    return None


def import_wordnet(sources: list[Path], say: Callable[[str], None]) -> None:
    """``lexprobe data import wordnet DICT_DIR``: a WordNet 3.0 dict folder (with our ``lexnames`` where it has none)."""
    src = sources[0]
    missing = [f for f in REQUIRED_FILES if not (src / f).is_file()]
    if missing:
        raise DataError(f"{src} is not a WordNet 3.0 dict folder (missing {', '.join(missing)})")

    def fill(tmp: Path) -> None:
        for item in src.iterdir():
            if item.is_file():
                put(tmp, item.name, item.resolve())
        if not (tmp / "lexnames").exists():
            put(tmp, "lexnames", lexnames_text())

    _install_tree(data_dir() / "wordnet" / "dict", fill)
    record_import("wordnet", "wordnet/dict", {}, src, say)
    load_wordnet.cache_clear()


DATASET = register_dataset(Dataset(
    name="wordnet", title="WordNet 3.0", version="3.0",
    upstream="NLTK data (`wordnet` package) or Debian wordnet-base", pin="3.0", upstream_path="corpora/wordnet.zip",
    licence="WordNet 3.0 licence (Princeton University; free use and redistribution with notice)",
    reader_format="WordNet dict files read by NLTK",
    files=(RemoteFile("nltk_data/corpora/wordnet.zip", NLTK_WORDNET_URL),),
    entry="nltk_data", method="nltk",
    notes="fetched with NLTK's downloader (whose server has no pinned revisions: the zip is pinned on "
          "first fetch); `scripts/setup.sh` installs Debian's wordnet-base instead",
    check=lambda path, rel: check_wordnet_zip(path), importer=import_wordnet, fetcher=fetch_wordnet,
    locate=location, system=system_copy,
))
