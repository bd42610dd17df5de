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


def format_p(p: float | None) -> str:
    """A p-value as every table prints it: 3 significant digits (0.5, 0.0312, 0.00123), scientific below 0.001
    (1.23e-05), never fixed and scientific for the same magnitude."""
    if p is None:
        return "–"
    return f"{p:.2e}" if 0 < p < 1e-3 else f"{p:.3g}"


def _json_text(obj: Any) -> str:
    """``obj`` as JSON text that UTF-8 can hold: a path or argument with a byte that is not UTF-8 (a lone
    surrogate in Python) is written as a ``\\udcff`` escape, which reads back as the same string (D3:
    such a byte in --out or --data once made the result impossible to write)."""
    text = json.dumps(obj, ensure_ascii=False, indent=1)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, ensure_ascii=True, indent=1)
    return text


def write_json(path: str | Path, obj: Any) -> Path:
    """Write atomically (temp file + rename) so an interrupted write never leaves half a file.

    A full disk is one ``OutputError``: the temporary file is removed, an older ``path``
    stays as it was, and the work behind ``obj`` is still in its resume log.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    except OSError as err:
        _raise_if_disk_full(err, path)
        raise
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(_json_text(obj) + "\n")
            f.flush()
            os.fsync(f.fileno())  # a full disk shows here, not after the rename
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; results are ordinary files
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)  # a temporary file lives beside its target or nowhere
        if isinstance(err, OSError):
            _raise_if_disk_full(err, path)
        raise
    return path


def _raise_if_disk_full(err: OSError, path: Path) -> None:
    from lexprobe.outputs import disk_full

    if disk_full(err):
        from lexprobe.errors import OutputError

        raise OutputError(f"no space left on the device to write {path} ({err.strerror}); nothing was lost (no "
                          "partial file was left, an older file there is unchanged, finished units stay in the "
                          "run's resume log): free some space and rerun the same command") from None


def save_figure(fig, out: str | Path, dpi: int = 120) -> Path:
    """Save a matplotlib figure (creating its folder) and free it."""
    import matplotlib.pyplot as plt

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=dpi)
    plt.close(fig)
    return out
