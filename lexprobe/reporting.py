"""Plain-text tables and result files."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Sequence


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> str:
    """A fixed-width table; floats are printed with 3 decimals unless already strings."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3f}"
        return "" if v is None else str(v)

    text_rows = [[cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in text_rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]
    def line(cells):
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    out = [title] if title else []
    out += [line(headers), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in text_rows]
    return "\n".join(out)


def read_json(path: str | Path, fix: str) -> Any:
    """A JSON file's content; unreadable or malformed files are one DataError ending in ``fix``."""
    from lexprobe.errors import DataError

    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise DataError(f"{path} is not valid JSON ({str(err)[:120]}); {fix}") from None
    except OSError as err:
        raise DataError(f"cannot read {path} ({err.strerror or err}); {fix}") from None


def write_json(path: str | Path, obj: Any) -> Path:
    """Write atomically (temp file + rename) so an interrupted write never leaves half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=1)
            f.write("\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; results are ordinary files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)  # a temporary file lives beside its target or nowhere
        raise
    return path


def save_figure(fig, out: str | Path, dpi: int = 120) -> Path:
    """Save a matplotlib figure (creating its folder) and free it."""
    import matplotlib.pyplot as plt

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=dpi)
    plt.close(fig)
    return out
