"""Raganato et al.'s unified all-words WSD framework: its five sets and ALL, read strictly.

The framework (Raganato, Camacho-Collados & Navigli, EACL 2017) gives each set as ``<set>.data.xml``
(``<corpus>/<text id>/<sentence id>`` of ``<wf lemma pos>`` tokens and ``<instance id lemma pos>``
targets; pos NOUN/VERB/ADJ/ADV) and ``<set>.gold.key.txt`` (``<instance id> <sense key> [...]``: any
listed WordNet 3.0 key is right). ALL is the five sets concatenated, its ids prefixed with the set's name
(``senseval2.d000.s000.t000``); ``check_framework`` verifies that it is exactly that.

Candidates come from WordNet (``wsd_senses.py``), scoring from ``metrics/wsd.py``; the XML is read by
``wsd_xml.read_targets`` (DTDs forbidden). Strict: an unknown element, a missing id/lemma/pos, an id twice, an
instance without gold or gold without an instance... each is one ``DataError`` naming ``file:line``, never skipped.
Every instance, from the framework's files or an export, is then checked against one declaration (``ROWS``).

A set's name is the framework's (``senseval2`` ... ``ALL``, reported in its column: SE2 ...) only for the pinned
files, known by their SHA-256 (``official_set``), or for an export's rows that are those files' instances
(``_official_rows``); a file of one's own keeps its own name, never an official one, whatever it is called, its
``<corpus source>`` says or its ids begin with (``own_name``). The official sets are declared as ``OfficialSet``s
(``register_set``): the framework's six here, other releases in the framework's format in their dataset's module
(``data/wsd_hard.py``: ALLamended, S10amended, 42D, hardEN, softEN), read by the same reader with the same checks.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

from lexprobe.data.exported import Int, Items, RowFormat, RowRule, Text, Unique
from lexprobe.data.files import require_regular
from lexprobe.data.instances import TargetInSentence
from lexprobe.data.registry import Dataset, RemoteFile, github_raw, register_dataset
from lexprobe.data.wsd_xml import DATA_SUFFIX, POS_TAGS, read_targets, stem_of  # noqa: F401  (POS_TAGS: re-exported)
from lexprobe.errors import DataError
from lexprobe.metrics.wsd import SENSE_KEY, Answers, format_key_lines, parse_key_lines

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

#: the most tokens of a sentence (the framework's longest: 81) and bytes of a token (37), gold keys of an instance
#: (3), candidates (WordNet's most senses of a lemma: 75) and bytes of a definition (WordNet's longest: 505)
MAX_TOKENS = 1000
TOKEN_BYTES = 1024
MAX_GOLD = 100
MAX_CANDIDATES = 1000
DEFINITION_BYTES = 8192
_KEY = Text(pattern=SENSE_KEY.pattern, what="a WordNet sense key (lemma%1:09:00::)")
_ID = Text(pattern=r"\S+", what="an id without spaces (a key file's first field)")

#: an instance as one row: what an exported file holds (``lexprobe export hf wsd``, one part per set;
#: ``candidates``: the WordNet senses as lexprobe read them, for the Hub's readers: lexprobe reads them from WordNet
#: again) and what an instance of the framework's files is read into (no candidates), checked by this declaration
ROWS = RowFormat("wsd-instances/1", "wsd", (
    ("id", _ID), ("set", Text()), ("doc_id", Text()), ("sent_id", Text()), ("lemma", Text()),
    ("pos", Text(choices=POS_ORDER)), ("tokens", Items(Text(max_bytes=TOKEN_BYTES), least=1, most=MAX_TOKENS)),
    ("index", Int("int32", low=0)), ("gold", Items(_KEY, least=1, most=MAX_GOLD)),
    ("candidates", Items({"key": _KEY, "synset": Text(), "definition": Text(max_bytes=DEFINITION_BYTES)},
                         most=MAX_CANDIDATES))),
    key=("set",),
    rules=(RowRule(lambda row: row["index"] < len(row["tokens"]),
                   lambda row: f"index {row['index']} is past the last of its {len(row['tokens'])} tokens"),),
    unique=(Unique("instance id", lambda row: row["id"]),))


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
    #: where the instance's gold keys were read (``file:line``, ``part: row N``), for messages
    where: str = field(default="", compare=False)

    @property
    def wordnet_pos(self) -> str:
        return WORDNET_POS[self.pos]

    @property
    def qualified_id(self) -> str:
        """The id ALL gives this instance (``<set>.<id>``); ALL's own ids are already so."""
        if self.set_name in SETS and not self.id.startswith(self.set_name + "."):
            return f"{self.set_name}.{self.id}"
        return self.id


