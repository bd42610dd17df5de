"""Tables of results, built once and rendered three ways: Markdown, LaTeX (booktabs) here, HTML by the
report's templates (``lexprobe.report.html.to_html``).

A ``Table`` of ``Cell``s (a figure with its 95% interval); HTML keeps each number at full
precision in ``data-value``/``data-lo``/``data-hi`` so tests and scripts can read it back.
Benchmarks build their tables from these (``contract.tables``); ``report`` renders them.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

POS_NAME = {"n": "Nouns", "v": "Verbs", "all": "All", "both": "All"}

#: the one unit convention of everything lexprobe shows (console, report, tables.md/.tex, docs/results.md), said
#: once where a reader starts; the result JSON keeps fractions (0..1), so a script reads them unscaled
UNITS = ("Scores are percentages (x100, as the papers print P@1, accuracy and MAP@50): P@1, rank score (RS), "
         "accuracy, MAP@50 and AP, parse rates and position shares; result files keep them as fractions (0..1).")


def model_name(result: dict) -> str:
    return str((result.get("model") or {}).get("name", "?"))


#: a parse rate (share of generated answers read as an option) below this (%) is flagged
PARSE_THRESHOLD = 50
#: a presented position chosen in more than this share (%) of answers, and more than twice as often as gold
#: sits there, is flagged as a position bias
BIAS_THRESHOLD = 50
#: what each flag of a table cell says, once under the table (``Cell.flags``, ``Text.flags``)
FLAGS = {
    "chance": "at chance: the 95% interval reaches down to the random baseline of the same items (or the figure "
              "is not above it), so it does not show the model doing better than guessing.",
    "parse": f"few answers parsed: under {PARSE_THRESHOLD}% of the generated answers could be read as an option; "
             "the generated figures then mostly count unreadable answers as wrong and say little about the model.",
    "bias": f"position bias: one presented position got more than {BIAS_THRESHOLD}% of the answers and more than "
            "twice the share of gold answers there (chance is 1 in the number of options); the model may be "
            "picking a position rather than an answer.",
}
FLAG_MARK = "⚠"


@dataclass
class Cell:
    value: float | None
    ci: list[float] | None = None
    scale: float = 100.0
    digits: int = 1
    flags: tuple[str, ...] = ()

    def number(self, x: float) -> str:
        return f"{self.scale * x:.{self.digits}f}"

    def main(self) -> str:
        return "–" if self.value is None else self.number(self.value)

    def interval(self) -> str:
        return "" if self.value is None or not self.ci else f"[{self.number(self.ci[0])}, {self.number(self.ci[1])}]"

    def text(self) -> str:
        return f"{self.main()} {self.interval()}".strip()

    def console(self) -> str:
        """``text`` with the interval one word (a no-break space after its comma): a console column too narrow
        for the figure wraps before the interval, never inside it."""
        return f"{self.main()} {self.interval().replace(' ', NO_BREAK)}".strip()


#: the space ``reporting.format_table`` never breaks a line at
NO_BREAK = "\u00a0"


@dataclass
class Text:
    """A text cell: one or more lines (HTML breaks them; Markdown and LaTeX join them with "; "), a
    ``tip`` the HTML shows on hover (an identifier behind a readable label), and flags as ``Cell``'s."""

    lines: list[str]
    tip: str = ""
    flags: tuple[str, ...] = ()

    def text(self) -> str:
        return "; ".join(self.lines)


def vs_random(c: Cell, baseline: Cell | dict | float | None, key: str | None = None) -> Cell:
    """``c`` flagged "chance" when it is not above the random baseline: its interval's lower bound (its value
    when it has no interval) at or below the baseline's value. ``baseline``: a Cell, a metrics slice (with
    ``key``, default ``c``'s own metric is not known, so pass it) or a number."""
    if isinstance(baseline, dict):
        baseline = baseline.get(key) if key else None
    elif isinstance(baseline, Cell):
        baseline = baseline.value
    if c.value is None or baseline is None:
        return c
    low = c.ci[0] if c.ci else c.value
    if low <= baseline + 1e-12:
        c.flags = tuple(dict.fromkeys(c.flags + ("chance",)))
    return c


def parse_rate(c: Cell) -> Cell:
    """``c`` (a share of answers parsed, 0..1) flagged "parse" below ``PARSE_THRESHOLD`` %."""
    if c.value is not None and 100 * c.value < PARSE_THRESHOLD:
        c.flags = tuple(dict.fromkeys(c.flags + ("parse",)))
    return c


def biased(b: dict) -> bool:
    """A position-bias record (``position_bias[slice][reading]``) over the threshold: the most chosen presented
    position has more than ``BIAS_THRESHOLD`` % of the answers and more than twice the share of gold there."""
    share, gold = b.get("most_chosen_share"), b.get("gold_share_there")
    if share is None:
        return False
    return 100 * share > BIAS_THRESHOLD and share > 2 * (gold or 0.0)


