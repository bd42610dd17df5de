"""Self-contained HTML pages: no external scripts, styles or fonts; images as data URIs.

``index.html`` holds the tables, the figures and the run records; one page per
benchmark lists every item with what the model chose, filterable in the browser
(inline JavaScript over an embedded JSON block; works from ``file://``).

The pages are rendered from the jinja2 templates in ``templates/`` (package data) with
autoescape on, so every text from a result file (model names, items, definitions, paths,
captions) is escaped by default, not by a call each writer has to remember. Python only
builds plain values for the templates (the ``*_view`` functions); the one text marked safe
is the JSON block of the items pages, made safe for a script element by ``json_block``.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

from markupsafe import Markup

from lexprobe.core.registry import all_benchmarks, get
from lexprobe.report.tables import RECORD_NOTE
from lexprobe.tables import FLAG_MARK, FLAGS, UNITS, Cell, Table, Text, table_flags

#: rows drawn at once in a group of an items page (a button draws the next ones)
PAGE_ROWS = 50
#: the templates' folder inside the package (``pyproject.toml``'s package data ships it)
TEMPLATES = "templates"


def bench_titles() -> dict[str, str]:
    return {b.meta.name: b.meta.title for b in all_benchmarks()}


@lru_cache(maxsize=1)
def environment():
    """The one jinja2 environment of the report: templates read from the installed package (also from a
    wheel or a zip), autoescape on for every template, an undefined name an error rather than blank text."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(loader=PackageLoader("lexprobe.report", TEMPLATES), autoescape=True,
                      undefined=StrictUndefined, keep_trailing_newline=True)
    env.filters["after_slashes"] = after_slashes
    return env


def after_slashes(text: str) -> list[str]:
    """``text`` cut after each "/" (where a path may wrap: the template puts a <wbr> there)."""
    return re.split(r"(?<=/)(?!$)", text)


def render(template: str, **context) -> str:
    return environment().get_template(template).render(**context)


# --- tables -------------------------------------------------------------------------------

def _plain(v) -> str:
    if isinstance(v, (Cell, Text)):
        return v.text() + (f" {FLAG_MARK}" if v.flags else "")
    return "" if v is None else str(v)


def _flagged(flags: tuple[str, ...]) -> tuple[list[str], str | None]:
    """(class names, title) of a flagged cell: the CSS draws the mark, the title says why."""
    if not flags:
        return [], None
    return ["flag"] + [f"flag-{f}" for f in flags], " ".join(FLAGS[f] for f in flags)


def _attrs(classes: list[str], title: str | None = None, **data) -> list[tuple[str, str]]:
    pairs = [("class", " ".join(classes))] if classes else []
    pairs += [(k.replace("_", "-"), v) for k, v in data.items() if v is not None]
    return pairs + ([("title", title)] if title else [])


def cell_view(v, prose: bool = False, label: bool = False, nowrap: bool = False) -> dict:
    """A table cell as the template draws it: attributes, text (or lines), interval. ``label``: the row's
    first cell (the model column, kept in view while the table scrolls sideways)."""
    base = (["label"] if label else []) + (["prose"] if prose else []) + (["nowrap"] if nowrap else [])
    view = {"text": "", "ci": "", "lines": None, "span_tip": None, "name": label}
    if isinstance(v, Cell):
        if v.value is None:
            return view | {"attrs": _attrs(["num"]), "text": "–"}
        classes, title = _flagged(v.flags)
        lo, hi = (repr(v.ci[0]), repr(v.ci[1])) if v.ci else (None, None)
        return view | {"attrs": _attrs(["num"] + classes, title, data_value=repr(v.value), data_lo=lo, data_hi=hi),
                       "text": v.main(), "ci": v.interval()}
    if isinstance(v, Text):
        classes, title = _flagged(v.flags)
        if v.tip and not title:
            title = v.tip
        return view | {"attrs": _attrs(base + classes + (["tip"] if v.tip else []), title), "lines": list(v.lines),
                       "span_tip": v.tip if v.tip and v.flags else None}
    return view | {"attrs": _attrs(base), "text": _plain(v)}


