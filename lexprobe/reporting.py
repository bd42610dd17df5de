"""Plain-text tables and result files."""

from __future__ import annotations

import json
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



def _json_text(obj: Any) -> str:
    """``obj`` as JSON text that UTF-8 can hold: a path or argument with a byte that is not UTF-8 (a lone
    surrogate in Python) is written as a ``\\udcff`` escape, which reads back as the same string (D3:
    such a byte in --out or --data once made the result impossible to write). Every string passes
    ``redaction.redact`` first: no secret reaches a result file (#33 D7)."""
    from lexprobe.redaction import redact_tree

    obj = redact_tree(obj)
    text = json.dumps(obj, ensure_ascii=False, indent=1)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, ensure_ascii=True, indent=1)
    return text


def write_json(path: str | Path, obj: Any) -> Path:
    """Write ``obj`` as JSON through ``outputs.write_atomic`` (temporary file + rename: an interrupted write
    never leaves half a file, a link at ``path`` is replaced, never followed).

    A full disk is one ``OutputError``: the temporary file is removed, an older ``path``
    stays as it was, and the work behind ``obj`` is still in its resume log.
    """
    from lexprobe.outputs import write_atomic

    return write_atomic(path, _json_text(obj) + "\n")


def save_figure(fig, out: str | Path, dpi: int = 120) -> Path:
    """Save a matplotlib figure through ``outputs.write_atomic`` (never through a link) and free it: the one
    way every plot module writes a figure.

    Every text of the figure is drawn as written, never parsed as mathtext: a model name such as
    ``m$\\frac{1}{$`` (from a folder or a server) once made ``savefig`` raise after the whole evaluation, D1.
    Texts are switched to plain here, and ticks made while drawing are born plain (``text.parse_math``)."""
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from lexprobe.outputs import write_atomic

    out = Path(out)
    fmt = out.suffix.lower().lstrip(".") or "png"
    try:
        for text in fig.findobj(Text):
            text.set_parse_math(False)
        with matplotlib.rc_context({"text.parse_math": False}):
            write_atomic(out, lambda f: fig.savefig(f, format=fmt, dpi=dpi))
    finally:
        plt.close(fig)
    return out
