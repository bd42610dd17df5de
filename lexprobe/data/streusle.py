"""STREUSLE 4.4 supersense annotations of single-word nouns, verbs and prepositions.

Three formats are read (gzip or plain): the release's ``.json`` (``toks``, single-word expressions ``swes``),
``.conllulex`` (CoNLL-U plus 9 lexical-semantic columns, read with ``conllu``) and ``.vis`` (``sent_id<TAB>`` then
``word|LEXCAT-ss[:ss2]`` items, strong MWEs joined with ``_``, gappy ones ``a_ ... _b``, weak links ``~``; the only
train-split file here, without lemmas). A target is a single-word expression of category N, V or P with a
supersense, labelled with its first one (``ss``; for prepositions the scene role, as in the paper); lemmas come
from the data or, for ``.vis``, from WordNet's morphy. ``authors_sentences`` reads a split as the authors'
fine-tuning reader does (``bssp/fine_tuning/streusle.py``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator

from lexprobe.data.conllu_reader import CONLLULEX_FIELDS, READ_ERRORS, open_text, read_sentences
from lexprobe.data.files import unique_keys
from lexprobe.data.instances import SenseInstance
from lexprobe.data.registry import Dataset, RemoteFile, github_raw, register_dataset
from lexprobe.errors import DataError

LEXCATS = {"N": "n", "V": "v", "P": "p"}
_CLITICS = {"'s": "be", "'re": "be", "'m": "be", "'ve": "have", "'d": "have", "'ll": "will"}


def _doc_of(sent_id: str) -> str:
    return sent_id.rsplit("-", 1)[0]


def _problem(err: Exception) -> str:
    if isinstance(err, KeyError):
        return f"missing field {err}"
    return f"{type(err).__name__}: {str(err)[:100]}"


def read_streusle_json(path: str | Path, split: str) -> list[SenseInstance]:
    path = Path(path)
    try:
        with open_text(path) as f:
            sentences = json.load(f, object_pairs_hook=unique_keys)  # a key twice: refused, not "last wins"
    except (*READ_ERRORS, RecursionError) as err:
        raise DataError(f"cannot read STREUSLE JSON {path}: {_problem(err)}") from None
    if not isinstance(sentences, list):
        raise DataError(f"{path}: expected a JSON list of sentences, got {type(sentences).__name__}")
    out = []
    for n, s in enumerate(sentences):
        try:
            out.extend(_json_sentence(s, split))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
            sid = s.get("sent_id", "?") if isinstance(s, dict) else "?"
            raise DataError(f"{path}: sentence {n} (sent_id {sid}): malformed record ({_problem(err)}); "
                            "use the STREUSLE 4.4 release files") from None
    return out


def _text(value) -> str:
    """A token's text must be a string (a NaN or a number is a damaged file, not the word "nan")."""
    if not isinstance(value, str):
        raise TypeError(f"a token's word must be a string, got {type(value).__name__} {value!r:.20}")
    return value


def _json_sentence(s: dict, split: str) -> list[SenseInstance]:
    tokens = tuple(_text(t["word"]) for t in s["toks"])
    sent_id = str(s["sent_id"])
    out = []
    for swe in s.get("swes", {}).values():
        pos = LEXCATS.get(swe.get("lexcat"))
        if pos is None or not swe.get("ss") or len(swe["toknums"]) != 1:
            continue
        index = int(swe["toknums"][0]) - 1
        if not 0 <= index < len(tokens):
            raise IndexError(f"token number {index + 1} outside a {len(tokens)}-token sentence")
        out.append(SenseInstance(_doc_of(sent_id), tokens, index, str(swe["lexlemma"]), pos, str(swe["ss"]),
                                 split, sent_id))
    return out


def read_streusle_conllulex(path: str | Path, split: str) -> list[SenseInstance]:
    return [inst for sentence in _conllulex(Path(path), split, authors=False) for inst in sentence]


