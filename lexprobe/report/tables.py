"""The report's tables: every benchmark's own (``contract.tables``), the run records, and the
cross-benchmark summary of docs/llm.md (one row per model and method/reading).

Tables are ``lexprobe.tables.Table``s; ``tables.to_markdown``/``to_latex`` and ``report.html.to_html`` render them.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.core.contract import summary_tag
from lexprobe.core.contract import tables as bench_tables
from lexprobe.core.registry import all_benchmarks, get
from lexprobe.core.result_schema import is_sweep, model_name
from lexprobe.prompting.readings import label, orders, setting
from lexprobe.report.results import per_reading
from lexprobe.tables import PARSE_THRESHOLD, Cell, Table, Text, cell, vs_random


def build_tables(results: list[dict]) -> list[Table]:
    """Each registered benchmark's tables of its results, then docs/llm.md's summary."""
    tables: list[Table] = []
    for bench in all_benchmarks():
        members = [r for r in results if r["benchmark"] == bench.meta.name]
        if members:
            tables += bench_tables(bench, members)
    summary = summary_table(results)
    return tables + ([summary] if summary else [])


RECORD_FIELDS = (
    ("benchmark", "benchmark"), ("model", "model"), ("model_revision", "model revision"),
    ("items_digest", "items digest"), ("n_items", "items"), ("method", "method"), ("recipe", "recipe"),
    ("seed", "seed"),
    ("device", "device"), ("dtype", "dtype"), ("batch_size", "batch size"), ("lexprobe", "lexprobe"),
    ("git_commit", "git commit"), ("torch", "torch"), ("transformers", "transformers"), ("python", "Python"),
    ("created", "created"), ("command", "command"),
)


RECORD_NOTE = ("Truncated, skipped, dropped: the result's non-zero counts of inputs cut to fit the model, units "
               "skipped and items dropped.")


def run_record_table(results: list[dict]) -> Table:
    """One column per result file, one row per run-record field."""
    table = Table("run", "Run records", ["field"] + [Path(r["_path"]).name for r in results],
                  note="what produced each result file; empty where the file has no run record. " + RECORD_NOTE)
    for key, title in RECORD_FIELDS:
        row = [title]
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
    table.rows.append(["truncated, skipped, dropped"] + [_losses(r) for r in results])
    return table


def _losses(result: dict) -> str:
    """The result's non-zero truncations, skips and drops (as ``eval`` prints them); "none" where it
    counted and found none, empty where it counts nothing."""
    from lexprobe.core.evaluate import counts_line

    line = counts_line(result)
    return line[len("counts: "):] if line else ("none" if result.get("counts") else "")


def _columns() -> tuple[list, list[str], list]:
    """(figure columns of benchmarks asked with readings, their parts, the other benchmarks' columns)."""
    benches = all_benchmarks()
    with_readings = [c for b in benches if len(b.methods) > 1 for c in b.meta.summary]
    others = [c for b in benches if len(b.methods) <= 1 for c in b.meta.summary]
    return with_readings, [c.part for c in with_readings], others


def summary_headers() -> tuple[list[str], str, str]:
    """(the headers, the "parsed" header, the "agreement" header)."""
    with_readings, parts, others = _columns()
    names = " / ".join(parts)
    parsed, agreement = f"Parsed (gen.; {names}, %)", f"Agreement over orders ({names}, %)"
    return (["Model", "Method / recipe", "Template / chat"] + [c.header for c in with_readings] + [parsed, agreement]
            + [c.header for c in others]), parsed, agreement


def summary_table(results: list[dict]) -> Table | None:
    """docs/llm.md's table: one row per model and method (reading), the benchmarks side by side
    (each benchmark's columns from its ``BenchmarkMeta.summary``).

    Only made when a choose result or a layer sweep is among the results (otherwise the
    per-benchmark tables say it all). A cell that two results would fill (e.g. two CoDA21
    data files) starts a second row for that model and method. Each model's random rows follow its
    rows, one per baseline of its results (``random_rows``), so a random row is never pooled over the
    results of several models.
    """
    from lexprobe.report.random_rows import baseline, random_rows

    if not any(per_reading(r) or is_sweep(r) for r in results):
        return None
    headers, parsed, agreement = summary_headers()
    col = {h: i for i, h in enumerate(headers)}
    rows: list[list] = []
    keys: list[tuple] = []
    baselines = []

    def put(key: tuple, column: str, value, part: str | None = None) -> None:
        if part is not None:  # a "W2D / D2W / CoDA21" cell: one figure per benchmark, in the key's first row
            for k, row in zip(keys, rows):
                if k == key:
                    if row[col[column]] is None:
                        row[col[column]] = {}
                    row[col[column]][part] = value
                    return
            value = {part: value}
        for k, row in zip(keys, rows):
            if k == key and row[col[column]] is None:
                row[col[column]] = value
                return
        row = list(key) + [None] * (len(headers) - len(key))
        row[col[column]] = value
        rows.append(row)
        keys.append(key)

    for r in results:
        bench = get(r["benchmark"])
        name = model_name(r)
        own = baseline(r, bench.meta.summary)
        chance = own.cells if own is not None else {}  # each figure against the random baseline of its own items

        def slices(c, r=r):
            return ((r["metrics"].get(c.task or r["tasks"][0]) or {}).get("all")) or {}

        if per_reading(r):
            template = setting(r).split(",")[0]
            for reading in r["readings"]:
                key = (name, f"{r['method']}, {label(reading)}", template)
                for c in bench.meta.summary:
                    m = slices(c)
                    if f"{reading}.{c.metric}" in m:
                        put(key, c.header, vs_random(cell(m, f"{reading}.{c.metric}", c.scale, c.digits),
                                                     chance.get(c.header)))
                        if m.get(f"{reading}.valid") is not None:
                            put(key, parsed, m[f"{reading}.valid"], c.part)
                        if m.get(f"{reading}.agreement") is not None:
                            put(key, agreement, m[f"{reading}.agreement"], c.part)
        else:
            key = (name, f"{r['recipe']} ({r['method']})", "–")
            tag = summary_tag(bench, r)
            for c in bench.meta.summary:
                m = slices(c)
                if m:
                    figure = vs_random(cell(m, c.metric, c.scale, c.digits), chance.get(c.header))
                    put(key, c.header, _Tagged(figure, tag) if tag else figure)
        if own is not None:
            baselines.append((name, own))
    ordered: list[list] = []
    for model in dict.fromkeys([k[0] for k in keys] + [n for n, _ in baselines]):  # first seen first
        ordered += [row for k, row in zip(keys, rows) if k[0] == model]
        for what, cells in random_rows([b for n, b in baselines if n == model]):
            ordered.append([Text(["Random"], tip=f"a random pick on the items of {model}'s results")] + [what, "–"]
                           + [cells.get(h) for h in headers[3:]])
    table = Table("llm", "Models by method (the table template of docs/llm.md)", headers, note=summary_note(results))
    parts = _columns()[1]
    table.rows = [[_per_bench(v, parts, h) if isinstance(v, dict) else ("–" if v is None else v)
                   for h, v in zip(headers, row)] for row in ordered]
    return table


class _Tagged(Cell):
    """A figure with a word after it (the layer it was measured at)."""

    def __init__(self, cell: Cell, tag: str):
        super().__init__(cell.value, cell.ci, cell.scale, cell.digits, cell.flags)
        self.tag = tag

    def main(self) -> str:
        return f"{super().main()} ({self.tag})" if self.value is not None else super().main()


def _per_bench(values: dict, parts: list[str], header: str = "") -> Text:
    """One figure per benchmark ("W2D / D2W / CoDA21"); a parse rate under the threshold flags the cell."""
    text = " / ".join("–" if values.get(b) is None else f"{100 * values[b]:.1f}" for b in parts)
    low = header.startswith("Parsed") and any(v is not None and 100 * v < PARSE_THRESHOLD for v in values.values())
    return Text([text], flags=("parse",) if low else ())


def summary_note(results: list[dict]) -> str:
    """What docs/llm.md asks to state with the table: options, orders, seed, data, dtype of each run."""
    parts = []
    for r in results:
        c = r.get("config") or {}
        run = r.get("run") or {}
        what = [f"method {r['method']}, recipe {r['recipe']}"]
        if per_reading(r):
            what.append(orders(c))
        seed = c.get("seed", run.get("seed"))
        if seed is not None:
            what.append(f"seed {seed}")
        if c.get("limit") is not None:
            what.append(f"limit {c['limit']}")
        if c.get("data"):
            what.append(f"data {Path(str(c['data'])).name}")
        dtype = run.get("dtype") or c.get("dtype")
        if dtype:
            what.append(f"dtype {dtype}")
        parts.append(f"{Path(r['_path']).name} ({model_name(r)}, {r['benchmark']}): {', '.join(what)}")
    return ("x100, 95% bootstrap intervals in brackets; every figure over all parts of speech; "
            "likelihood and choose rows are on the same items only when run with the same data, --limit and "
            "--seed. " + RANDOM_ROWS + " Runs: " + "; ".join(parts) + ".")


RANDOM_ROWS = ("Each model's Random rows follow its rows: random picks on its results' items (among all candidates, "
               "or among the options its choose runs showed).")
