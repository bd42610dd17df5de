"""The report's tables: every benchmark's own (``Benchmark.tables``), the run records, and the
cross-benchmark summary of docs/llm.md (one row per model and method/reading).

Tables are ``lexprobe.tables.Table``s; ``to_markdown``/``to_latex``/``to_html`` render them.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.benchmarks.registry import all_benchmarks
from lexprobe.protocols.readings import choose_options, label, setting
from lexprobe.result_schema import is_sweep, model_name
from lexprobe.tables import Cell, Table, cell, to_html, to_latex, to_markdown  # noqa: F401  (renderers)


def build_tables(results: list[dict]) -> list[Table]:
    """Each registered benchmark's tables of its results, then docs/llm.md's summary."""
    tables: list[Table] = []
    for bench in all_benchmarks():
        members = [r for r in results if r["benchmark"] == bench.meta.name]
        if members:
            tables += bench.tables(members)
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


def run_record_table(results: list[dict]) -> Table:
    """One column per result file, one row per run-record field."""
    from pathlib import Path

    table = Table("run", "Run records", ["field"] + [Path(r["_path"]).name for r in results],
                  note="what produced each result file; empty where the file has no run record.")
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
    return table


SUMMARY_HEADERS = ["Model", "Method / recipe", "Template / chat", "W2D P@1 (%)", "D2W P@1 (%)", "CoDA21 acc. (%)",
                   "Parsed (gen.; W2D / D2W / CoDA21, %)", "Agreement over orders (W2D / D2W / CoDA21, %)",
                   "Sense ranking MAP@50 (layer)"]
_PER_BENCH = ("W2D", "D2W", "CoDA21")
_COL = {h: i for i, h in enumerate(SUMMARY_HEADERS)}


def summary_table(results: list[dict]) -> Table | None:
    """docs/llm.md's table: one row per model and protocol (reading), the benchmarks side by side.

    Only made when a choose result or a layer sweep is among the results (otherwise the
    per-benchmark tables say it all). A cell that two results would fill (e.g. two CoDA21
    data files) starts a second row for that model and protocol.
    """
    if not any(r.get("readings") or is_sweep(r) for r in results):
        return None
    rows: list[list] = []
    keys: list[tuple] = []

    def put(key: tuple, column: str, value, part: str | None = None) -> None:
        if part is not None:  # a "W2D / D2W / CoDA21" cell: one figure per benchmark, in the key's first row
            for k, row in zip(keys, rows):
                if k == key:
                    if row[_COL[column]] is None:
                        row[_COL[column]] = {}
                    row[_COL[column]][part] = value
                    return
            value = {part: value}
        for k, row in zip(keys, rows):
            if k == key and row[_COL[column]] is None:
                row[_COL[column]] = value
                return
        row = list(key) + [None] * (len(SUMMARY_HEADERS) - len(key))
        row[_COL[column]] = value
        rows.append(row)
        keys.append(key)

    for r in results:
        name, bench = model_name(r), r["benchmark"]
        rnd = r["baselines"].get("random", {})
        if r.get("readings"):
            template = setting(r).split(",")[0]
            tasks = ("w2d", "d2w") if bench == "wdlmpro" else ("alignment",)
            for reading in r["readings"]:
                key = (name, f"{r['method']}, {label(reading)}", template)
                for task in tasks:
                    m = (r["metrics"].get(task) or {}).get("all") or {}
                    column, metric, part = _COLUMN_OF[(bench, task)]
                    if f"{reading}.{metric}" in m:
                        put(key, column, cell(m, f"{reading}.{metric}"))
                        _extras(put, key, m, reading, part)
            rkey = ("Random", "options shown (choose)", "–")
            for task in tasks:
                column, metric, _ = _COLUMN_OF[(bench, task)]
                b = (rnd.get(task) or {}).get("all")
                if b:
                    put(rkey, column, cell(b, metric))
            continue
        key = (name, f"{r['recipe']} ({r['method']})", "–")
        rkey = ("Random", "all candidates", "–")
        if bench in ("wdlmpro", "coda21"):
            for task in r["tasks"]:
                column, metric, _ = _COLUMN_OF[(bench, task)]
                m = (r["metrics"].get(task) or {}).get("all")
                if m:
                    put(key, column, cell(m, metric))
                b = (rnd.get(task) or {}).get("all")
                if b:
                    put(rkey, column, cell(b, metric))
        elif bench == "senserank":
            task = r["tasks"][0]
            m, b = r["metrics"][task]["all"], (rnd.get(task) or {}).get("all")
            if is_sweep(r):
                tag = f"best layer {r['sweep']['best']}"
            else:
                layer = (r.get("config") or {}).get("layer")
                tag = f"layer {layer}" if layer is not None else "default layer"
            put(key, "Sense ranking MAP@50 (layer)", _Tagged(cell(m, "pooled", 100.0, 2), tag))
            put(rkey, "Sense ranking MAP@50 (layer)", cell(b, "pooled", 100.0, 2))
    order = {"Random": 1}
    merged = sorted(zip(keys, rows), key=lambda kr: order.get(kr[0][0], 0))  # random rows last
    table = Table("llm", "Models by method (the table template of docs/llm.md)", SUMMARY_HEADERS,
                  note=summary_note(results))
    table.rows = [[_per_bench(v) if isinstance(v, dict) else ("–" if v is None else v) for v in row]
                  for _, row in merged]
    return table


class _Tagged(Cell):
    """A figure with a word after it (the layer it was measured at)."""

    def __init__(self, cell: Cell, tag: str):
        super().__init__(cell.value, cell.ci, cell.scale, cell.digits)
        self.tag = tag

    def main(self) -> str:
        return f"{super().main()} ({self.tag})" if self.value is not None else super().main()


#: (benchmark, task) -> (summary column, metric, part of a "W2D / D2W / CoDA21" cell)
_COLUMN_OF = {("wdlmpro", "w2d"): ("W2D P@1 (%)", "p_at_1", "W2D"), ("wdlmpro", "d2w"): ("D2W P@1 (%)", "p_at_1", "D2W"),
              ("coda21", "alignment"): ("CoDA21 acc. (%)", "accuracy", "CoDA21")}


def _extras(put, key, m: dict, reading: str, part: str) -> None:
    if m.get(f"{reading}.valid") is not None:
        put(key, SUMMARY_HEADERS[6], m[f"{reading}.valid"], part)
    if m.get(f"{reading}.agreement") is not None:
        put(key, SUMMARY_HEADERS[7], m[f"{reading}.agreement"], part)


def _per_bench(values: dict) -> str:
    return " / ".join("–" if values.get(b) is None else f"{100 * values[b]:.1f}" for b in _PER_BENCH)


def summary_note(results: list[dict]) -> str:
    """What docs/llm.md asks to state with the table: options, orders, seed, data, dtype of each run."""
    parts = []
    for r in results:
        c = r.get("config") or {}
        run = r.get("run") or {}
        what = [f"method {r['method']}, recipe {r['recipe']}"]
        if r.get("readings"):
            o = choose_options(c)
            what.append(f"≤{o.get('max_candidates') or 'all'} options, {o.get('permutations', 1)} order(s)")
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
    return ("x100, 95% bootstrap intervals in brackets; WDLMPro figures over all POS, CoDA21 over both POS; "
            "likelihood and choose rows are on the same items only when run with the same data, --limit and "
            "--seed. Runs: " + "; ".join(parts) + ".")