def table_flags(table: "Table") -> list[str]:
    """The flags used in ``table``'s cells, in ``FLAGS`` order."""
    used = {f for row in table.rows for v in row for f in getattr(v, "flags", ())}
    return [f for f in FLAGS if f in used]


def flag_notes(table: "Table") -> list[str]:
    """One sentence per flag the table uses (shown under it)."""
    return [f"{FLAG_MARK} {FLAGS[f]}" for f in table_flags(table)]


@dataclass
class Table:
    benchmark: str
    title: str
    headers: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    note: str = ""
    #: remarks under the table (e.g. queries that no bucket column holds), after ``note``
    remarks: list[str] = field(default_factory=list)
    #: headers of columns that hold prose (the HTML gives them room to wrap instead of squeezing them)
    prose: tuple[str, ...] = ()
    #: headers of columns of short lines that read best unbroken (the HTML keeps each line on one line)
    nowrap: tuple[str, ...] = ()


# --- helpers for the benchmarks' tables -----------------------------------------------------

def label(result: dict, names: dict[str, int]) -> str:
    name = model_name(result)
    if names.get(name, 0) > 1:  # the same model twice: tell the rows apart by file
        name = f"{name} ({Path(result['_path']).name})"
    return name


def digest(result: dict) -> str | None:
    return (result.get("run") or {}).get("items_digest")


def baseline_label(kind: str, result: dict, members: list[dict]) -> str | Text:
    """The random (or oracle) row's label; where the table's results ran on different items, the words "on
    the items of" and the files that ran on this row's items, the items digest in the tooltip."""
    d = digest(result)
    if len({digest(r) for r in members}) <= 1 or not d:
        return kind
    files = [Path(r["_path"]).name for r in members if digest(r) == d and r.get("_path")]
    return Text([f"{kind}, on the items of {', '.join(files) or 'another run'}"],
                tip=f"items digest {d} (run.items_digest of these result files)")


def name_counts(results) -> Counter[str]:
    return Counter(model_name(r) for r in results)


def cell(metrics: dict | None, key: str, scale: float = 100.0, digits: int = 1) -> Cell:
    if not metrics:
        return Cell(None)
    return Cell(metrics.get(key), (metrics.get("ci") or {}).get(key), scale, digits)


