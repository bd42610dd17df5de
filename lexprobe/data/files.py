"""Input files must be regular files (a FIFO blocks a reader forever, ``/dev/zero`` never ends): readers and
``data import`` call ``require_regular`` first. ``read_json`` is how every JSON input is read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from lexprobe.errors import DataError
from lexprobe.regular_files import require_regular  # noqa: F401 - re-exported: every reader imports it from here


def unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` for ``json.loads``: a key twice in one object is an error, not 'the
    last one wins' (a CoDA21 file with ``"n"`` twice would silently lose its first noun groups)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice = None
        for key, _ in pairs:
            if key in seen:
                twice = key
                break
            seen.add(key)
        raise ValueError(f"duplicate key {twice!r} in one JSON object")
    return out


def read_json(path: str | Path, fix: str) -> Any:
    """A JSON file's content; unreadable or malformed (a key twice in one object, nesting deeper than the
    recursion limit) is one DataError ending in ``fix``. A FIFO or a device is refused before it is opened, and
    a dataset file is checked against its pin first. NaN where a value is expected is left to the caller."""
    from lexprobe.data.pins import check_unchanged

    path = Path(path)
    require_regular(path, fix)
    check_unchanged(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    except (ValueError, RecursionError) as err:  # JSONDecodeError, UnicodeDecodeError, a duplicate key
        raise DataError(f"{path} is not valid JSON ({str(err)[:120]}); {fix}") from None
    except OSError as err:
        raise DataError(f"cannot read {path} ({err.strerror or err}); {fix}") from None


def require_records(records: list, path: Path, what: str) -> None:
    """A file that parses but holds nothing the reader would use is not the dataset either."""
    if not records:
        raise DataError(f"{path} holds no {what}; not the dataset's file")


def files_under(path: Path, pattern: str, what: str, accept: Callable[[Path], bool] = Path.is_file) -> list[Path]:
    """``[path]`` for a file; for a folder, the files under it matching ``pattern`` that ``accept`` takes, sorted
    (none is one DataError naming ``what``). A FIFO or a device is refused."""
    if require_regular(path).is_file():
        return [path]
    files = sorted(p for p in path.rglob(pattern) if p.is_file() and accept(p))
    if not files:
        raise DataError(f"no {what} under {path}")
    return files
