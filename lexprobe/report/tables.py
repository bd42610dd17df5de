"""Side-by-side tables of several results, each figure with its 95% interval.

A table is built once (``Table`` of ``Cell``s) and rendered three ways: Markdown,
LaTeX (booktabs) and HTML (each number also kept at full precision in
``data-value``/``data-lo``/``data-hi``, so tests and scripts can read it back).
"""

from __future__ import annotations

import html
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from lexprobe.report.results import model_name, task_name

POS_NAME = {"n": "Nouns", "v": "Verbs", "all": "All", "both": "All"}
WDLMPRO_TASKS = {"w2d": "W2D (word to definition)", "d2w": "D2W (definition to word)"}


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


# --- building -----------------------------------------------------------------------

def _label(result: dict, names: dict[str, int]) -> str:
    name = model_name(result)
    if names.get(name, 0) > 1:  # the same model twice: tell the rows apart by file
        from pathlib import Path

        name = f"{name} ({Path(result['_path']).name})"
    return name


def _digest(result: dict) -> str | None:
    return (result.get("run") or {}).get("items_digest")


def _baseline_label(kind: str, result: dict, digests: set) -> str:
    d = _digest(result)
    return f"{kind} [items {d[:8]}]" if len(digests) > 1 and d else kind


def build_tables(results: list[dict]) -> list[Table]:
    """The likelihood tables per benchmark, then the choose and layer-sweep tables, then docs/llm.md's summary."""
    from lexprobe.report.llm_tables import choose_tables, summary_table, sweep_tables
    from lexprobe.report.results import is_choose, is_sweep

    by_bench = defaultdict(list)
    for r in results:
        if not is_choose(r) and not is_sweep(r):
            by_bench[r["benchmark"]].append(r)
    tables = []
    tables += wdlmpro_tables(by_bench.get("wdlmpro", []))
    tables += coda21_tables(by_bench.get("coda21", []))
    tables += senserank_tables(by_bench.get("senserank", []))
    tables += choose_tables([r for r in results if is_choose(r)])
    tables += sweep_tables([r for r in results if is_sweep(r)])
    summary = summary_table(results)
    return tables + ([summary] if summary else [])


def _name_counts(results):
    counts: dict[str, int] = defaultdict(int)
    for r in results:
        counts[model_name(r)] += 1
    return counts


def wdlmpro_tables(results: list[dict]) -> list[Table]:
    tables = []
    names = _name_counts(results)
    tasks = [t for t in WDLMPRO_TASKS if any(t in r["metrics"] for r in results)]
    for task in tasks:
        members = [r for r in results if task in r["metrics"]]
        cols = [p for p in ("n", "v", "all") if any(p in r["metrics"][task] for r in members)]
        headers = ["Model"] + [f"{POS_NAME[p]} {m}" for p in cols for m in ("P@1 (%)", "RS")] + ["N"]
        table = Table("wdlmpro", f"WDLMPro {WDLMPRO_TASKS[task]}", headers,
                      note="95% bootstrap intervals over targets in brackets; RS = rank score (x100).")
        digests, seen = {_digest(r) for r in members}, set()
        for r in members:
            m = r["metrics"][task]
            table.rows.append([_label(r, names)] + [_cell(m.get(p), key) for p in cols for key in ("p_at_1", "rank_score")]
                              + [m.get("all", {}).get("n")])
        for r in members:
            b = (r.get("random_baseline") or {}).get(task)
            if _digest(r) in seen or not b:
                continue
            seen.add(_digest(r))
            table.rows.append([_baseline_label("Random (expected)", r, digests)]
                              + [_cell(b.get(p), key) for p in cols for key in ("p_at_1", "rank_score")]
                              + [b.get("all", {}).get("n")])
        tables.append(table)
    return tables