def by_group(results: list[dict], group: Callable[[dict], str]) -> dict[str, list[dict]]:
    """Results grouped by ``group(result)`` (a data file, a corpus), in first-seen order."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        groups[group(r)].append(r)
    return groups


# --- rendering ----------------------------------------------------------------------

def _plain(v: Any) -> str:
    if isinstance(v, (Cell, Text)):
        return v.text() + (f" {FLAG_MARK}" if v.flags else "")
    return "" if v is None else str(v)


def _notes(table: Table) -> list[str]:
    return ([table.note] if table.note else []) + table.remarks + flag_notes(table)


def to_text(table: Table, transpose: bool = False) -> str:
    """A table as the console prints it, from the report's own ``Table``: its figures with their 95% intervals
    (``Cell.text``: the notes say "intervals in brackets", so the brackets are printed; the console once printed
    the sentence and no interval) in ``reporting.format_table``'s grid (at most ``reporting.WIDTH`` columns); its
    columns of prose (``prose``, ``nowrap``) as lines under the grid, once where every row has the same text, else
    each headed by what tells its row apart (``row_names``); the note, the flags' sentences and the remarks last.
    ``transpose``: a line per column and a column per row (a wide table of few rows, as one run's own is),
    leading columns alike in every row (the model) said in the title."""
    from lexprobe.reporting import format_table, wrap_text

    def text(v: Any) -> str:
        shown = v.console() if isinstance(v, Cell) else ("" if v is None else getattr(v, "text", lambda: str(v))())
        return shown + (f" {FLAG_MARK}" if getattr(v, "flags", ()) else "")

    rows = [[text(c) for c in row] for row in table.rows]
    aside = [j for j, h in enumerate(table.headers) if h in table.prose + table.nowrap]
    grid = [j for j in range(len(table.headers)) if j not in aside]
    names = row_names(table, rows)
    lines = []
    for j in aside:
        if len({r[j] for r in rows}) == 1:
            lines += [f"{table.headers[j]}: {rows[0][j]}"] if rows[0][j] else []
        else:
            lines += [f"{table.headers[j]}, {name}: {r[j]}" if name else f"{table.headers[j]}: {r[j]}"
                      for name, r in zip(names, rows)]
    headers, cells, title = [table.headers[j] for j in grid], [[r[j] for j in grid] for r in rows], table.title
    if transpose and cells:
        first = 0
        while len(cells) > 1 and first < len(headers) - 1 and len({r[first] for r in cells}) == 1:
            title += f"; {headers[first]}: {cells[0][first]}" if cells[0][first] else ""
            first += 1
        headers, cells = [""] + [r[first] for r in cells], [[headers[j]] + [r[j] for r in cells]
                                                            for j in range(first + 1, len(headers))]
    return "\n".join([format_table(headers, cells, title=title)]
                     + [wrap_text(line, indent="  ") for line in lines + _notes(table)])


def row_names(table: Table, rows: list[list[str]]) -> list[str]:
    """What tells each row apart, as a line under the grid names it: the row's cells in the table's leading
    columns of names (those before its first column of figures, prose columns left out) that differ between
    rows ("Nouns"; "smollm2, Verbs"). Never a figure or a prose cell: a line once read "Position bias, Nouns,
    unparseable 4, unparseable 4:", its generation failures taken for the row's name."""
    first = next((j for j in range(len(table.headers)) if any(isinstance(r[j], Cell) for r in table.rows)),
                 len(table.headers))
    keys = [j for j in range(first) if table.headers[j] not in table.prose + table.nowrap
            and len({r[j] for r in rows}) > 1]
    return [", ".join(r[j] for j in keys if r[j]) for r in rows]


_MD = {"|": "\\|", "<": "&lt;", ">": "&gt;", "[": "\\[", "]": "\\]", "`": "\\`", "\n": " ", "\r": " "}


def md_escape(s: str) -> str:
    """Text a Markdown viewer shows as text: no raw HTML (``<img src=x onerror=...>`` in a model name or
    data path), no links, no broken rows."""
    return "".join(_MD.get(ch, ch) for ch in s)


#: what may start Markdown markup inside a line (CommonMark lets a backslash escape any ASCII punctuation); a ``|``
#: matters only in a table's row, whose writer escapes it in every cell
_MD_MARKUP = set("\\`*_{}[]()<>#+-!~&")


def _visible(ch: str) -> str:
    """A control character (a line break too) as its escape, shown as text: one line stays one line."""
    return ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")


def md_text(s: str) -> str:
    """Text from outside (a file name, a source's name) as one line of Markdown text shown as written: every
    character that could start markup escaped with a backslash, line breaks and control characters shown as
    escapes, so no heading, list, link, image or HTML can begin in it (a file named ``a\n## Licence: MIT\nb``
    once put a heading into a dataset card, D18)."""
    return "".join("\\" + ch if ch in _MD_MARKUP else _visible(ch) for ch in str(s))


def md_code(s: str) -> str:
    """Text from outside (a command, a name, a canary string) as one inline code span showing it exactly: fenced by
    more backticks than any run of them inside (a backslash escapes nothing in a code span), line breaks and
    control characters shown as escapes (a blank line would end the span and its paragraph)."""
    text = "".join(_visible(ch) for ch in str(s))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def to_markdown(table: Table) -> str:
    esc = md_escape
    numeric = [any(isinstance(row[j], Cell) for row in table.rows) for j in range(len(table.headers))]
    lines = [f"### {esc(table.title)}", "", "| " + " | ".join(esc(h) for h in table.headers) + " |",
             "|" + "|".join("---:" if j and numeric[j] else "---" for j in range(len(table.headers))) + "|"]
    lines += ["| " + " | ".join(_plain(c) if isinstance(c, Cell) else esc(_plain(c)) for c in row) + " |"
              for row in table.rows]
    for note in _notes(table):
        lines += ["", esc(note)]
    return "\n".join(lines)


_TEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
        "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def tex_escape(s: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in s).replace("–", "--")


def to_latex(table: Table) -> str:
    def cell(v):
        if isinstance(v, Cell):
            mark = f" {FLAG_MARK}" if v.flags else ""
            return (v.main() if not v.interval() else f"{v.main()} {{\\scriptsize {v.interval()}}}") + mark
        return tex_escape(_plain(v))

    lines = [r"\begin{table}[t]", r"\centering", r"\small",
             r"\begin{tabular}{l" + "r" * (len(table.headers) - 1) + "}", r"\toprule",
             " & ".join(tex_escape(h) for h in table.headers) + r" \\", r"\midrule"]
    lines += [" & ".join(cell(c) for c in row) + r" \\" for row in table.rows]
    lines += [r"\bottomrule", r"\end{tabular}",
              f"\\caption{{{tex_escape(table.title)}. {tex_escape(' '.join(_notes(table)))}}}", r"\end{table}"]
    return "\n".join(lines).replace(FLAG_MARK, r"$^\dagger$")  # the mark in a font every TeX engine has