def _conllulex(path: Path, split: str, authors: bool) -> list[list[SenseInstance]]:
    """Each sentence's targets: lemma and label from the file, or (``authors``) as ``_authors_json`` makes them."""
    out = []
    for sent_id, words in read_sentences(path, CONLLULEX_FIELDS, exact=False, name="conllulex"):
        tokens = tuple(w["form"] for w in words)
        items = []
        for i, w in enumerate(words):
            pos = LEXCATS.get(w["lexcat"])
            if pos is None or w["smwe"] != "_" or w["ss"] == "_":
                continue
            if authors:
                lemma, label = tokens[i].lower(), authors_label(w["ss"], None if w["ss2"] == "_" else w["ss2"])
            else:
                lemma, label = w["lexlemma"], w["ss"]
            items.append(SenseInstance(_doc_of(sent_id), tokens, i, lemma, pos, label, split, sent_id))
        out.append(items)
    return out


def parse_vis_line(line: str) -> tuple[str, tuple[str, ...], list[tuple[int, str, str]]]:
    """``(sent_id, tokens, [(token index, lexcat, label)])`` of single-word items of one .vis line."""
    sent_id, _, rest = line.rstrip("\n").partition("\t")
    tokens: list[str] = []
    singles: list[tuple[int, str, str]] = []
    for chunk in rest.split(" "):
        if not chunk:
            continue
        for part in _weak_parts(chunk):
            word, bar, tag = part.rpartition("|")
            if not bar:  # "a_" opening a gappy strong MWE: no label yet
                word, tag = part, ""
            pieces = word.split("_")
            opened = word.startswith("_") and len(word) > 1
            pieces = [p for p in pieces if p != ""] or [word]
            start = len(tokens)
            tokens.extend(pieces)
            if tag and len(pieces) == 1 and not opened and not word.endswith("_"):
                lexcat, _, ss = tag.partition("-")
                singles.append((start, lexcat, ss))
    return sent_id, tuple(tokens), singles


def _weak_parts(chunk: str) -> list[str]:
    """Split ``a|X~b|Y`` at weak-MWE links; a lone ``~`` token stays a token."""
    if chunk.startswith("~|") or chunk == "~":
        return [chunk]
    return [p for p in chunk.split("~") if p]


def _vis_sentences(path: Path) -> Iterator[tuple[str, tuple[str, ...], list[tuple[int, str, str, str]]]]:
    """Per sentence of a .vis file: id, tokens and its single-word targets that have a sense
    (``index, lexcat, pos, tag``); a read or parse error is one ``DataError``."""
    try:
        with open_text(path) as f:
            for line in f:
                if not line.strip():
                    continue
                sent_id, tokens, singles = parse_vis_line(line)
                targets = [(index, lexcat, LEXCATS[lexcat], tag) for index, lexcat, tag in singles
                           if LEXCATS.get(lexcat) is not None and tag]
                yield sent_id, tokens, targets
    except READ_ERRORS as err:
        raise DataError(f"cannot read STREUSLE .vis file {path}: {_problem(err)}") from None


def read_streusle_vis(path: str | Path, split: str, lemmatize: bool = True) -> list[SenseInstance]:
    """Targets of a .vis file; lemmas from WordNet morphy, or lower case without ``lemmatize``."""
    out = []
    for sent_id, tokens, targets in _vis_sentences(Path(path)):
        for index, _, pos, tag in targets:
            lemma = _lemma(tokens[index], pos) if lemmatize else tokens[index].lower()
            out.append(SenseInstance(_doc_of(sent_id), tokens, index, lemma, pos, tag.split(":", 1)[0], split,
                                     sent_id))
    return out


def authors_label(ss: str, ss2: str | None) -> str:
    """The authors' fine-tuning label (``bssp/fine_tuning/streusle.py:37-39``): ``ss``, or ``ss_ss2`` when there is
    an ``ss2`` (in STREUSLE 4.4 only prepositions: ``p.Locus_p.Locus``)."""
    return f"{ss}_{ss2}" if ss2 is not None else ss


def _vis_ss2(lexcat: str, tag: str) -> tuple[str, str | None]:
    """(ss, ss2) of a .vis tag, written ``ss:ss2`` only when they differ; a preposition's ``p.Locus`` has ss2 = ss
    in the JSON, ``??`` none (checked against dev and test's JSON: all 1,089 sentences identical)."""
    ss, colon, ss2 = tag.partition(":")
    if colon:
        return ss, ss2
    if lexcat == "P" and ss != "??":
        return ss, ss
    return ss, None