#: first cells of the rows that hold a baseline, not a model (drawn in grey)
BASELINE_LABELS = ("Random", "Oracle")


def table_view(table: Table) -> dict:
    prose = {j for j, h in enumerate(table.headers) if h in table.prose}
    nowrap = {j for j, h in enumerate(table.headers) if h in table.nowrap}
    rows: list[dict] = []
    after = False  # the row follows a baseline row: a model's rows start there (a line above them)
    for row in table.rows:
        baseline = (_plain(row[0]) if row else "").startswith(BASELINE_LABELS)
        kind = ["baseline"] if baseline else (["after-baseline"] if after and rows else [])
        after = baseline
        rows.append({"attrs": _attrs(kind), "cells": [cell_view(c, j in prose, j == 0, j in nowrap)
                                                              for j, c in enumerate(row)]})
    return {"benchmark": table.benchmark, "title": table.title, "headers": list(table.headers), "rows": rows,
            "notes": ([table.note] if table.note else []) + list(table.remarks),
            "flag_notes": [(f, f"{FLAG_MARK} {FLAGS[f]}") for f in table_flags(table)]}


def to_html(table: Table) -> str:
    """The table in a box of its own that scrolls sideways when wider than the page (the page never does),
    its model column kept in view; flagged cells carry the class ``flag flag-<kind>`` and say why on hover,
    and the flags' sentences follow the table."""
    return str(environment().get_template("macros.html").module.results_table(table_view(table)))


# --- index.html ---------------------------------------------------------------------------

#: a part of a sentence: (text, shown as code)
Part = tuple[str, bool]


def sample_note(result: dict) -> tuple[Part, ...]:
    """What part of the data a result ran on, in the words of its own record: a stand-in dataset
    (``dataset.sample``: what it is and how to get the real data) and how its items were drawn (``dataset.draw``,
    written by the benchmark that drew them: ``--limit`` is another draw in each); a result from before lexprobe
    recorded the draw is said to have run with its sampling options as given, never read as any one draw.
    Empty for a result on the whole of its data."""
    clauses: list[list[Part]] = []
    data = result.get("dataset") or {}
    if data.get("sample"):
        clauses.append([(f"ran on {data.get('what') or data.get('name') or 'a sample'}", False)])
        if data.get("get"):
            clauses[-1] += [(" (for the real data: ", False), (str(data["get"]), True), (")", False)]
    if data.get("draw"):
        clauses.append([(f"{'' if clauses else 'ran on '}{data['draw']}", False)])
    elif not data.get("sample"):
        config = result.get("config") or {}
        given = [f"--{k.replace('_', '-')} {config[k]}" for k in ("limit", "max_instances") if config.get(k)]
        if given:
            clauses.append([("ran with ", False), (" ".join(given), True),
                            (" (part of the data, drawn as the benchmark's option says)", False)])
    out: list[Part] = []
    for i, clause in enumerate(clauses):
        out += ([("; ", False)] if i else []) + clause
    return tuple(out)


def sample_banners(results: list[dict]) -> list[dict]:
    """One banner per kind of sample, naming every result file (and model) that ran on it."""
    groups: dict[tuple[Part, ...], list[str]] = {}
    for r in results:
        note = sample_note(r)
        if note:
            model = str((r.get("model") or {}).get("name", "?"))
            groups.setdefault(note, []).append(f"{Path(r.get('_path', '?')).name} ({model})")
    return [{"names": ", ".join(names), "note": note, "its": "Its" if len(names) == 1 else "Their"}
            for note, names in groups.items()]


