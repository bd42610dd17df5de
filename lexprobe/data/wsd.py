"""Raganato et al.'s unified all-words WSD framework: its five sets and ALL, read strictly.

The framework (Raganato, Camacho-Collados & Navigli, EACL 2017) gives each set as ``<set>.data.xml``
(``<corpus>/<text id>/<sentence id>`` of ``<wf lemma pos>`` tokens and ``<instance id lemma pos>``
targets; pos NOUN/VERB/ADJ/ADV) and ``<set>.gold.key.txt`` (``<instance id> <sense key> [...]``: any
listed WordNet 3.0 key is right). ALL is the five sets concatenated, its ids prefixed with the set's name
(``senseval2.d000.s000.t000``); ``check_framework`` verifies that it is exactly that.

Candidates come from WordNet (``wsd_senses.py``), scoring from ``metrics/wsd.py``; the XML is read by
``wsd_xml.read_targets`` (DTDs forbidden). Strict: an unknown element, a missing id/lemma/pos, an id twice, an
instance without gold or gold without an instance... each is one ``DataError`` naming ``file:line``, never skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from lexprobe.data.exported import RowFormat
from lexprobe.data.files import require_regular
from lexprobe.data.instances import TargetInSentence
from lexprobe.data.registry import Dataset, RemoteFile, github_raw, register_dataset
from lexprobe.data.wsd_xml import DATA_SUFFIX, POS_TAGS, read_targets, stem_of  # noqa: F401  (POS_TAGS: re-exported)
from lexprobe.errors import DataError
from lexprobe.metrics.wsd import Answers, format_key_lines, parse_key_lines

#: the framework's five evaluation sets, in the paper's order, and their concatenation
SETS = ("senseval2", "senseval3", "semeval2007", "semeval2013", "semeval2015")
ALL = "ALL"
NAMES = (*SETS, ALL)
#: the paper's short names (table columns)
SHORT = {"senseval2": "SE2", "senseval3": "SE3", "semeval2007": "SE07", "semeval2013": "SE13",
         "semeval2015": "SE15", ALL: "ALL"}
#: instances per set (the paper's Table 2; the files hold exactly these)
PUBLISHED_COUNTS = {"senseval2": 2282, "senseval3": 1850, "semeval2007": 455, "semeval2013": 1644,
                    "semeval2015": 1022, ALL: 7253}
#: ours (N, V, A, R; from the framework's NOUN, VERB, ADJ, ADV: ``wsd_xml.POS_TAGS``) -> WordNet's
#: (adjectives include satellites)
WORDNET_POS = {"N": "n", "V": "v", "A": "a", "R": "r"}
POS_ORDER = ("N", "V", "A", "R")

GOLD_SUFFIX = ".gold.key.txt"

#: an instance as an exported row (``lexprobe export hf wsd``; ``lexprobe wsd eval --data EXPORT`` reads it back),
#: one part per set; ``candidates`` are the WordNet senses as lexprobe reads them (for the Hub's readers: lexprobe
#: reads them from WordNet again)
ROWS = RowFormat("wsd-instances/1", "wsd", (
    ("id", "string"), ("set", "string"), ("doc_id", "string"), ("sent_id", "string"), ("lemma", "string"),
    ("pos", "string"), ("tokens", ["string"]), ("index", "int32"), ("gold", ["string"]),
    ("candidates", [{"key": "string", "synset": "string", "definition": "string"}])), key=("set",))


@dataclass(frozen=True)
class WsdInstance(TargetInSentence):
    """One target of the framework: ``tokens[index]`` of its sentence, with its gold sense keys."""

    id: str  # as in the files: "d000.s000.t000" in a set's files, "senseval2.d000.s000.t000" in ALL's
    set_name: str  # senseval2 ... semeval2015 (ALL's instances: their own set), or a file's stem
    doc_id: str  # the <text id>
    sent_id: str  # the <sentence id>
    lemma: str  # the framework's lemma: lower case, "_" joins a multi-word lemma (change_ringing)
    pos: str  # N, V, A, R
    tokens: tuple[str, ...]  # the sentence's <wf> and <instance> texts in order
    index: int  # the target's position in ``tokens``
    gold: tuple[str, ...]  # gold sense keys, file order; any one is right

    @property
    def wordnet_pos(self) -> str:
        return WORDNET_POS[self.pos]

    @property
    def qualified_id(self) -> str:
        """The id ALL gives this instance (``<set>.<id>``); ALL's own ids are already so."""
        if self.set_name in SETS and not self.id.startswith(self.set_name + "."):
            return f"{self.set_name}.{self.id}"
        return self.id


