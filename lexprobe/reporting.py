"""Plain-text tables and result files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

#: the widest line the console tables print (a terminal's 100 columns); longer cells wrap inside their column
WIDTH = 100
_GAP = 2
#: the narrowest a column is squeezed to (a long word is broken only below its own length)
_MIN_COLUMN = 6


def wrap_text(text: str, width: int = WIDTH, indent: str = "") -> str:
    """Prose under a console table (notes, position bias, counts) in lines of at most ``width`` columns;
    a line's own leading spaces are kept on its continuation lines."""
    import textwrap

    out = []
    for line in text.splitlines() or [""]:
        lead = line[: len(line) - len(line.lstrip())] or indent
        out += textwrap.wrap(line.strip(), width, initial_indent=line[: len(line) - len(line.lstrip())],
                             subsequent_indent=lead + ("  " if not indent else ""), break_on_hyphens=False) or [""]
    return "\n".join(out)


def command_lines(command: str, width: int = WIDTH, indent: str = "  ") -> str:
    """A shell command in lines of at most ``width`` columns, continued with `` \\`` where it breaks (between
    arguments, never inside one): still one command when pasted into a shell."""
    import shlex

    lines, line = [], indent
    for arg in shlex.split(command):
        word = shlex.quote(arg)
        if line.strip() and len(line) + 1 + len(word) + 2 > width:
            lines.append(line + " \\")
            line = indent + "    "
        line += ("" if not line.strip() else " ") + word
    return "\n".join(lines + [line])


def _column_widths(natural: list[int], words: list[int], width: int) -> list[int]:
    """Each column's width in a table of at most ``width`` columns: narrow columns keep their natural width and the
    room left is shared evenly among the wide ones (max-min fair), none narrower than its longest word (up to a
    quarter of ``width``: a model's long path is broken rather than squeezing every other column) where room allows,
    nor than ``_MIN_COLUMN``."""
    room = width - _GAP * (len(natural) - 1)
    if sum(natural) <= room:
        return list(natural)
    floors = [min(n, max(min(w, width // 4), _MIN_COLUMN)) for w, n in zip(words, natural)]
    widths, left = [0] * len(natural), room
    order = sorted(range(len(natural)), key=lambda j: natural[j])
    for k, j in enumerate(order):
        widths[j] = max(min(natural[j], left // (len(order) - k)), floors[j])
        left -= widths[j]
    while sum(widths) > room:  # floors overshot: the widest column above its floor gives way, then below it
        above = [i for i in range(len(widths)) if widths[i] > floors[i]] or \
            [i for i in range(len(widths)) if widths[i] > _MIN_COLUMN]
        if not above:
            break
        widths[max(above, key=lambda i: widths[i])] -= 1
    return widths


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None,
                 width: int = WIDTH) -> str:
    """A fixed-width table at most ``width`` columns wide; floats are printed with 3 decimals unless already
    strings. Why the cap: a cell of prose (an ask-to-choose headline, a long model path) once made `lexprobe
    run`'s closing table 225 columns wide; now the widest columns wrap inside themselves, word by word, the
    first column and wrapped ones left-aligned, the others right-aligned, and the title wraps above."""
    import textwrap

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3f}"
        return "" if v is None else str(v)

    text_rows = [[cell(v) for v in row] for row in rows]
    everything = [list(headers)] + text_rows
    natural = [max(len(r[j]) for r in everything) for j in range(len(headers))]
    words = [max((len(w) for r in everything for w in r[j].split()), default=0) for j in range(len(headers))]
    widths = _column_widths(natural, words, width)

    left = [j == 0 or widths[j] < natural[j] for j in range(len(widths))]  # a wrapped column reads as prose

    def lines(cells: Sequence[str]) -> list[str]:
        parts = [textwrap.wrap(c, w, break_on_hyphens=False) or [""] for c, w in zip(cells, widths)]
        height = max(len(p) for p in parts)
        return ["  ".join((p[k] if k < len(p) else "").ljust(w) if left[j] else (p[k] if k < len(p) else "").rjust(w)
                          for j, (p, w) in enumerate(zip(parts, widths))).rstrip() for k in range(height)]

    out = textwrap.wrap(title, width, break_on_hyphens=False) if title else []
    out += lines(list(headers)) + ["  ".join("-" * w for w in widths)]
    for r in text_rows:
        out += lines(r)
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


def figure_chars(inches: float, fontsize: float) -> int:
    """About how many characters of ``fontsize`` points fit on ``inches`` of a figure (a wrapping width, with a
    margin): titles and labels wrap inside the figure instead of running off it."""
    return max(16, int(inches * 72 / (0.6 * fontsize)) - 6)


def figure_wrap(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, words kept whole (hyphenated ones too)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) or text


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
