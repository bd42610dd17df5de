"""The rules that made the sense-ranking paper's PDEP corpus (the authors' ``scripts/format_pdep.py``, summarised
in the shared data's ``PDEP_CORPUS_RULES.md``), as a separate filtering step.

A ``prepcorp`` row is kept when its sense is not ``EXCLUDED_SENSES``, the preposition is one word among the 48
(``WHITELIST`` at the authors' HEAD, ``in`` added in dbcc9d3 before the corpus files were committed), it is not
instance 577203 (malformed), and the token at character offset ``preploc`` is the preposition (some offsets are
unreliable). ``convert_prepcorp`` writes kept rows as CoNLL-U (``Sense=`` in MISC) split 80/20 with
``random.Random(seed)`` (the authors shuffled without a seed); ``filter_pdep_instances`` applies the same rules
to instances already read, so a corpus converted another way is evaluated on the same prepositions and senses.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

PDEP_PREPOSITIONS = frozenset("""
about above across after against among around as at before behind below beneath beside besides between beyond
circa despite during except for from in including inside into near of off on onto over per since than through
to toward towards under until unto up upon via with without
""".split())
EXCLUDED_SENSES = frozenset({"unk", "x", "pv", "adverb", "1(!)", ""})
DROPPED_INSTANCES = frozenset({577203})
REQUIRED_COLUMNS = ("inst", "prep", "sense", "sentence", "preploc", "source")


def prep_token_at(sentence: str, offset: int) -> tuple[str, int]:
    """The token starting at character ``offset`` (up to the next space) and its end."""
    end = sentence.find(" ", offset + 1)
    if end < 0:
        end = len(sentence)  # the authors' find() returned -1 here and cut the last character
    return sentence[offset:end].strip(), end


def rejection(row: Mapping[str, Any]) -> str | None:
    """Why a ``prepcorp`` row is dropped, or None if it is kept."""
    sense = "" if row.get("sense") is None else str(row["sense"])
    prep = str(row.get("prep") or "")
    if sense in EXCLUDED_SENSES:
        return "excluded sense"
    if " " in prep:
        return "multi-word preposition"
    try:
        if int(row.get("inst")) in DROPPED_INSTANCES:  # type: ignore[arg-type]  # None: TypeError below
            return "malformed instance"
    except (TypeError, ValueError):
        pass
    if prep.lower() not in PDEP_PREPOSITIONS:
        return "preposition not among the 48"
    try:
        offset = int(row["preploc"])
    except (KeyError, TypeError, ValueError):
        return "no preposition offset"
    token, _ = prep_token_at(str(row.get("sentence") or ""), offset)
    if token.lower() != prep.lower():
        return "offset does not point at the preposition"
    return None


def to_conllu(row: Mapping[str, Any]) -> str:
    """One kept row as a CoNLL-U sentence block."""
    sentence, offset, prep = str(row["sentence"]), int(row["preploc"]), str(row["prep"])
    token, end = prep_token_at(sentence, offset)
    before = sentence[:offset].split()
    tokens = before + [token] + sentence[end + 1:].split()
    index = len(before)
    lines = [f"# source = {row.get('source')}", f"# id = {row.get('inst')}", f"# prep_id = {index + 1}"]
    for i, form in enumerate(tokens):
        lemma, misc = (prep, f"Sense={row['sense']}") if i == index else ("_", "_")
        lines.append("\t".join([str(i + 1), form, lemma, "_", "_", "_", "_", "_", "_", misc]))
    return "\n".join(lines) + "\n\n"


def convert_prepcorp(rows: Iterable[Mapping[str, Any]], seed: int = 0,
                     train_fraction: float = 0.8) -> tuple[str, str, Counter]:
    """(train CoNLL-U, test CoNLL-U, counts of kept rows and of each rejection reason)."""
    counts: Counter = Counter()
    blocks = []
    for row in rows:
        reason = rejection(row)
        counts[reason or "kept"] += 1
        if reason is None:
            blocks.append(to_conllu(row))
    random.Random(seed).shuffle(blocks)
    cut = int(len(blocks) * train_fraction)
    return "".join(blocks[:cut]), "".join(blocks[cut:]), counts


def read_prepcorp(path) -> list[dict]:
    """Rows of the ``prepcorp`` table of a PDEP SQLite file."""
    import sqlite3

    from lexprobe.errors import DataError

    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
            con.row_factory = sqlite3.Row
            rows = [dict(r) for r in con.execute("SELECT * FROM prepcorp")]
    except sqlite3.Error as err:
        raise DataError(f"cannot read table prepcorp from {path} ({err}); pass PDEP's prepcorp.sqlite") from None
    if rows:
        missing = [c for c in REQUIRED_COLUMNS if c not in rows[0]]
        if missing:
            raise DataError(f"{path}: table prepcorp lacks column(s) {', '.join(missing)}")
    return rows


def filter_pdep_instances(instances: Sequence[Any]) -> tuple[list, Counter]:
    """Instances (``lemma`` = preposition, ``label`` = ``<prep>_<sense>``) that pass the rules."""
    counts: Counter = Counter()
    kept = []
    for inst in instances:
        prep = str(inst.lemma)
        sense = str(inst.label)[len(prep) + 1:] if str(inst.label).startswith(prep + "_") else str(inst.label)
        if sense in EXCLUDED_SENSES:
            counts["excluded sense"] += 1
        elif " " in prep or "_" in prep:
            counts["multi-word preposition"] += 1
        elif prep.lower() not in PDEP_PREPOSITIONS:
            counts["preposition not among the 48"] += 1
        else:
            kept.append(inst)
            continue
    counts["kept"] = len(kept)
    return kept, counts
