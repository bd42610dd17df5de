"""STREUSLE 4.4 supersense annotations of single-word nouns, verbs and prepositions.

Three formats are read (gzip or plain):
- ``.json``: the release's JSON (``toks`` and single-word expressions ``swes``);
- ``.conllulex``: CoNLL-U plus 9 lexical-semantic columns (SMWE, LEXCAT, LEXLEMMA,
  SS, SS2, WMWE, WCAT, WLEMMA, LEXTAG), read with the ``conllu`` library;
- ``.vis``: one line per sentence, ``sent_id<TAB>`` then ``word|LEXCAT-ss[:ss2]``
  items, strong MWEs joined with ``_`` (gappy ones as ``a_ ... _b``) and weak MWE
  links with ``~``. It is the only train-split file here, and it has no lemmas.

A target is a single-word expression with lexical category N, V or P and a
supersense; its label is the first supersense (``ss``; for prepositions the scene
role, as in the paper). Lemmas come from the data (JSON/conllulex) or, for
``.vis``, from WordNet's morphy (prepositions: lower case).

``authors_sentences`` reads a split as the authors' fine-tuning reader walks it: every
sentence (also those without a target), lexical categories exactly N, V and P, and
``ss_ss2`` labels (``bssp/fine_tuning/streusle.py``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from lexprobe.data.conllu_reader import CONLLULEX_FIELDS, READ_ERRORS, open_text, read_sentences
from lexprobe.data.files import unique_keys
from lexprobe.data.instances import SenseInstance
from lexprobe.errors import DataError

LEXCATS = {"N": "n", "V": "v", "P": "p"}
_CLITICS = {"'s": "be", "'re": "be", "'m": "be", "'ve": "have", "'d": "have", "'ll": "will"}


def _doc_of(sent_id: str) -> str:
    return sent_id.rsplit("-", 1)[0]


_READ_ERRORS = READ_ERRORS  # ValueError also covers JSON decoding


def _problem(err: Exception) -> str:
    if isinstance(err, KeyError):
        return f"missing field {err}"
    return f"{type(err).__name__}: {str(err)[:100]}"


def read_streusle_json(path: str | Path, split: str) -> list[SenseInstance]:
    path = Path(path)
    try:
        with open_text(path) as f:
            sentences = json.load(f, object_pairs_hook=unique_keys)  # a key twice: refused, not "last wins"
    except (*_READ_ERRORS, RecursionError) as err:
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
    path = Path(path)
    out = []
    for sent_id, words in read_sentences(path, CONLLULEX_FIELDS, exact=False, name="conllulex"):
        tokens = tuple(w["form"] for w in words)
        for i, w in enumerate(words):
            pos = LEXCATS.get(w["lexcat"])
            if pos is None or w["smwe"] != "_" or w["ss"] == "_":
                continue
            out.append(SenseInstance(_doc_of(sent_id), tokens, i, w["lexlemma"], pos, w["ss"], split, sent_id))
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
    except _READ_ERRORS as err:
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
    """The label of the authors' fine-tuning reader: ``ss``, or ``ss + "_" + ss2`` when the
    JSON has an ``ss2`` (``bssp/fine_tuning/streusle.py:37-39``). In STREUSLE 4.4 only
    adpositional supersenses have one, so prepositions get ``p.Locus_p.Locus``-style
    labels (scene role and function), nouns and verbs plain ``n.PERSON``, ``v.motion``."""
    return f"{ss}_{ss2}" if ss2 is not None else ss


def _vis_ss2(lexcat: str, tag: str) -> tuple[str, str | None]:
    """(ss, ss2) of a .vis tag. The .vis writes ``ss:ss2`` only when they differ; a
    preposition tagged ``p.Locus`` has ss2 = ss in the JSON, an unknown ``??`` has none
    (checked against the JSON of dev and test: identical for all 1,089 sentences)."""
    ss, colon, ss2 = tag.partition(":")
    if colon:
        return ss, ss2
    if lexcat == "P" and ss != "??":
        return ss, ss
    return ss, None


def authors_sentences(root: Path, split: str) -> list[list[SenseInstance]]:
    """Every sentence of a split in file order, sentences without a target included (as
    empty lists), each with its single-word targets of lexical category exactly N, V or
    P that have a supersense, in token order, labelled with ``authors_label``.

    This is what the authors' ``StreusleJsonReader._read`` walks: the full sentence list
    is shuffled before sampling, so the sentences without targets count. Lemmas are the
    lower-cased word (fine-tuning needs none).
    """
    folder = Path(root) / split
    for pattern, reader in (("*.json.gz", _authors_json), ("*.json", _authors_json),
                            ("*.conllulex.gz", _authors_conllulex), ("*.conllulex", _authors_conllulex),
                            ("*.vis.gz", _authors_vis), ("*.vis", _authors_vis)):
        files = sorted(folder.glob(pattern))
        if files:
            return [sent for f in files for sent in reader(f, split)]
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
    except (*_READ_ERRORS, RecursionError, KeyError, TypeError, IndexError, AttributeError) as err:
        raise DataError(f"cannot read STREUSLE JSON {path}: {_problem(err)}") from None
    return out


def _authors_conllulex(path: Path, split: str) -> list[list[SenseInstance]]:
    out = []
    for sent_id, words in read_sentences(path, CONLLULEX_FIELDS, exact=False, name="conllulex"):
        tokens = tuple(w["form"] for w in words)
        items = []
        for i, w in enumerate(words):
            pos = LEXCATS.get(w["lexcat"])
            if pos is None or w["smwe"] != "_" or w["ss"] == "_":
                continue
            ss2 = None if w["ss2"] == "_" else w["ss2"]
            items.append(SenseInstance(_doc_of(sent_id), tokens, i, tokens[i].lower(), pos,
                                       authors_label(w["ss"], ss2), split, sent_id))
        out.append(items)
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
    from lexprobe.data.locations import default_streusle

    return default_streusle()


def read_split(root: Path, split: str, lemmatize: bool = True) -> list[SenseInstance]:
    """The best available file of a split: JSON, then conllulex, then .vis (``lemmatize``: see
    ``read_streusle_vis``; fine-tuning needs no lemmas)."""
    folder = root / split
    for pattern, reader in (("*.json.gz", read_streusle_json), ("*.json", read_streusle_json),
                            ("*.conllulex.gz", read_streusle_conllulex), ("*.conllulex", read_streusle_conllulex),
                            ("*.vis.gz", read_streusle_vis), ("*.vis", read_streusle_vis)):
        files = sorted(folder.glob(pattern))
        if files:
            if reader is read_streusle_vis:
                return [inst for f in files for inst in read_streusle_vis(f, split, lemmatize)]
            return [inst for f in files for inst in reader(f, split)]
    raise DataError(f"no STREUSLE {split} file (.json, .conllulex or .vis, optionally .gz) under {folder}")


def streusle_instances(
    root: str | Path | None = None, splits=("train", "dev", "test"), uniform_lemmas: bool = True
) -> list[SenseInstance]:
    """All splits. With ``uniform_lemmas`` every lemma comes from the same lemmatizer
    (the one ``.vis`` needs), so that same-lemma ranking pairs train and dev/test alike."""
    if root is None and not default_root().is_dir():
        from lexprobe.data.locations import missing_message

        raise DataError(missing_message("streusle") + ", or pass --path to a streusle-4.4 folder")
    root = Path(root) if root is not None else default_root()
    if root.is_file():
        raise DataError(f"STREUSLE path {root} is a file; pass --path to the streusle-4.4 folder")
    if not root.is_dir():
        raise DataError(f"STREUSLE 4.4 directory not found at {root}; pass --path to the streusle-4.4 folder")
    from lexprobe.data.pins import check_unchanged

    check_unchanged(root)  # in the data directory: still what was pinned
    out = [inst for split in splits for inst in read_split(root, split)]
    if uniform_lemmas:
        out = [replace(i, lemma=_lemma(i.word, i.pos)) for i in out]
    return out
