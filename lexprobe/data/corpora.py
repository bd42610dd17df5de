"""Registry of the sense-annotated corpora: name -> reader producing ``SenseInstance``s.

Every reader returns single-word targets with their split (``train`` is the
database D of sense ranking; ``dev`` and ``test`` are queries). Without a path a
corpus is read from the data directory (``lexprobe data fetch|import``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from lexprobe.data.instances import SenseInstance
from lexprobe.errors import DataError


def _semcor(path=None, seed=0):
    from lexprobe.data.semcor import semcor_instances

    return semcor_instances(path, seed=seed)


def _ontonotes(path=None, seed=0):
    from lexprobe.data.ontonotes import read_ontonotes

    return read_ontonotes(path if path is not None else _stored("ontonotes"))


def _pdep(path=None, seed=0):
    from lexprobe.data.pdep import read_pdep

    return read_pdep(path if path is not None else _stored("pdep-corpus"))


def _stored(dataset: str) -> Path:
    from lexprobe.data.locations import missing_message
    from lexprobe.data.store import locate

    found = locate(dataset)
    if found is None:
        raise DataError(missing_message(dataset) + ", or pass --path to your copy")
    return found


def _streusle(path=None, seed=0):
    from lexprobe.data.streusle import streusle_instances

    return streusle_instances(path)


#: corpus name -> its reader, ``load(path=None, seed=0)``: SemCor 3.0 NAF (WordNet 3.0 sense keys; seeded 80/20
#: document split), OntoNotes 5.0 in CoNLL-2012 format (sense groupings), the PDEP preposition corpus in CoNLL-U
#: (Sense= in MISC), STREUSLE 4.4 supersenses of single-word N, V, P
CORPORA: dict[str, Callable[..., list[SenseInstance]]] = {
    "semcor": _semcor, "ontonotes": _ontonotes, "pdep": _pdep, "streusle": _streusle}


def load_corpus(name: str, path: str | Path | None = None, seed: int = 0) -> list[SenseInstance]:
    if name not in CORPORA:
        raise DataError(f"unknown corpus {name!r}; choose one of {', '.join(CORPORA)}")
    if path is not None and not Path(path).exists():
        raise DataError(f"{name} data not found at {path}; check --path")
    instances = CORPORA[name](path, seed=seed)
    if not instances:
        raise DataError(f"no sense-tagged single-word targets found in the {name} data at {_where(name, path)}")
    return instances


def _where(name: str, path) -> str:
    """The location actually read, and how it was chosen (an option, a variable, or the default)."""
    if path is not None:
        return f"{path} (--path)"
    variable = {"semcor": "LEXPROBE_SEMCOR"}.get(name)
    if variable and os.environ.get(variable):
        return f"{os.environ[variable]} (set by {variable})"
    if name == "semcor":
        from lexprobe.data.semcor import default_archive

        return f"{default_archive()} (the default location)"
    return "the default location"