def run_view(result: dict, record: Table, column: int) -> dict:
    """A result's run record as one line (file, model, method, items, when) that opens to every field and the
    config (``record``: the run-record table, one column per result)."""
    name = Path(result.get("_path", "?")).name
    run = result.get("run") or {}
    data = result.get("dataset") or {}
    line = [result["benchmark"], str(run.get("model") or (result.get("model") or {}).get("name", "?")),
            f"{result.get('method')} / {result.get('recipe')}"]
    if run.get("n_items") is not None:
        line.append(f"{run['n_items']} items")
    if data.get("name"):
        line.append(f"data {data['name']}")
    if run.get("created"):
        line.append(str(run["created"]))
    extra = {"config": result.get("config"), "intervals": result.get("intervals"), "dataset": result.get("dataset")}
    return {"name": name, "line": ", ".join(line),
            "fields": [(str(row[0]), str(row[column])) for row in record.rows if row[column] not in ("", None)],
            "extra": json.dumps(extra, indent=1, ensure_ascii=False, default=str)}


@dataclass
class FigureLink:
    """A figure as index.html shows it: inline (a data URI, so the page stands alone) inside a link to the
    PNG file at full size (``href``, relative to the report folder)."""

    title: str
    src: str
    href: str
    kind: str = ""


def figure_view(figure, out_dir: Path) -> FigureLink:
    data = base64.b64encode(Path(figure.path).read_bytes()).decode("ascii")
    try:
        rel = Path(figure.path).resolve().relative_to(Path(out_dir).resolve())
    except ValueError:
        rel = Path("figures") / Path(figure.path).name
    return FigureLink(figure.title, f"data:image/png;base64,{data}", "/".join(quote(p) for p in rel.parts),
                      getattr(figure, "kind", ""))


def index_page(tables: list[Table], figures, record: Table, results: list[dict], pages: dict[str, str],
               generated: str, version: str, out_dir: Path | None = None) -> str:
    titles = bench_titles()
    sections = []
    # the sections: the benchmarks, then docs/llm.md's table of models by method
    for bench, title in {**titles, "llm": "Models by method"}.items():
        bench_tables = [t for t in tables if t.benchmark == bench]
        bench_figures = [figure_view(f, out_dir or Path(f.path).parent.parent)
                         for f in figures if f.benchmark == bench]
        if not bench_tables and not bench_figures:
            continue
        # a forest plot stands in for the section's tables, which open on a click (a table wider than a phone
        # scrolls in its box: the figure shows every row at once)
        forest = [f for f in bench_figures if f.kind == "forest"]
        sections.append({"id": bench, "title": title,
                         "banners": sample_banners([r for r in results if r["benchmark"] == bench]),
                         "tables": [table_view(t) for t in bench_tables], "tables_folded": bool(forest),
                         "forest": forest, "figures": [f for f in bench_figures if f.kind != "forest"]})
    return render("index.html", title="lexprobe report", n_results=len(results), generated=generated,
                  version=version, units=UNITS, flag_mark=FLAG_MARK, record_note=RECORD_NOTE, sections=sections,
                  pages=[{"href": quote(f), "title": titles[b]} for b, f in pages.items()],
                  runs=[run_view(r, record, i + 1) for i, r in enumerate(results)])


# --- items pages --------------------------------------------------------------------------

def json_block(obj) -> Markup:
    """``obj`` as JSON that cannot end its script element: no "<" at all inside it ("</script>", "<!--"; JSON
    reads "\\u003c" back as "<"), nor "&" or ">" (kept as text either way). The only text the templates take
    unescaped: HTML entities are not decoded inside a script element, so escaping it would change the data."""
    text = json.dumps(obj, ensure_ascii=False)
    for ch, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                     ("\u2029", "\\u2029")):
        text = text.replace(ch, code)
    return Markup(text)


def failure_page(bench: str, rows: list[dict]) -> str:
    """The items page of ``bench``: ``rows`` (each with ``model``, ``task``, ``pos`` and ``ok`` for the page's
    filters) under the benchmark's own columns (``Presentation.failure_columns``)."""
    columns = list(get(bench).presentation.failure_columns)
    task_label = dict(columns).get("task", "Task")
    return render("items.html", title=f"{bench_titles()[bench]} failures", bench_title=bench_titles()[bench],
                  what=get(bench).presentation.failure_note, task_label=task_label, page_rows=PAGE_ROWS,
                  data=json_block({"columns": columns, "rows": rows}))