# --- reading ----------------------------------------------------------------------------------------

def read_wsd(data_xml: str | Path, gold_key: str | Path | None = None) -> list[WsdInstance]:
    """The instances of one framework file pair, in document order (``gold_key``: by default the
    ``<stem>.gold.key.txt`` beside ``<stem>.data.xml``). Every instance must have gold keys and every gold line
    an instance."""
    data_xml = Path(data_xml)
    gold_path = Path(gold_key) if gold_key is not None else gold_path_of(data_xml)
    targets, source = read_targets(data_xml)
    set_name = source if source in SETS else stem_of(data_xml)  # ALL, or one's own file
    gold = read_key_file(gold_path)
    out = []
    for t in targets:
        keys = gold.get(t.id)
        if keys is None:
            raise DataError(f"{data_xml}:{t.line}: instance {t.id!r} has no line in {gold_path}; every instance "
                            "needs its gold sense keys")
        name = _own_set(t.id, set_name)
        out.append(WsdInstance(t.id, name, t.doc_id, t.sent_id, t.lemma, t.pos, t.tokens, t.index, keys))
    if len(gold) != len(out):
        ids = {t.id for t in targets}
        stray = next(i for i in gold if i not in ids)
        line = _line_numbers(gold_path).get(stray, "?")
        raise DataError(f"{gold_path}:{line}: instance {stray!r} is not in {data_xml}; the gold file belongs to "
                        "another set")
    return out


def gold_path_of(data_xml: Path) -> Path:
    """``<stem>.gold.key.txt`` beside ``<stem>.data.xml``."""
    return data_xml.with_name(stem_of(data_xml) + GOLD_SUFFIX)


def read_beside(data: str | Path) -> dict[str, Path]:
    """What ``load_wsd(data)`` reads besides ``data`` itself, for ``outputs.guard`` (``option(reads=...)``): the
    gold key file beside a file of one's own (an output once replaced it, D1), the whole export an export's
    sub-folder belongs to; nothing for a set name (the data directory is guarded as a whole)."""
    from lexprobe.data.exported import read_beside as export_read_beside

    if str(data) in NAMES:
        return {}
    path = Path(data)
    if path.is_dir():
        return export_read_beside(path)
    return {"its gold key file": gold_path_of(path)}


def read_key_file(path: str | Path) -> dict[str, tuple[str, ...]]:
    """A key file (gold or a system's answers) as id -> keys; one ``DataError`` naming ``file:line``."""
    path = Path(path)
    text = _read_text(path, "pass a key file (`<instance id> <sense key> ...` per line)")
    return parse_key_lines(text.split("\n"), str(path))


def write_key_file(path: str | Path, answers: Answers) -> Path:
    """Write ``answers`` (id -> keys) in the framework's format (atomically), for ``Scorer.java`` or another tool."""
    from lexprobe.outputs import write_atomic

    return write_atomic(path, format_key_lines(answers))


