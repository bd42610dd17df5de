"""Where every dataset lives by default: the one place readers' default paths come from.

A dataset's entry is in the data directory (``registry.data_dir``), unless ``lexprobe data import`` recorded
another in its state file, or its own override (an environment variable) gives another. Nothing here downloads.
"""

from __future__ import annotations

import json
from pathlib import Path

from lexprobe.data.registry import DATASETS, data_dir

STATE_DIR = ".lexprobe"


def _state_file(name: str) -> Path:
    return data_dir() / STATE_DIR / f"{name}.json"


def read_state(name: str) -> dict:
    try:
        state = json.loads(_state_file(name).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return state if isinstance(state, dict) else {}


def entry_path(name: str) -> Path:
    """What a reader opens for dataset ``name`` (it may not exist yet); the dataset's own override (an environment
    variable: ``LEXPROBE_SEMCOR``, ``LEXPROBE_CODA_DIR``) comes first."""
    override = DATASETS[name].override
    given = override() if override is not None else None
    if given is not None:
        return given
    entry = read_state(name).get("entry") or DATASETS[name].entry
    return data_dir() / entry


def missing_message(name: str, what: str | None = None) -> str:
    """One line saying a dataset is not in the data directory and the command that gets it."""
    ds = DATASETS[name]
    how = f"run `{ds.fetch_command}`"
    if ds.method == "http":
        how += f" (or `lexprobe data import {name} PATH` for a copy you have)"
    return f"{what or ds.title} not found in the data directory {data_dir()}; {how}"


def default_semcor() -> Path:
    """``$LEXPROBE_SEMCOR``, else SemCor in the data directory (fetched or imported; the
    expected download location when neither is there)."""
    return entry_path("semcor")

