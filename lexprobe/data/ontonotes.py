"""OntoNotes 5.0 in CoNLL-2012 format: noun and verb sense groupings.

A ``*_conll`` line's columns: 0 document, 1 part, 2 word number, 3 word, 4 POS, 5 parse bit, 6 predicate lemma,
7 frameset, 8 word sense, 9 speaker, 10 named entities, then arguments and coreference. As in the authors'
reader, every word with a sense is a target, labelled ``<lemma>_<n|v|x>_<sense as a float>``, the form of the
"none of the above" list (``lexprobe data fetch ontonotes-nota``); those senses are kept with ``query=False``
(candidates counted in the frequencies, never queries). The split is read from the path (the CoNLL-2012 layout).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Iterator

from lexprobe.data.instances import SenseInstance
from lexprobe.data.registry import Dataset, RemoteFile, github_raw, register_dataset
from lexprobe.errors import DataError

log = logging.getLogger(__name__)

SPLIT_NAMES = {"train": "train", "development": "dev", "dev": "dev", "validation": "dev", "valid": "dev",
               "test": "test", "conll-2012-test": "test"}


def split_from_path(path: Path) -> str | None:
    for part in reversed(path.parts[:-1]):
        if part.lower() in SPLIT_NAMES:
            return SPLIT_NAMES[part.lower()]
    name = path.name.lower()
    for key, split in SPLIT_NAMES.items():
        if key in name:
            return split
    return None


def load_nota_senses(path: str | Path | None = None) -> set[str]:
    """The "none of the above" labels (``lemma_pos_sense``); empty with a warning if the default is absent."""
    from lexprobe.data.locations import entry_path

    p = Path(path) if path is not None else entry_path("ontonotes-nota")
    if not p.is_file():
        if path is not None:
            raise DataError(f"none-of-the-above sense list not found at {p}")
        log.warning("OntoNotes none-of-the-above list not found at %s; no senses are dropped "
                    "(`lexprobe data fetch ontonotes-nota` gets it)", p)
        return set()
    from lexprobe.data.pins import check_unchanged

    check_unchanged(p)
    try:
        return {line.strip() for line in p.read_text(encoding="utf-8").splitlines() if line.strip()}
    except UnicodeDecodeError as err:
        raise DataError(f"{p} is not UTF-8 text ({err.reason} at byte {err.start}); pass the "
                        "none-of-the-above sense list (lemma_pos_sense lines)") from None


def sense_label(lemma: str, pos: str, sense: str) -> str:
    try:
        value = str(float(sense))
    except ValueError:
        value = sense
    return f"{lemma}_{pos}_{value}"


def conll_files(path: Path) -> list[Path]:
    from lexprobe.data.files import files_under

    return files_under(path, "*", "CoNLL-2012 files (*_conll, *.conll)",
                       lambda p: p.name.endswith("_conll") or p.suffix == ".conll")


def read_ontonotes(
    path: str | Path, nota: set[str] | None = None, split: str | None = None
) -> list[SenseInstance]:
    """Every sense-tagged word under ``path`` (a file or a CoNLL-2012 tree); ``nota`` senses get ``query=False``."""
    root = Path(path)
    if not root.exists():
        raise DataError(f"OntoNotes data not found at {root}; pass --path to the CoNLL-2012 directory")
    nota = load_nota_senses() if nota is None else nota
    out = []
    for f in conll_files(root):
        file_split = split or split_from_path(f)
        if file_split is None:
            raise DataError(
                f"cannot tell the split of {f}; put files under train/, development/ and test/ directories "
                "(the CoNLL-2012 layout)"
            )
        for doc_id, sent_no, rows in _sentences(f):
            tokens = tuple(r[3] for r in rows)
            for i, r in enumerate(rows):
                sense, tag = r[8], r[4]
                if sense in ("-", "_", ""):
                    continue
                pos = "n" if tag.startswith("N") else "v" if tag.startswith("V") else "x"
                lemma = r[6] if r[6] not in ("-", "_", "") else r[3].lower()
                label = sense_label(lemma, pos, sense)
                out.append(SenseInstance(doc_id, tokens, i, lemma, pos, label, file_split, str(sent_no),
                                         query=label not in nota))
    return out


def _sentences(path: Path) -> Iterator[tuple[str, int, list[list[str]]]]:
    rows: list[list[str]] = []
    sent_no = 0
    doc_id = path.stem
    from lexprobe.data.files import require_regular

    require_regular(path)
    try:
        with path.open(encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if line.startswith("#begin document"):
                    doc_id = line[len("#begin document"):].strip().split(";")[0].strip("() ")
                    sent_no = 0
                    continue
                if line.startswith("#"):
                    continue
                if not line:
                    if rows:
                        yield doc_id, sent_no, rows
                        sent_no += 1
                    rows = []
                    continue
                cols = line.split()
                if len(cols) < 11:
                    raise DataError(f"{path}:{lineno}: a line with {len(cols)} columns; CoNLL-2012 lines have "
                                    "at least 11 (document, part, word number, word, POS, parse, lemma, "
                                    "frameset, sense, speaker, entities)")
                rows.append(cols)
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"cannot read {path}: {err}") from None
    if rows:
        yield doc_id, sent_no, rows


# --- the datasets ---------------------------------------------------------------------------------------------

#: the sense-ranking paper's code (lgessler/bert-has-uncommon-sense), which distributes PDEP's inventory and corpus
#: and OntoNotes' "none of the above" list
UNCOMMON_SENSE_COMMIT = "d12dcfeeb7e70d3ebd011c6d2e0b3c876dea341b"


def uncommon_sense(name: str, title: str, upstream_path: str, licence: str, reader_format: str, entry: str,
                   files: tuple[tuple[str, str, str | None, int | None], ...], **hooks) -> Dataset:
    """A dataset distributed with the sense-ranking paper's code; ``files``: (relpath, upstream path, sha256,
    size)."""
    return Dataset(
        name=name, title=title, version=UNCOMMON_SENSE_COMMIT[:7],
        upstream="github.com/lgessler/bert-has-uncommon-sense", pin=UNCOMMON_SENSE_COMMIT,
        upstream_path=upstream_path, licence=licence, reader_format=reader_format,
        files=tuple(RemoteFile(rel, github_raw("lgessler/bert-has-uncommon-sense", UNCOMMON_SENSE_COMMIT, path),
                               sha, size) for rel, path, sha, size in files),
        entry=entry, **hooks,
    )


def _check_nota(path: Path, relpath: str = "") -> None:
    try:
        lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"cannot read {path}: {err}") from None
    if not lines or not all(ln.count("_") >= 2 for ln in lines):
        raise DataError(f"{path} is not a none-of-the-above sense list (lines lemma_pos_sense)")


def import_ontonotes(sources: list[Path], say) -> None:
    """``lexprobe data import ontonotes DIR|FILE``: one's own CoNLL-2012 copy (LDC licence), the first file read."""
    from lexprobe.data.install import install_copies
    from lexprobe.data.pins import record_import
    from lexprobe.data.registry import data_dir

    src = sources[0]
    files = conll_files(src)
    read_ontonotes(files[0], nota=set(), split=None if src.is_dir() else "test")
    base = src if src.is_dir() else src.parent
    install_copies(data_dir() / "ontonotes" / "conll-2012", [(f, f.relative_to(base)) for f in files])
    say(f"ontonotes: {len(files)} CoNLL-2012 files")
    record_import("ontonotes", "ontonotes/conll-2012", {}, src, say)


DATASET = register_dataset(Dataset(
    name="ontonotes", title="OntoNotes 5.0 in CoNLL-2012 format (word senses)", version="5.0",
    upstream="LDC (LDC2013T19)", pin="LDC2013T19",
    upstream_path="CoNLL-2012 *_conll files (train/, development/, test/)",
    licence="LDC licence: bring your own copy", reader_format="CoNLL-2012 *_conll with the word-sense column",
    entry="ontonotes/conll-2012", method="import-only", redistributable=False, importer=import_ontonotes,
))
NOTA = register_dataset(uncommon_sense(
    "ontonotes-nota", "OntoNotes 'none of the above' sense list (dropped senses)", "data/ontonotes_nota_senses.txt",
    "as distributed with the paper's code", "text, one lemma_pos_sense per line",
    "ontonotes/ontonotes_nota_senses.txt",
    (("ontonotes/ontonotes_nota_senses.txt", "data/ontonotes_nota_senses.txt",
      "4094cede2497855e89a725993b49088983df0fa89fe2cd4d8f6b0abb6fade0a5", 45_198),),
    check=_check_nota,
))