def authors_sentences(root: Path, split: str) -> list[list[SenseInstance]]:
    """Every sentence of a split in file order, as the authors' ``StreusleJsonReader._read`` walks it (they shuffle
    the whole list before sampling, so sentences without targets count, as empty lists): targets of category
    exactly N, V or P with a supersense, labelled ``authors_label``, lemmas lower-cased (fine-tuning needs none)."""
    return _read_first(root, split, _authors_json, lambda f, split: _conllulex(f, split, authors=True), _authors_vis)


def _read_first(root: Path, split: str, *readers: Callable[[Path, str], list]) -> list:
    """What the split's first file type present gives (JSON, conllulex, .vis; each gzipped first), file by file."""
    folder = Path(root) / split
    for suffix, reader in zip((".json", ".conllulex", ".vis"), readers):
        for pattern in (f"*{suffix}.gz", f"*{suffix}"):
            files = sorted(folder.glob(pattern))
            if files:
                return [x for f in files for x in reader(f, split)]
    raise DataError(f"no STREUSLE {split} file (.json, .conllulex or .vis, optionally .gz) under {folder}")


def _authors_json(path: Path, split: str) -> list[list[SenseInstance]]:
    try:
        with open_text(path) as f:
            sentences = json.load(f)
        out = []
        for s in sentences:
            tokens = tuple(str(t["word"]) for t in s["toks"])
            sent_id = str(s["sent_id"])
            items = []
            for swe in s["swes"].values():
                pos = LEXCATS.get(swe["lexcat"])
                if pos is None or swe["ss"] is None:
                    continue
                index = int(swe["toknums"][0]) - 1
                items.append(SenseInstance(_doc_of(sent_id), tokens, index, tokens[index].lower(), pos,
                                           authors_label(swe["ss"], swe.get("ss2")), split, sent_id))
            out.append(items)
    except (*READ_ERRORS, RecursionError, KeyError, TypeError, IndexError, AttributeError) as err:
        raise DataError(f"cannot read STREUSLE JSON {path}: {_problem(err)}") from None
    return out


def _authors_vis(path: Path, split: str) -> list[list[SenseInstance]]:
    return [[SenseInstance(_doc_of(sent_id), tokens, index, tokens[index].lower(), pos,
                           authors_label(*_vis_ss2(lexcat, tag)), split, sent_id)
             for index, lexcat, pos, tag in targets]
            for sent_id, tokens, targets in _vis_sentences(path)]


@lru_cache(maxsize=None)
def _lemma(word: str, pos: str) -> str:
    low = word.lower()
    if pos == "p":
        return low
    if pos == "v" and low in _CLITICS:
        return _CLITICS[low]
    wn = _wordnet()
    if wn is None:
        return low
    # NLTK's morphy() prefers the surface form when WordNet lists it too ("years", "found");
    # a reduced base form is the better lemma for grouping instances
    try:
        candidates = wn._morphy(low, pos)
    except Exception:  # noqa: BLE001
        candidates = []
    reduced = [c for c in candidates if c != low]
    return (reduced or candidates or [low])[0]


@lru_cache(maxsize=1)
def _wordnet():
    try:
        from lexprobe.data.wordnet import load_wordnet

        return load_wordnet()
    except Exception:  # noqa: BLE001 - lemmas fall back to lower case without WordNet
        return None


def default_root() -> Path:
    """STREUSLE 4.4 in the data directory (``lexprobe data fetch streusle``)."""
    from lexprobe.data.locations import entry_path

    return entry_path("streusle")


def streusle_root(path: str | Path | None = None) -> Path:
    """The STREUSLE 4.4 folder ``--path`` names, else the data directory's; one line when it is not there."""
    if path is None and not default_root().is_dir():
        from lexprobe.data.locations import missing_message

        raise DataError(missing_message("streusle") + ", or pass --path to a streusle-4.4 folder")
    root = Path(path) if path is not None else default_root()
    if not root.is_dir():
        raise DataError(f"STREUSLE 4.4 directory not found at {root}; pass --path to the streusle-4.4 folder")
    return root