# --- the official sets ------------------------------------------------------------------------------

@dataclass(frozen=True)
class OfficialSet:
    """A set published in the framework's format, known by its pinned files: where they are in the data directory
    and what identifies them (their SHA-256, and the content digest of their instances for exports)."""

    name: str  #: as ``--data`` takes it and results report it (``senseval2``, ``ALLamended``)
    short: str  #: its column in tables (``SE2``)
    count: int  #: its published number of instances
    dataset: str  #: the registered dataset that holds its files (``wsd``, ``wsd-hard``)
    data: str  #: its ``.data.xml`` relative to the dataset's entry
    gold: str  #: its gold key file relative to the dataset's entry
    data_sha256: str
    gold_sha256: str
    content: str  #: ``content_digest`` of its instances (an export of the whole set is known to be it)

    def files(self, root: Path | None = None) -> tuple[Path, Path]:
        """Its data and gold files under ``root`` (default: its dataset's entry in the data directory)."""
        from lexprobe.data.locations import entry_path

        base = Path(root) if root is not None else entry_path(self.dataset)
        return base / self.data, base / self.gold


#: every official set by name, in registration order (the framework's six first)
OFFICIAL: dict[str, OfficialSet] = {}


def register_set(official: OfficialSet) -> OfficialSet:
    """Declare a set in the framework's format as official (its module registers it when imported)."""
    OFFICIAL[official.name] = official
    return official


def short_name(name: str) -> str:
    """A set's column label: an official set's short name (``SE2``), else the name itself."""
    return OFFICIAL[name].short if name in OFFICIAL else name


# --- reading ----------------------------------------------------------------------------------------

def read_wsd(data_xml: str | Path, gold_key: str | Path | None = None,
             say: Callable[[str], None] | None = None) -> list[WsdInstance]:
    """The instances of one framework file pair, in document order (``gold_key``: by default the
    ``<stem>.gold.key.txt`` beside ``<stem>.data.xml``). Every instance must have gold keys and every gold line
    an instance; every instance is checked against ``ROWS``. The set is the framework's only when both files are
    its pinned ones (``official_set``); ``say``: where the notice goes that a file named as an official set is
    not one (default: stderr)."""
    data_xml = Path(data_xml)
    gold_path = Path(gold_key) if gold_key is not None else gold_path_of(data_xml)
    targets, _ = read_targets(data_xml)
    gold = read_key_file(gold_path)
    official = official_set(data_xml, gold_path)
    set_name = official or own_name(stem_of(data_xml))  # never its <corpus source> or its ids' prefix
    if official is None and set_name != stem_of(data_xml):
        _notice(f"{data_xml} is not the framework's pinned {stem_of(data_xml)} (its bytes or its gold file's "
                f"differ): its instances are reported as the set {set_name!r}", say)
    lines = _line_numbers(gold_path)
    fix = "correct the files, or use the framework's own (`lexprobe data fetch wsd`)"
    out = []
    for t in targets:
        keys = gold.get(t.id)
        if keys is None:
            raise DataError(f"{data_xml}:{t.line}: instance {t.id!r} has no line in {gold_path}; every instance "
                            "needs its gold sense keys")
        name = _own_set(t.id, set_name) if official == ALL else set_name
        inst = WsdInstance(t.id, name, t.doc_id, t.sent_id, t.lemma, t.pos, t.tokens, t.index, keys,
                           where=f"{gold_path}:{lines.get(t.id, '?')}")
        ROWS.check(instance_row(inst, ()), f"{data_xml}:{t.line}", fix)
        out.append(inst)
    if len(gold) != len(out):
        ids = {t.id for t in targets}
        stray = next(i for i in gold if i not in ids)
        raise DataError(f"{gold_path}:{lines.get(stray, '?')}: instance {stray!r} is not in {data_xml}; the gold file "
                        "belongs to another set")
    return out


def _notice(line: str, say: Callable[[str], None] | None) -> None:
    if say is not None:
        say(line)
    else:
        print(f"lexprobe: {line}", file=sys.stderr, flush=True)


