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