def read_split(root: Path, split: str, lemmatize: bool = True) -> list[SenseInstance]:
    """The best available file of a split: JSON, then conllulex, then .vis (``lemmatize``: see
    ``read_streusle_vis``; fine-tuning needs no lemmas)."""
    return _read_first(root, split, read_streusle_json, read_streusle_conllulex,
                       lambda f, split: read_streusle_vis(f, split, lemmatize))


def streusle_instances(
    root: str | Path | None = None, splits=("train", "dev", "test"), uniform_lemmas: bool = True
) -> list[SenseInstance]:
    """All splits; ``uniform_lemmas``: every lemma from the lemmatizer ``.vis`` needs, so that same-lemma ranking
    pairs train and dev/test alike."""
    if root is not None and Path(root).is_file():
        raise DataError(f"STREUSLE path {root} is a file; pass --path to the streusle-4.4 folder")
    root = streusle_root(root)
    from lexprobe.data.pins import check_unchanged

    check_unchanged(root)  # in the data directory: still what was pinned
    out = [inst for split in splits for inst in read_split(root, split)]
    if uniform_lemmas:
        out = [replace(i, lemma=_lemma(i.word, i.pos)) for i in out]
    return out


# --- the dataset ------------------------------------------------------------------------------------------------

TAG = "v4.4"
_PATTERNS = ("*.json", "*.json.gz", "*.conllulex", "*.conllulex.gz", "*.vis", "*.vis.gz")


def _check(path: Path, relpath: str) -> None:
    """A fetched split's JSON, read by the reader (the other files are checked on import)."""
    from lexprobe.data.files import require_records

    if relpath.endswith(".json"):
        require_records(read_streusle_json(path, "train"), path, "STREUSLE sentences")


def import_streusle(sources: list[Path], say: Callable[[str], None]) -> None:
    """``lexprobe data import streusle DIR``: the streusle-4.4 folder (train/, dev/, test/), each split read."""
    from lexprobe.data.download import sha256_of
    from lexprobe.data.install import install_copies
    from lexprobe.data.pins import check_pinned, record_import
    from lexprobe.data.registry import data_dir

    src = sources[0]
    if not src.is_dir():
        raise DataError(f"{src} is not a folder; give the streusle-4.4 folder (with train/, dev/, test/)")
    chosen: list[tuple[Path, str]] = []
    for split in ("train", "dev", "test"):
        read_split(src, split, lemmatize=False)  # format check: raises on missing or malformed files
        for pattern in _PATTERNS:
            for p in sorted((src / split).glob(pattern)):
                if ".govobj." in p.name or ".autoid." in p.name:
                    continue
                rel = f"streusle-4.4/{split}/{p.name}"
                check_pinned(DATASET, rel, p)
                chosen.append((p, rel))
    install_copies(data_dir() / "streusle-4.4", [(p, rel.split("/", 1)[1]) for p, rel in chosen])
    files = {rel: sha256_of(data_dir() / rel) for _, rel in chosen}
    record_import("streusle", DATASET.entry, files, src, say)


DATASET = register_dataset(Dataset(
    name="streusle", title="STREUSLE 4.4 (train, dev, test)", version="4.4",
    upstream="github.com/nert-nlp/streusle", pin=TAG,
    upstream_path="{train,dev,test}/streusle.ud_<split>.json",
    licence="CC BY-SA 4.0 annotations (English Web Treebank text)",
    reader_format="STREUSLE JSON per split (conllulex and .vis also read)",
    files=(
        RemoteFile("streusle-4.4/train/streusle.ud_train.json",
                   github_raw("nert-nlp/streusle", TAG, "train/streusle.ud_train.json")),
        RemoteFile("streusle-4.4/dev/streusle.ud_dev.json",
                   github_raw("nert-nlp/streusle", TAG, "dev/streusle.ud_dev.json"),
                   "4481069966a1c9f88f8357dfa393ffb5e21dee406d562273a500d3cb6cee7993", 1_850_404),
        RemoteFile("streusle-4.4/test/streusle.ud_test.json",
                   github_raw("nert-nlp/streusle", TAG, "test/streusle.ud_test.json"),
                   "f79217b717dffa9f58cf0f2addf10c41a4d84c930c444fcf8c2b24d3e43ca9dc", 1_848_016),
    ),
    entry="streusle-4.4", check=_check, importer=import_streusle,
))