def own_name(stem: str) -> str:
    """The set name of a file of one's own: its stem, unless that is an official set's name (``senseval2``):
    then ``<stem>-own``, so it is never reported in the official set's column."""
    return f"{stem}-own" if stem in OFFICIAL else stem


def official_set(data_xml: Path, gold_path: Path) -> str | None:
    """The official set (``senseval2`` ... ``ALL``, ``ALLamended`` ...: ``OFFICIAL``) whose pinned data and gold
    files these two are, by their SHA-256; None for any other pair, whatever the files are called."""
    from lexprobe.provenance import file_sha256

    digest = file_sha256(data_xml)
    for official in OFFICIAL.values():
        if official.data_sha256 == digest:
            return official.name if official.gold_sha256 == file_sha256(gold_path) else None
    return None


def gold_path_of(data_xml: Path) -> Path:
    """``<stem>.gold.key.txt`` beside ``<stem>.data.xml``."""
    return data_xml.with_name(stem_of(data_xml) + GOLD_SUFFIX)


def read_beside(data: str | Path) -> dict[str, Path]:
    """What ``load_wsd(data)`` reads besides ``data`` itself, for ``outputs.guard`` (``option(reads=...)``): the
    gold key file beside a file of one's own (an output once replaced it, D1), the whole export an export's
    sub-folder belongs to; nothing for a set name (the data directory is guarded as a whole)."""
    from lexprobe.data.exported import read_beside as export_read_beside

    if str(data) in OFFICIAL:
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


def read_text(path: Path, fix: str) -> str:
    """A text file read whole: a regular file, its pin checked where it is a dataset file, UTF-8 (one line naming
    the file and line otherwise)."""
    return _read_text(path, fix)


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
    """The pinned ALL's instances belong to the set their id names; a set's to the set itself."""
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


def read_export(path: str | Path, say: Callable[[str], None] | None = None) -> list[WsdInstance] | None:
    """The instances of an exported folder (``lexprobe export hf wsd``; ``DIR/<set>`` selects a set), each part
    checked against the manifest and ``ROWS``; None when ``path`` is no export. A part named as an official set
    keeps that name only when its rows are the framework's instances (``_official_rows``); else it is reported
    as ``own_name``'s, with a notice (``say``, default stderr)."""
    from lexprobe.data.exported import open_export

    parts = open_export(path, ROWS)
    if parts is None:
        return None
    out = []
    for part in parts:
        rows = part.rows
        stray = next((i for i, r in enumerate(rows) if r["set"] != part.key["set"]), None)
        if stray is not None:
            raise DataError(f"{part.path}: row {stray} is of the set {rows[stray]['set']!r} in the part of "
                            f"{part.key['set']!r}; export it again")
        names = {r["set"] for r in rows}
        claimed = sorted(names & set(OFFICIAL))
        for name in claimed:
            mine = [r for r in rows if r["set"] == name]
            if not _official_rows(name, mine):
                _notice(f"{part.path}: its {name} rows are not the framework's pinned {name} instances: reported as "
                        f"the set {own_name(name)!r}", say)
                rows = [{**r, "set": own_name(name)} if r["set"] == name else r for r in rows]
        out += [WsdInstance(r["id"], r["set"], r["doc_id"], r["sent_id"], r["lemma"], r["pos"], tuple(r["tokens"]),
                            int(r["index"]), tuple(r["gold"]), where=f"{part.path}: row {i}")
                for i, r in enumerate(rows)]
    return out


#: the SHA-256 of each of the framework's sets' instances (``content_digest`` of the pinned files' instances, ids with
#: their set's prefix as in ALL): an export holding a whole set is known to be it without the framework at hand
OFFICIAL_CONTENT = {
    "senseval2": "37eee181ab0ff169a2ed23ef71faf2e6da0b072e92f12838c80692ee7dc3ab27",
    "senseval3": "a6f223ce2fe22210563e0c708dea71b9379d721e12ba723123c3b395c1673ae6",
    "semeval2007": "bede974296fef22abd2b00f0348a8342e7c12030422e957ec9a8612d082c29d0",
    "semeval2013": "e055e253d17e145ff871dcd140f4cd57b944a46b34524f59760a5a779c2b17f2",
    "semeval2015": "e0b1a0e7f95451c0034cb26a518d42839d8fe306cc8104b6d452b9aaf5804abe",
    "ALL": "4c60692640ff59f8da8c9802ff2cefda5db3fdd97bb9c6f5066be1f2cc0b6757",
}


