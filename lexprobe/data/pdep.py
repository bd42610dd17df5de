"""PDEP (Pattern Dictionary of English Prepositions) corpus in CoNLL-U.

One sentence per block; the sense-tagged preposition carries ``Sense=<id>`` in the
MISC column (the paper's code also records its position in a ``# prep_id = N``
comment; any token with ``Sense=`` is taken, so the comment is optional). The
label is ``<lemma>_<sense>`` (e.g. ``on_20(8)``), unique across prepositions.

The split comes from the file name or its directory (``train``, ``dev``/``valid``,
``test``). The sense inventory with definitions is ``prepdefs.sqlite``
(``pdep_definitions``), shipped under ``../shared/data/pdep``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lexprobe.data.instances import SenseInstance
from lexprobe.data.ontonotes import split_from_path
from lexprobe.errors import DataError


def conllu_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    files = sorted(p for p in path.rglob("*.conllu") if p.is_file())
    if not files:
        raise DataError(f"no .conllu files under {path}")
    return files


def _misc_sense(misc: str) -> str | None:
    for item in misc.split("|"):
        if item.startswith("Sense="):
            return item[len("Sense="):]
    return None


def read_pdep(path: str | Path, split: str | None = None) -> list[SenseInstance]:
    root = Path(path)
    if not root.exists():
        raise DataError(f"PDEP corpus not found at {root}; pass --path to its .conllu file(s)")
    out = []
    for f in conllu_files(root):
        file_split = split or split_from_path(f)
        if file_split is None:
            raise DataError(f"cannot tell the split of {f}; name files like pdep_train.conllu / pdep_test.conllu")
        sent_id, rows, n = "", [], 0
        try:
            lines = f.read_text(encoding="utf-8").splitlines() + [""]
        except (OSError, UnicodeDecodeError) as err:
            raise DataError(f"cannot read {f}: {err}") from None
        for lineno, line in enumerate(lines, 1):
            if line.startswith("#"):
                if line.startswith("# sent_id"):
                    sent_id = line.partition("=")[2].strip()
                continue
            if line.strip():
                cols = line.split("\t")
                if len(cols) != 10:
                    raise DataError(f"{f}:{lineno}: a line with {len(cols)} tab-separated columns; CoNLL-U has 10")
                if "-" in cols[0] or "." in cols[0]:
                    continue
                if not cols[0].isdigit() or not cols[1].strip():
                    raise DataError(f"{f}:{lineno}: expected a token number and a word form in the first two "
                                    f"columns, got {cols[0][:20]!r} and {cols[1][:20]!r}")
                rows.append(cols)
                continue
            if rows:
                n += 1
                tokens = tuple(r[1] for r in rows)
                for i, r in enumerate(rows):
                    sense = _misc_sense(r[9])
                    if sense is None:
                        continue
                    lemma = r[2] if r[2] not in ("_", "") else r[1].lower()
                    out.append(SenseInstance(f.stem, tokens, i, lemma, "p", f"{lemma}_{sense}", file_split,
                                             sent_id or str(n)))
            sent_id, rows = "", []
    return out


def pdep_definitions(path: str | Path | None = None) -> dict[tuple[str, str], str]:
    """``{(preposition, sense id): definition}`` from ``prepdefs.sqlite``."""
    if path is None:
        from lexprobe.data.corpora import shared_data_dir

        path = shared_data_dir() / "pdep" / "prepdefs.sqlite"
    p = Path(path)
    if not p.is_file():
        raise DataError(f"PDEP definitions not found at {p}")
    with sqlite3.connect(f"file:{p}?mode=ro", uri=True) as con:
        return {(prep, sense): definition or "" for prep, sense, definition in
                con.execute("SELECT prep, sense, def FROM prepdefs")}
