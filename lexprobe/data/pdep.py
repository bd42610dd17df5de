"""PDEP (Pattern Dictionary of English Prepositions) corpus in CoNLL-U.

Any token with ``Sense=<id>`` in MISC is a target (the ``# prep_id`` comment is optional), labelled
``<lemma>_<sense>`` (``on_20(8)``); the split comes from the file or folder name. ``pdep_definitions`` reads the
sense inventory ``prepdefs.sqlite``; ``lexprobe data fetch pdep`` gets both.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lexprobe.data.conllu_reader import read_sentences
from lexprobe.data.instances import SenseInstance
from lexprobe.data.ontonotes import split_from_path
from lexprobe.errors import DataError


def conllu_files(path: Path) -> list[Path]:
    from lexprobe.data.files import files_under

    return files_under(path, "*.conllu", ".conllu files")


def read_pdep(path: str | Path, split: str | None = None) -> list[SenseInstance]:
    root = Path(path)
    if not root.exists():
        raise DataError(f"PDEP corpus not found at {root}; pass --path to its .conllu file(s)")
    from lexprobe.data.pins import check_unchanged

    check_unchanged(root)  # in the data directory: still what was pinned
    out = []
    for f in conllu_files(root):
        file_split = split or split_from_path(f)
        if file_split is None:
            raise DataError(f"cannot tell the split of {f}; name files like pdep_train.conllu / pdep_test.conllu")
        for n, sentence in enumerate(read_sentences(f), 1):
            tokens = tuple(w["form"] for w in sentence.words)
            for i, w in enumerate(sentence.words):
                misc = w["misc"] or {}
                if "Sense" not in misc:
                    continue
                sense = misc["Sense"] or ""  # conllu reads "Sense=" as None
                lemma = w["lemma"] if w["lemma"] not in ("_", "") else w["form"].lower()
                out.append(SenseInstance(f.stem, tokens, i, lemma, "p", f"{lemma}_{sense}", file_split,
                                         sentence.sent_id or str(n)))
    return out


def pdep_definitions(path: str | Path | None = None) -> dict[tuple[str, str], str]:
    """``{(preposition, sense id): definition}`` from ``prepdefs.sqlite``."""
    if path is None:
        from lexprobe.data.locations import entry_path, missing_message

        path = entry_path("pdep-inventory")
        if not path.is_file():
            raise DataError(missing_message("pdep-inventory"))
    p = Path(path)
    if not p.is_file():
        raise DataError(f"PDEP definitions not found at {p}")
    from lexprobe.data.pins import check_unchanged

    check_unchanged(p)
    with sqlite3.connect(f"file:{p}?mode=ro", uri=True) as con:
        return {(prep, sense): definition or "" for prep, sense, definition in
                con.execute("SELECT prep, sense, def FROM prepdefs")}