def _qualified(name: str, row: dict) -> list:
    """What identifies an official instance, whether it came from its set's files or ALL's (ids prefixed)."""
    prefix = name + "."

    def q(value: str) -> str:
        return value if value.startswith(prefix) or name == ALL else prefix + value

    return [q(row["id"]), q(row["doc_id"]), q(row["sent_id"]), row["lemma"], row["pos"], list(row["tokens"]),
            int(row["index"]), list(row["gold"])]


def content_digest(name: str, rows: Iterable[dict]) -> str:
    """The SHA-256 of ``rows`` (``instance_row``s, in order) as instances of the official set ``name``."""
    h = hashlib.sha256()
    for row in rows:
        h.update(json.dumps(_qualified(name, row), ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
    return h.hexdigest()


def _official_rows(name: str, rows: list[dict]) -> bool:
    """Are ``rows``, exported as the set ``name``, the official set's instances? The whole set: by its pinned
    ``OFFICIAL_CONTENT``; a part of it (``--limit``, ``--pos``): each row against the pinned files in the data
    directory, where they are (without them a part cannot be told from data of one's own)."""
    if OFFICIAL[name].content == content_digest(name, rows):
        return True
    try:
        framework = load_wsd(name, say=lambda line: None)
    except DataError:
        return False
    official = {}
    for inst in framework:
        identity = _qualified(name, instance_row(inst, ()))
        official[identity[0]] = identity
    for row in rows:
        identity = _qualified(name, row)
        if official.get(identity[0]) != identity:
            return False
    return True


def load_wsd(data: str | Path = ALL, root: str | Path | None = None,
             say: Callable[[str], None] | None = None) -> list[WsdInstance]:
    """An official set by name (``senseval2`` ... ``semeval2015``, ``ALL``; ``ALLamended`` ...: ``OFFICIAL``) from
    ``root`` (its dataset's folder; default: the data directory), a ``.data.xml`` file of one's own (its gold key
    file beside it), or an exported folder."""
    if str(data) in OFFICIAL:
        official = OFFICIAL[str(data)]
        from lexprobe.data.locations import entry_path

        folder = Path(root) if root is not None else entry_path(official.dataset)
        if root is None and not folder.is_dir():
            from lexprobe.data.locations import missing_message

            raise DataError(missing_message(official.dataset))
        xml_path, gold_path = official.files(folder)
        if not xml_path.exists():
            raise DataError(f"{xml_path} does not exist; {folder} should hold {official.name}'s {official.data} and "
                            f"{official.gold} (`lexprobe data import {official.dataset} PATH`)")
        return read_wsd(xml_path, gold_path, say)
    path = Path(data)
    if not path.exists():
        raise DataError(f"{path} does not exist; give a set ({', '.join(OFFICIAL)}), a <name>.data.xml file "
                        "with its <name>.gold.key.txt beside it, or a folder `lexprobe export hf wsd` wrote")
    exported = read_export(path, say)
    return exported if exported is not None else read_wsd(path, say=say)


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
    concatenation = [(name, i) for name in SETS for i in found[name]]
    for mine, (name, theirs) in zip(found[ALL], concatenation):
        if _as_in_all(theirs, name) != replace(mine, set_name=name):
            raise DataError(f"{set_files(root, ALL)[0]}: instance {mine.id!r} differs from {name}'s "
                            f"{theirs.id!r}; ALL must be the five sets concatenated")
    return found


def _as_in_all(instance: WsdInstance, name: str) -> WsdInstance:
    """The set ``name``'s instance as ALL holds it: ids (instance, document, sentence) prefixed with the set's name."""
    prefix = name + "."
    return replace(instance, set_name=name, id=prefix + instance.id, doc_id=prefix + instance.doc_id,
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


for _name in NAMES:
    register_set(OfficialSet(_name, SHORT[_name], PUBLISHED_COUNTS[_name], "wsd", f"{_name}/{_name}{DATA_SUFFIX}",
                             f"{_name}/{_name}{GOLD_SUFFIX}", FILES[f"{_name}/{_name}{DATA_SUFFIX}"][0],
                             FILES[f"{_name}/{_name}{GOLD_SUFFIX}"][0], OFFICIAL_CONTENT[_name]))


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
