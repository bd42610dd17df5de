"""Tables of results, built once and rendered three ways: Markdown, LaTeX (booktabs), HTML.

A ``Table`` of ``Cell``s (a figure with its 95% interval); HTML keeps each number at full
precision in ``data-value``/``data-lo``/``data-hi`` so tests and scripts can read it back.
Benchmarks build their tables from these (``Benchmark.tables``); ``report`` renders them.
"""

from __future__ import annotations

import html
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

POS_NAME = {"n": "Nouns", "v": "Verbs", "all": "All", "both": "All"}


def model_name(result: dict) -> str:
    return str((result.get("model") or {}).get("name", "?"))


@dataclass
class Cell:
    value: float | None
    ci: list[float] | None = None
    scale: float = 100.0
    digits: int = 1

    def number(self, x: float) -> str:
        return f"{self.scale * x:.{self.digits}f}"

    def main(self) -> str:
        return "–" if self.value is None else self.number(self.value)

    def interval(self) -> str:
        return "" if self.value is None or not self.ci else f"[{self.number(self.ci[0])}, {self.number(self.ci[1])}]"

    def text(self) -> str:
        return f"{self.main()} {self.interval()}".strip()


@dataclass
class Table:
    benchmark: str
    title: str
    headers: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    note: str = ""


# --- helpers for the benchmarks' tables -----------------------------------------------------

def label(result: dict, names: dict[str, int]) -> str:
    name = model_name(result)
    if names.get(name, 0) > 1:  # the same model twice: tell the rows apart by file
        name = f"{name} ({Path(result['_path']).name})"
    return name


def digest(result: dict) -> str | None:
    return (result.get("run") or {}).get("items_digest")


def baseline_label(kind: str, result: dict, digests: set) -> str:
    d = digest(result)
    return f"{kind} [items {d[:8]}]" if len(digests) > 1 and d else kind


def name_counts(results):
    counts: dict[str, int] = defaultdict(int)
    for r in results:
        counts[model_name(r)] += 1
    return counts


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
    if isinstance(v, Cell):
        return v.text()
    return "" if v is None else str(v)


_MD = {"|": "\\|", "<": "&lt;", ">": "&gt;", "[": "\\[", "]": "\\]", "`": "\\`", "\n": " ", "\r": " "}


def md_escape(s: str) -> str:
    """Text a Markdown viewer shows as text: no raw HTML (``<img src=x onerror=...>`` in a model name or
    data path), no links, no broken rows."""
    return "".join(_MD.get(ch, ch) for ch in s)


def to_markdown(table: Table) -> str:
    esc = md_escape
    numeric = [any(isinstance(row[j], Cell) for row in table.rows) for j in range(len(table.headers))]
    lines = [f"### {esc(table.title)}", "", "| " + " | ".join(esc(h) for h in table.headers) + " |",
             "|" + "|".join("---:" if j and numeric[j] else "---" for j in range(len(table.headers))) + "|"]
    lines += ["| " + " | ".join(c.text() if isinstance(c, Cell) else esc(_plain(c)) for c in row) + " |"
              for row in table.rows]
    if table.note:
        lines += ["", esc(table.note)]
    return "\n".join(lines)


_TEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
        "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def tex_escape(s: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in s).replace("–", "--")


def to_latex(table: Table) -> str:
    def cell(v):
        if isinstance(v, Cell):
            return v.main() if not v.interval() else f"{v.main()} {{\\scriptsize {v.interval()}}}"
        return tex_escape(_plain(v))

    lines = [r"\begin{table}[t]", r"\centering", r"\small",
             r"\begin{tabular}{l" + "r" * (len(table.headers) - 1) + "}", r"\toprule",
             " & ".join(tex_escape(h) for h in table.headers) + r" \\", r"\midrule"]
    lines += [" & ".join(cell(c) for c in row) + r" \\" for row in table.rows]
    lines += [r"\bottomrule", r"\end{tabular}",
              f"\\caption{{{tex_escape(table.title)}. {tex_escape(table.note)}}}", r"\end{table}"]
    return "\n".join(lines)


def to_html(table: Table) -> str:
    def cell(v):
        if isinstance(v, Cell):
            if v.value is None:
                return "<td class='num'>–</td>"
            attrs = f" data-value='{v.value!r}'"
            if v.ci:
                attrs += f" data-lo='{v.ci[0]!r}' data-hi='{v.ci[1]!r}'"
            ci = f" <span class='ci'>{html.escape(v.interval())}</span>" if v.interval() else ""
            return f"<td class='num'{attrs}>{html.escape(v.main())}{ci}</td>"
        return f"<td>{html.escape(_plain(v))}</td>"

    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = "\n".join("<tr>" + "".join(cell(c) for c in row) + "</tr>" for row in table.rows)
    note = f"<p class='note'>{html.escape(table.note)}</p>" if table.note else ""
    return (f"<table class='results' data-benchmark='{table.benchmark}'><caption>{html.escape(table.title)}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>{note}")