def _by_task(results: list[dict]) -> dict[str, list[dict]]:
    """Results grouped by task name, in first-seen order."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        groups[task_name(r)].append(r)
    return groups


def _cell(metrics: dict | None, key: str, scale: float = 100.0, digits: int = 1) -> Cell:
    if not metrics:
        return Cell(None)
    return Cell(metrics.get(key), (metrics.get("ci") or {}).get(key), scale, digits)


def coda21_tables(results: list[dict]) -> list[Table]:
    tables = []
    names = _name_counts(results)
    for task, members in _by_task(results).items():
        cols = [p for p in ("n", "v", "both") if any((r["metrics"].get(p) or {}).get("groups") for r in members)]
        headers = ["Model"] + [f"{POS_NAME[p]} {m}" for p in cols for m in ("acc. (%)", "simple (%)")] + ["groups"]
        table = Table("coda21", f"CoDA21 {task}", headers,
                      note="accuracy with the one-to-one alignment and with simple matching; "
                           "95% bootstrap intervals over groups in brackets.")
        for r in members:
            table.rows.append([_label(r, names)]
                              + [_cell(r["metrics"].get(p), key) for p in cols for key in ("accuracy", "simple_accuracy")]
                              + [(r["metrics"].get("both") or {}).get("groups")])
        digests, seen = {_digest(r) for r in members}, set()
        for r in members:
            if _digest(r) in seen:
                continue
            seen.add(_digest(r))
            row = [_baseline_label("Random (exact)", r, digests)]
            for p in cols:
                m = r["metrics"].get(p) or {}
                rnd = Cell(m.get("random_baseline"), (m.get("ci") or {}).get("random_baseline"))
                row += [rnd, rnd]
            table.rows.append(row + [(r["metrics"].get("both") or {}).get("groups")])
        tables.append(table)
    return tables


def senserank_tables(results: list[dict]) -> list[Table]:
    tables = []
    names = _name_counts(results)
    for task, members in _by_task(results).items():
        buckets = list(dict.fromkeys(b for r in members for b in r.get("breakdowns", {}).get("buckets", {})))
        cols = buckets + ["all"]

        def cells(r, key):
            parts = dict(r.get("breakdowns", {}).get("buckets", {}), all=r["metrics"])
            return [_cell(parts.get(c) if (parts.get(c) or {}).get("queries") else None, key, 100.0, 2) for c in cols]

        for metric, base, title in (("pooled", "pooled", "mean pooled P@k, k=1..50 (the paper's MAP@50)"),
                                    ("map", "map", "MAP@50 (per-query average precision)")):
            table = Table("senserank", f"Sense ranking {task}: {title}", ["Model"] + cols,
                          note="x100; 95% bootstrap intervals over queries in brackets; random and oracle exact.")
            digests, seen = {_digest(r) for r in members}, set()
            for r in members:
                if _digest(r) in seen:
                    continue
                seen.add(_digest(r))
                table.rows.append([_baseline_label("Random (exact)", r, digests)] + cells(r, f"{base}_random"))
                table.rows.append([_baseline_label("Oracle", r, digests)] + cells(r, f"{base}_oracle"))
            for r in members:
                table.rows.append([_label(r, names)] + cells(r, metric))
            table.rows.append(["queries"] + [
                str((dict(members[0].get("breakdowns", {}).get("buckets", {}), all=members[0]["metrics"]).get(c)
                     or {}).get("queries", 0)) for c in cols])
            tables.append(table)
    return tables


# --- rendering ----------------------------------------------------------------------

def _plain(v: Any) -> str:
    if isinstance(v, Cell):
        return v.text()
    return "" if v is None else str(v)


def to_markdown(table: Table) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    numeric = [any(isinstance(row[j], Cell) for row in table.rows) for j in range(len(table.headers))]
    lines = [f"### {table.title}", "", "| " + " | ".join(esc(h) for h in table.headers) + " |",
             "|" + "|".join("---:" if j and numeric[j] else "---" for j in range(len(table.headers))) + "|"]
    lines += ["| " + " | ".join(esc(_plain(c)) for c in row) + " |" for row in table.rows]
    if table.note:
        lines += ["", table.note]
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


RECORD_FIELDS = (
    ("benchmark", "benchmark"), ("model", "model"), ("model_revision", "model revision"),
    ("items_digest", "items digest"), ("n_items", "items"), ("protocol", "protocol"), ("seed", "seed"),
    ("device", "device"), ("dtype", "dtype"), ("batch_size", "batch size"), ("lexprobe", "lexprobe"),
    ("git_commit", "git commit"), ("torch", "torch"), ("transformers", "transformers"), ("python", "Python"),
    ("created", "created"), ("command", "command"),
)


def run_record_table(results: list[dict]) -> Table:
    """One column per result file, one row per run-record field."""
    from pathlib import Path

    table = Table("run", "Run records", ["field"] + [Path(r["_path"]).name for r in results],
                  note="what produced each result file; empty where the file has no run record.")
    for key, label in RECORD_FIELDS:
        row = [label]
        for r in results:
            run = r.get("run") or {}
            if key == "benchmark":
                value = r["benchmark"]
            elif key == "model":
                value = run.get("model") or model_name(r)
            elif key == "git_commit" and run.get("git_commit"):
                value = run["git_commit"][:12] + (" (local changes)" if run.get("git_dirty") else "")
            else:
                value = run.get(key)
            row.append("" if value is None else str(value))
        table.rows.append(row)
    return table
