"""Where every dataset lexprobe uses comes from: version, upstream (repository, commit or tag, path), pinned URLs
(never a moving branch), licence, size and SHA-256 of each file.

A checksum is ``None`` where the file was not available when the registry was written: it is pinned on first
fetch (recorded in the data directory, checked from then on). SemCor is also pinned by content
(``content_sha256``, see ``naf_content_digest``), whatever its packaging. ``$LEXPROBE_DATA_MIRROR``
(http(s):// or file://) replaces the upstream hosts: ``https://HOST/PATH`` is fetched from ``<mirror>/HOST/PATH``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from lexprobe.data_home import data_dir  # noqa: F401  (the data layer's name for it)
from lexprobe.errors import DataError

CODA_COMMIT = "f5393e66eefcbc1b289a6f674527ac7522377382"
SEMCOR_COMMIT = "c31b9b8eb6d6ca726b6868f19123aaf7e5eb1d88"
STREUSLE_TAG = "v4.4"
UNCOMMON_SENSE_COMMIT = "d12dcfeeb7e70d3ebd011c6d2e0b3c876dea341b"
GLOSSBERT_COMMIT = "64d282d5bae75064fc1a0b35fae8b250538411ec"

_CODA_LICENCE = "no licence file upstream: use for evaluation, do not redistribute"
_PDEP_LICENCE = "PDEP (The Preposition Project), as distributed with the paper's code"


@dataclass(frozen=True)
class RemoteFile:
    """One file of a dataset: where it lives in the data directory and where it comes from."""

    relpath: str  # relative to the data directory
    url: str | None  # pinned upstream URL (None: cannot be downloaded)
    sha256: str | None = None  # None: pinned on first fetch
    size: int | None = None  # bytes, where known


@dataclass(frozen=True)
class Dataset:
    name: str
    title: str
    version: str
    upstream: str  # repository or distributor
    pin: str  # commit, tag or release
    upstream_path: str
    licence: str
    reader_format: str
    files: tuple[RemoteFile, ...] = ()
    entry: str = ""  # what readers take, relative to the data directory (file or folder)
    method: str = "http"  # http | nltk | import-only
    content_sha256: str | None = None  # format-independent digest (SemCor NAF documents)
    redistributable: bool = True
    notes: str = ""
    #: a dataset declared in a module of its own (``register_dataset``) brings its own ways, so the data layer never
    #: branches on its name: ``check(path, relpath)`` one file's format (before anything is pinned), ``importer(
    #: sources, say)`` ``lexprobe data import``, ``unpack(say)`` what readers open made from the files just fetched
    check: Callable[[Path, str], None] | None = None
    importer: Callable[[list[Path], Callable[[str], None]], None] | None = None
    unpack: Callable[[Callable[[str], None]], None] | None = None

    @property
    def size(self) -> int | None:
        sizes = [f.size for f in self.files]
        if sizes and all(s is not None for s in sizes):
            return sum(sizes)  # type: ignore[arg-type]
        return None

    @property
    def pinned_on_first_fetch(self) -> list[RemoteFile]:
        return [f for f in self.files if f.sha256 is None]

    @property
    def fetch_command(self) -> str:
        if self.method == "import-only":
            return f"lexprobe data import {self.name} PATH"
        return f"lexprobe data fetch {self.name}"


def _gh_raw(repo: str, pin: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{pin}/{path}"


def _coda(variant: str, sha256: str | None, size: int | None) -> Dataset:
    name = f"CoDA-{variant}.json"
    return Dataset(
        name=f"coda21-{variant}", title=f"CoDA21 {variant} (official release)", version=CODA_COMMIT[:7],
        upstream="github.com/lksenel/CoDA21", pin=CODA_COMMIT, upstream_path=f"Data/{name}", licence=_CODA_LICENCE,
        reader_format='CoDA21 JSON {"n": [group], "v": [group]}',
        files=(RemoteFile(f"coda21/{name}", _gh_raw("lksenel/CoDA21", CODA_COMMIT, f"Data/{name}"), sha256, size),),
        entry=f"coda21/{name}", redistributable=False,
    )


def _uncommon_sense(name: str, title: str, upstream_path: str, licence: str, reader_format: str, entry: str,
                    files: tuple[tuple[str, str, str | None, int | None], ...]) -> Dataset:
    """A dataset distributed with the sense-ranking paper's code; ``files``: (relpath, upstream path, sha256,
    size)."""
    return Dataset(
        name=name, title=title, version=UNCOMMON_SENSE_COMMIT[:7],
        upstream="github.com/lgessler/bert-has-uncommon-sense", pin=UNCOMMON_SENSE_COMMIT,
        upstream_path=upstream_path, licence=licence, reader_format=reader_format,
        files=tuple(RemoteFile(rel, _gh_raw("lgessler/bert-has-uncommon-sense", UNCOMMON_SENSE_COMMIT, path), sha, size)
                    for rel, path, sha, size in files),
        entry=entry,
    )


_SEMCOR_ARCHIVE = f"semcor/wsd_corpora-{SEMCOR_COMMIT}.tar.gz"

#: Raganato et al.'s framework as copied into GlossBERT's repository (``Evaluation_Datasets/``, byte for byte
#: the framework's files): relpath under the framework folder -> (sha256, size)
_WSD_FILES = {
    "senseval2/senseval2.data.xml": ("5f5fe6a74fdd4ee85ca271c49a3b88131e4a7ba04a11a1392c1333efcbfe9be9", 301_219),
    "senseval2/senseval2.gold.key.txt": ("1e1c43116dadc796763c59f66cc61aa204cfb1886e5825836a96cf9b96a056e8", 77_498),
    "senseval3/senseval3.data.xml": ("ecd472808c5f3873b0e90fda6182519e5ed6081929435a67eb7f2c5a8fd36839", 281_256),
    "senseval3/senseval3.gold.key.txt": ("1faa09ca47a9c4627c0c1078dfc30e39c16d6ce728a532cc670007fbca0be70e", 61_519),
    "semeval2007/semeval2007.data.xml": ("ff0cb1350acf7d0bf09f05b18c537870c8205f12daa2510099674a227c149f38", 142_049),
    "semeval2007/semeval2007.gold.key.txt": ("06dce0b5892bb5c625ebfd8755d1a31a5a04df6882709aa29c1dcd44befb3b41", 14_555),
    "semeval2013/semeval2013.data.xml": ("58682da53cdb24e7563f9a77bc357616eee6863399c2be62f8927c9d5eb20245", 386_664),
    "semeval2013/semeval2013.gold.key.txt": ("3dcedb0b9bed2906c3651d089236801c5353198ba6eda0575f864e3d18ee81cc", 54_463),
    "semeval2015/semeval2015.data.xml": ("e0804170a39fac9d0da6c707b0b974d493a385743557a40626abf36609372650", 137_606),
    "semeval2015/semeval2015.gold.key.txt": ("3a15c65607f27efb3846a71a303b21d0916b5bb527348bf27f526d6770301eaf", 37_352),
    "ALL/ALL.data.xml": ("27a9da01b6d4a1e4dc7c76d15148a38eaa56cc0df371cae4416d04e541b6fe36", 1_340_442),
    "ALL/ALL.gold.key.txt": ("0bf2ffc38f572587c72b59ea928da676423b99b5a54bd1a83eb4848b517d3170", 324_159),
    "README": ("cbd986b52fa6c401c6ea6790f4ee593fbcefddece9dbd8a27a62cd31d6ed4599", 3_238),
    "Scorer.java": ("3237054aa1d2fc646977126e3923c87ffdad8d9747de3296abb853fb7053ffd3", 2_827),
}

DATASETS: dict[str, Dataset] = {d.name: d for d in (
    Dataset(
        name="wordnet", title="WordNet 3.0", version="3.0",
        upstream="NLTK data (`wordnet` package) or Debian wordnet-base", pin="3.0", upstream_path="corpora/wordnet.zip",
        licence="WordNet 3.0 licence (Princeton University; free use and redistribution with notice)",
        reader_format="WordNet dict files read by NLTK",
        files=(RemoteFile("nltk_data/corpora/wordnet.zip",
                          "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/wordnet.zip"),),
        entry="nltk_data", method="nltk",
        notes="fetched with NLTK's downloader (whose server has no pinned revisions: the zip is pinned on "
              "first fetch); `scripts/setup.sh` installs Debian's wordnet-base instead",
    ),
    _coda("clean-easy", "e9636d3e43a633d106ab6f7c35344d7afc491c09f1f7a5668bc19cbc9c9eda37", 1_145_382),
    _coda("clean-hard", "1c797391da14d68b8c3527e4065564b89e66456472b20b4b774960291fdfabef", 584_311),
    _coda("noisy-easy", None, None),
    _coda("noisy-hard", "cf3baad012beb72f5bd8a9c4c7d68b0d04b68026815a6ed07e4c872d6d502bf6", 2_919_726),
    Dataset(
        name="semcor", title="SemCor 3.0 in NAF (WordNet 3.0 sense keys)", version="3.0",
        upstream="github.com/rubenIzquierdo/wsd_corpora", pin=SEMCOR_COMMIT,
        upstream_path="semcor3.0/brown*/*.naf (repository archive)",
        licence="SemCor: Princeton WordNet licence; NAF packaging: Apache-2.0",
        reader_format="NAF XML per document; a tar archive (any compression) or an unpacked tree",
        files=(RemoteFile(_SEMCOR_ARCHIVE, f"https://github.com/rubenIzquierdo/wsd_corpora/archive/{SEMCOR_COMMIT}.tar.gz"),),
        entry=_SEMCOR_ARCHIVE,
        content_sha256="3699a1cf7333265bd890a5c05f2ee3762d7e3011eaeee5dd5f6b7b8366a22ecd",
        notes="the repository archive also holds other WSD corpora; only semcor3.0/brown*/ is read",
    ),
    Dataset(
        name="streusle", title="STREUSLE 4.4 (train, dev, test)", version="4.4",
        upstream="github.com/nert-nlp/streusle", pin=STREUSLE_TAG,
        upstream_path="{train,dev,test}/streusle.ud_<split>.json",
        licence="CC BY-SA 4.0 annotations (English Web Treebank text)",
        reader_format="STREUSLE JSON per split (conllulex and .vis also read)",
        files=(
            RemoteFile("streusle-4.4/train/streusle.ud_train.json",
                       _gh_raw("nert-nlp/streusle", STREUSLE_TAG, "train/streusle.ud_train.json")),
            RemoteFile("streusle-4.4/dev/streusle.ud_dev.json",
                       _gh_raw("nert-nlp/streusle", STREUSLE_TAG, "dev/streusle.ud_dev.json"),
                       "4481069966a1c9f88f8357dfa393ffb5e21dee406d562273a500d3cb6cee7993", 1_850_404),
            RemoteFile("streusle-4.4/test/streusle.ud_test.json",
                       _gh_raw("nert-nlp/streusle", STREUSLE_TAG, "test/streusle.ud_test.json"),
                       "f79217b717dffa9f58cf0f2addf10c41a4d84c930c444fcf8c2b24d3e43ca9dc", 1_848_016),
        ),
        entry="streusle-4.4",
    ),
    _uncommon_sense(
        "pdep-inventory", "PDEP preposition sense inventory (prepdefs.sqlite)", "data/pdep/SQL/prepdefs.sqlite",
        _PDEP_LICENCE, "SQLite table prepdefs(prep, sense, def)", "pdep/prepdefs.sqlite",
        (("pdep/prepdefs.sqlite", "data/pdep/SQL/prepdefs.sqlite",
          "3fcce72f385e1dac36b33b006992e84a1779420442116a9928970d758fe0ae8d", 139_264),),
    ),
    _uncommon_sense(
        "pdep-corpus", "PDEP corpus of sense-tagged prepositions (train, test)", "data/pdep/pdep_{train,test}.conllu",
        _PDEP_LICENCE, "CoNLL-U with Sense= in MISC", "pdep/corpus",
        tuple((f"pdep/corpus/pdep_{split}.conllu", f"data/pdep/pdep_{split}.conllu", None, None)
              for split in ("train", "test")),
    ),
    _uncommon_sense(
        "ontonotes-nota", "OntoNotes 'none of the above' sense list (dropped senses)", "data/ontonotes_nota_senses.txt",
        "as distributed with the paper's code", "text, one lemma_pos_sense per line",
        "ontonotes/ontonotes_nota_senses.txt",
        (("ontonotes/ontonotes_nota_senses.txt", "data/ontonotes_nota_senses.txt",
          "4094cede2497855e89a725993b49088983df0fa89fe2cd4d8f6b0abb6fade0a5", 45_198),),
    ),
    Dataset(
        name="wsd",
        title="WSD unified evaluation framework (Raganato et al. 2017): Senseval-2/3, SemEval-2007/2013/2015, ALL",
        version=GLOSSBERT_COMMIT[:7], pin=GLOSSBERT_COMMIT,
        upstream="github.com/HSLCY/GlossBERT (a copy of the framework's lcl.uniroma1.it/wsdeval release)",
        upstream_path="Evaluation_Datasets/{<set>/<set>.data.xml,<set>/<set>.gold.key.txt,README,Scorer.java}",
        licence="research use under the framework's terms (cite Raganato et al. 2017 and each task's paper); "
                "no licence file upstream",
        reader_format="<set>.data.xml (corpus/text/sentence of wf and instance) + <set>.gold.key.txt",
        files=tuple(RemoteFile(f"wsd-raganato/{rel}", _gh_raw("HSLCY/GlossBERT", GLOSSBERT_COMMIT,
                                                              f"Evaluation_Datasets/{rel}"), sha, size)
                    for rel, (sha, size) in _WSD_FILES.items()),
        entry="wsd-raganato", redistributable=False,
        notes="`data import wsd DIR` takes the framework's folder (ALL/, senseval2/, ...); README and Scorer.java "
              "are copied when present",
    ),
    Dataset(
        name="ontonotes", title="OntoNotes 5.0 in CoNLL-2012 format (word senses)", version="5.0",
        upstream="LDC (LDC2013T19)", pin="LDC2013T19",
        upstream_path="CoNLL-2012 *_conll files (train/, development/, test/)",
        licence="LDC licence: bring your own copy", reader_format="CoNLL-2012 *_conll with the word-sense column",
        entry="ontonotes/conll-2012", method="import-only", redistributable=False,
    ),
)}

def register_dataset(ds: Dataset) -> Dataset:
    """Add a dataset declared in a module of its own (a benchmark's data), by its name; returns it."""
    DATASETS[ds.name] = ds
    return ds


#: names that stand for several datasets on the command line
GROUPS: dict[str, tuple[str, ...]] = {
    "coda21": ("coda21-clean-easy", "coda21-clean-hard", "coda21-noisy-easy", "coda21-noisy-hard"),
    "pdep": ("pdep-inventory", "pdep-corpus"),
}


def expand_names(names) -> list[str]:
    """Dataset names with groups expanded, in order, without repeats; unknown names are an error."""
    out: list[str] = []
    for name in names:
        for m in GROUPS.get(name, (name,)):
            if m not in DATASETS:
                choices = ", ".join([*DATASETS, *GROUPS])
                raise DataError(f"unknown dataset {name!r}; choose one of {choices} (see `lexprobe data list`)")
            if m not in out:
                out.append(m)
    return out


def mirror_url(url: str, mirror: str | None = None) -> str:
    """The URL to fetch: ``url`` itself, or ``<mirror>/<host>/<path>`` under ``$LEXPROBE_DATA_MIRROR``."""
    mirror = os.environ.get("LEXPROBE_DATA_MIRROR", "") if mirror is None else mirror
    if not mirror:
        return url
    if not mirror.startswith(("http://", "https://", "file://")):
        raise DataError(f"LEXPROBE_DATA_MIRROR={mirror!r} must start with http://, https:// or file://")
    parts = urlsplit(url)
    return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path}"
