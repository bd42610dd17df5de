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
from lexprobe.data.ontonotes import split_from_path, uncommon_sense
from lexprobe.data.registry import register_dataset, register_group
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


# --- the datasets ---------------------------------------------------------------------------------------------

LICENCE = "PDEP (The Preposition Project), as distributed with the paper's code"


def _check_prepdefs(path: Path, relpath: str = "") -> None:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
            con.execute("SELECT prep, sense, def FROM prepdefs LIMIT 1").fetchall()
    except sqlite3.Error as err:
        raise DataError(f"{path} is not the PDEP inventory (prepdefs.sqlite with table prepdefs): {err}") from None


def _check_corpus(path: Path, relpath: str) -> None:
    from lexprobe.data.files import require_records

    split = "train" if "train" in Path(relpath).name else "test"
    require_records(read_pdep(path, split=split), path, "PDEP sense-tagged prepositions")


def import_corpus(sources: list[Path], say) -> bool:
    """``lexprobe data import pdep-corpus FILES|DIR``: CoNLL-U files with ``Sense=`` (each read); False where
    ``sources`` hold none (``data import pdep`` with the inventory only)."""
    from lexprobe.data.download import sha256_of
    from lexprobe.data.install import install_copies
    from lexprobe.data.pins import record_import
    from lexprobe.data.registry import data_dir

    files = [f for s in sources for f in (conllu_files(s) if s.is_dir() or s.suffix == ".conllu" else [])]
    if not files:
        return False
    for f in files:
        read_pdep(f)  # format and split-name check
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        raise DataError(f"two PDEP files share a name ({', '.join(names)}); import them one folder at a time")
    install_copies(data_dir() / "pdep" / "corpus", [(f, f.name) for f in files])
    recorded = {f"pdep/corpus/{n}": sha256_of(data_dir() / "pdep" / "corpus" / n) for n in names}
    record_import("pdep-corpus", "pdep/corpus", recorded, sources[0], say, pinned_now=list(recorded))
    return True


INVENTORY = register_dataset(uncommon_sense(
    "pdep-inventory", "PDEP preposition sense inventory (prepdefs.sqlite)", "data/pdep/SQL/prepdefs.sqlite",
    LICENCE, "SQLite table prepdefs(prep, sense, def)", "pdep/prepdefs.sqlite",
    (("pdep/prepdefs.sqlite", "data/pdep/SQL/prepdefs.sqlite",
      "3fcce72f385e1dac36b33b006992e84a1779420442116a9928970d758fe0ae8d", 139_264),),
    check=_check_prepdefs,
))
CORPUS = register_dataset(uncommon_sense(
    "pdep-corpus", "PDEP corpus of sense-tagged prepositions (train, test)", "data/pdep/pdep_{train,test}.conllu",
    LICENCE, "CoNLL-U with Sense= in MISC", "pdep/corpus",
    tuple((f"pdep/corpus/pdep_{split}.conllu", f"data/pdep/pdep_{split}.conllu", None, None)
          for split in ("train", "test")),
    check=_check_corpus, importer=import_corpus,
))
register_group("pdep", (INVENTORY.name, CORPUS.name))
