"""WordNet 3.0 through NLTK, from wherever it is installed.

On a user's machine ``nltk.download("wordnet")`` (or ``lexprobe data fetch wordnet``,
which runs it into the data directory) puts WordNet where NLTK finds it.
On Debian/Ubuntu the ``wordnet-base`` package installs the same database under
``/usr/share/wordnet``; NLTK (>= 3.9) reads a corpus only from under a directory on
``nltk.data.path``, rejects symlinks and needs a ``lexnames`` file that Debian does
not ship, so we copy the files into ``<cache>/nltk_data/corpora/wordnet/`` once and
write ``lexnames`` ourselves. Synsets are keyed by name or sense key, never by byte
offset (some Debian verb offsets differ from Princeton's).
"""

from __future__ import annotations

import os
import shutil
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
    lines = []
    for i, name in enumerate(LEXNAMES):
        lines.append(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}")
    return "\n".join(lines) + "\n"


def _candidate_source_dirs() -> list[Path]:
    dirs = []
    env = os.environ.get("LEXPROBE_WORDNET")
    if env:
        dirs.append(Path(env))
    dirs.extend(Path(d) for d in DEBIAN_WORDNET_DIRS)
    from lexprobe.data.registry import data_dir

    dirs.append(data_dir() / "wordnet" / "dict")  # `lexprobe data import wordnet DIR`
    return dirs


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
    from lexprobe.outputs import write_atomic

    try:
        target.mkdir(parents=True, exist_ok=True)
        for item in src.iterdir():
            if item.is_file():  # each file whole or not at all (never through a link there); the marker last
                with open(item.resolve(), "rb") as f:
                    write_atomic(target / item.name, lambda out: shutil.copyfileobj(f, out, 1 << 20),
                                 one_line_errors=False)
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
    """NLTK's WordNet reader without the Open Multilingual WordNet mapping it builds on construction.

    Why: NLTK 3.10 maps "wordnet" synsets to the loaded version for OMW in ``__init__`` (``map30 =
    map_wn()``), reading index.sense twice and every data file: ~14 s of a ~25 s load on two cores, in every
    process that reads WordNet. lexprobe never uses OMW (the reader is made without it), so the mapping is
    skipped; nothing else of the reader changes."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class WordNet30(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):
            return None if self._omw_reader is None else super().map_wn(version)

    return WordNet30


def wordnet_key() -> str:
    """Identify the installed WordNet without loading it (NLTK's reader takes ~20 s to start): the key of every
    cache built from WordNet (WDLMPro's groups and stats, CoDA21's builds).

    Looks where ``load_wordnet`` looks first; the key holds the version from the data files' header and a hash
    of their sizes. Falls back to loading WordNet.
    """
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

    looked: list[str] = []
    for src in _candidate_source_dirs():
        looked.append(str(src))
        if all((src / f).exists() for f in REQUIRED_FILES):
            root = _installed(src)
            if str(root) not in nltk.data.path:
                nltk.data.path.insert(0, str(root))
            return WordNetCorpusReader(str(root / "corpora" / "wordnet"), None)
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