def _read_text(path: Path, fix: str) -> str:
    from lexprobe.data.pins import check_unchanged

    require_regular(path, fix)
    if path.is_dir():
        raise DataError(f"{path} is a folder; {fix}")
    check_unchanged(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise DataError(f"cannot read {path} ({err.strerror or err}); {fix}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise DataError(f"{path}:{line}: not UTF-8 text ({err.reason}); {fix}") from None


def _line_numbers(path: Path) -> dict[str, int]:
    """Instance id -> line of a key file already read (only for messages)."""
    out: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        fields = line.split(" ")
        if fields and fields[0]:
            out.setdefault(fields[0], number)
    return out


def _own_set(instance_id: str, file_set: str) -> str:
    """ALL's instances belong to the set their id names; a set's to the set itself."""
    prefix = instance_id.split(".", 1)[0]
    return prefix if prefix in SETS and file_set not in SETS else file_set


# --- the framework folder --------------------------------------------------------------------------

def set_files(root: Path, name: str) -> tuple[Path, Path]:
    """``<root>/<name>/<name>.data.xml`` and its gold key file."""
    return root / name / f"{name}{DATA_SUFFIX}", root / name / f"{name}{GOLD_SUFFIX}"


def default_root() -> Path:
    """The framework in the data directory (``lexprobe data fetch wsd`` / ``data import wsd DIR``)."""
    from lexprobe.data.locations import entry_path

    return entry_path("wsd")


def instance_row(inst: WsdInstance, candidates) -> dict:
    """An instance as an exported row (``ROWS``); ``candidates``: its ``wsd_senses.Sense``s."""
    return {"id": inst.id, "set": inst.set_name, "doc_id": inst.doc_id, "sent_id": inst.sent_id, "lemma": inst.lemma,
            "pos": inst.pos, "tokens": list(inst.tokens), "index": inst.index, "gold": list(inst.gold),
            "candidates": [{"key": c.key, "synset": c.synset, "definition": c.definition} for c in candidates]}


def read_export(path: str | Path) -> list[WsdInstance] | None:
    """The instances of an exported folder (``lexprobe export hf wsd``; ``DIR/<set>`` selects a set), each part
    checked against the manifest and ``ROWS``; None when ``path`` is no export."""
    from lexprobe.data.exported import open_export

    parts = open_export(path, ROWS)
    if parts is None:
        return None
    return [WsdInstance(r["id"], r["set"], r["doc_id"], r["sent_id"], r["lemma"], r["pos"], tuple(r["tokens"]),
                        int(r["index"]), tuple(r["gold"])) for part in parts for r in part.rows]


def load_wsd(data: str | Path = ALL, root: str | Path | None = None) -> list[WsdInstance]:
    """A set by name (``senseval2`` ... ``semeval2015``, ``ALL``) from ``root`` (default: the data
    directory), a ``.data.xml`` file of one's own (its gold key file beside it), or an exported folder."""
    if str(data) in NAMES:
        folder = Path(root) if root is not None else default_root()
        if root is None and not folder.is_dir():
            from lexprobe.data.locations import missing_message

            raise DataError(missing_message("wsd"))
        xml_path, gold_path = set_files(folder, str(data))
        if not xml_path.exists():
            raise DataError(f"{xml_path} does not exist; {folder} should be the framework's folder "
                            f"({', '.join(NAMES)}, each with its .data.xml and .gold.key.txt)")
        return read_wsd(xml_path, gold_path)
    path = Path(data)
    if not path.exists():
        raise DataError(f"{path} does not exist; give a set ({', '.join(NAMES)}), a <name>.data.xml file "
                        "with its <name>.gold.key.txt beside it, or a folder `lexprobe export hf wsd` wrote")
    exported = read_export(path)
    return exported if exported is not None else read_wsd(path)


def check_count(set_name: str, count: int, path: Path, what: str = "file") -> None:
    """The published instance count of a set (``PUBLISHED_COUNTS``; ``what``: the file's name in the message)."""
    expected = PUBLISHED_COUNTS.get(set_name)
    if expected is not None and count != expected:
        table = " (the paper's Table 2)" if what == "file" else ""
        raise DataError(f"{os.fspath(path)} holds {count:,} instances; the framework's {set_name} has {expected:,}"
                        f"{table}: not the framework's {what}")


def check_framework(root: str | Path) -> dict[str, list[WsdInstance]]:
    """Read every set of the framework folder ``root``, check the published counts and that ALL is the five
    sets concatenated (same ids with the set's prefix, lemmas, parts of speech, sentences and gold, in
    order); returns the instances by set name."""
    root = Path(root)
    found = {}
    for name in NAMES:
        xml_path, gold_path = set_files(root, name)
        instances = read_wsd(xml_path, gold_path)
        check_count(name, len(instances), xml_path)
        found[name] = instances
    concatenation = [i for name in SETS for i in found[name]]
    for mine, theirs in zip(found[ALL], concatenation):
        if _as_in_all(theirs) != mine:
            raise DataError(f"{set_files(root, ALL)[0]}: instance {mine.id!r} differs from {theirs.set_name}'s "
                            f"{theirs.id!r}; ALL must be the five sets concatenated")
    return found


def _as_in_all(instance: WsdInstance) -> WsdInstance:
    """A set's instance as ALL holds it: ids (instance, document, sentence) prefixed with the set's name."""
    prefix = instance.set_name + "."
    return replace(instance, id=prefix + instance.id, doc_id=prefix + instance.doc_id,
                   sent_id=prefix + instance.sent_id)


def check_file(path: Path, relpath: str) -> None:
    """The format check of one fetched framework file (before it is pinned): a data file must read and hold
    its set's published count; a gold file must parse and hold as many lines. ``relpath`` names the file
    (``path`` may be a download's ``.part``)."""
    name = Path(relpath).name
    if name.endswith(DATA_SUFFIX):
        set_name, count = name[: -len(DATA_SUFFIX)], len(read_targets(path)[0])
    elif name.endswith(GOLD_SUFFIX):
        set_name, count = name[: -len(GOLD_SUFFIX)], len(read_key_file(path))
    else:
        return
    check_count(set_name, count, path, name)


# --- the dataset ------------------------------------------------------------------------------------------------

#: the framework as copied into GlossBERT's repository (``Evaluation_Datasets/``, byte for byte the framework's
#: files)
GLOSSBERT_COMMIT = "64d282d5bae75064fc1a0b35fae8b250538411ec"

#: Raganato et al.'s framework as copied into GlossBERT's repository (``Evaluation_Datasets/``, byte for byte
#: the framework's files): relpath under the framework folder -> (sha256, size)
FILES = {
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


#: files of the framework that are copied when present (the benchmark reads neither)
_OPTIONAL = ("README", "Scorer.java")


def _root(src: Path, say: Callable[[str], None]) -> Path:
    """The framework's folder: ``src`` itself when it holds the sets, else its one subfolder that does (the
    unzipped release's ``WSD_Unified_Evaluation_Datasets/``, a GlossBERT checkout's ``Evaluation_Datasets/``)."""
    def holds_sets(folder: Path) -> bool:
        return set_files(folder, ALL)[0].is_file()

    if not src.is_dir():
        raise DataError(f"{src} is not a folder; give the framework's folder (ALL/, senseval2/, ... semeval2015/)")
    if holds_sets(src):
        return src
    inside = [p for p in sorted(src.iterdir()) if p.is_dir() and holds_sets(p)]
    if len(inside) == 1:
        say(f"importing {inside[0]}, the WSD framework's folder in {src}")
        return inside[0]
    raise DataError(f"{src} does not hold the WSD framework (no ALL/ALL.data.xml); give the folder with ALL/, "
                    "senseval2/, senseval3/, semeval2007/, semeval2013/ and semeval2015/")


def import_framework(sources: list[Path], say: Callable[[str], None]) -> None:
    """``lexprobe data import wsd DIR``: the pinned data and gold files of the five sets and ALL, read by the reader
    (published counts, ALL = the five concatenated), then copied in as one folder."""
    from lexprobe.data.download import sha256_of
    from lexprobe.data.install import install_copies
    from lexprobe.data.pins import check_pinned, content_sha, record_import
    from lexprobe.data.registry import data_dir

    ds = DATASET
    root = _root(sources[0], say)
    chosen: list[tuple[Path, str]] = []
    for f in ds.files:
        inner = f.relpath.split("/", 1)[1]
        src = root / inner
        optional = inner in _OPTIONAL
        if not src.is_file():
            if optional:
                continue
            raise DataError(f"{root} has no {inner}; give the framework's folder (ALL/, senseval2/, ... each "
                            "with its .data.xml and .gold.key.txt)")
        require_regular(src, "give the framework's files")
        if optional and content_sha(src) != f.sha256:
            say(f"wsd: {src} is not the pinned {inner}; not imported (lexprobe does not read it)")
            continue
        check_pinned(ds, f.relpath, src)
        chosen.append((src, f.relpath))
    check_framework(root)
    install_copies(data_dir() / ds.entry, [(src, rel.split("/", 1)[1]) for src, rel in chosen])
    files = {rel: sha256_of(data_dir() / rel) for _, rel in chosen}
    record_import("wsd", ds.entry, files, root, say)


DATASET = register_dataset(Dataset(
    name="wsd",
    title="WSD unified evaluation framework (Raganato et al. 2017): Senseval-2/3, SemEval-2007/2013/2015, ALL",
    version=GLOSSBERT_COMMIT[:7], pin=GLOSSBERT_COMMIT,
    upstream="github.com/HSLCY/GlossBERT (a copy of the framework's lcl.uniroma1.it/wsdeval release)",
    upstream_path="Evaluation_Datasets/{<set>/<set>.data.xml,<set>/<set>.gold.key.txt,README,Scorer.java}",
    licence="research use under the framework's terms (cite Raganato et al. 2017 and each task's paper); "
            "no licence file upstream",
    reader_format="<set>.data.xml (corpus/text/sentence of wf and instance) + <set>.gold.key.txt",
    files=tuple(RemoteFile(f"wsd-raganato/{rel}", github_raw("HSLCY/GlossBERT", GLOSSBERT_COMMIT,
                                                             f"Evaluation_Datasets/{rel}"), sha, size)
                for rel, (sha, size) in FILES.items()),
    entry="wsd-raganato", redistributable=False,
    notes="`data import wsd DIR` takes the framework's folder (ALL/, senseval2/, ...); README and Scorer.java "
          "are copied when present",
    check=check_file, importer=import_framework,
))
