"""Tables of today's-LLM results: ask-to-choose readings, layer sweeps, and the protocol summary.

``--protocol choose`` results hold two readings of one run (label likelihood and parsed
generation) per task and POS; they get their own tables with both readings side by side,
the random baseline of the options actually shown, the generation reading's validity and
failure counts. Layer sweeps (``senserank eval --layers``) get a table per run, one row
per layer. ``summary_table`` is the table template of docs/llm.md: one row per model and
protocol (reading) across the benchmarks.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from lexprobe.report.results import is_choose, is_sweep, model_name, task_name
from lexprobe.report.tables import POS_NAME, WDLMPRO_TASKS, Cell, Table, _cell

FAILURE_NAMES = {"unparseable": "unparseable", "out_of_range": "out of range", "not_one_to_one": "not one-to-one",
                 "incomplete": "incomplete"}


def setting(result: dict) -> str:
    """How a choose run asked: template, chat, options shown, option orders."""
    c = result.get("config") or {}
    template = (c.get("template") or {}).get("name", "?")
    return (f"{template}{' / chat' if c.get('chat') else ''}, ≤{c.get('max_candidates') or 'all'} options, "
            f"{c.get('permutations', 1)} order(s)")


def failures_text(gen: dict) -> str:
    counts = gen.get("failures") or {}
    parts = [f"{FAILURE_NAMES.get(k, k)} {v}" for k, v in counts.items() if v]
    return ", ".join(parts) if parts else ("none" if counts else "")


def _reading_cell(m: dict, reading: str, key: str) -> Cell:
    return _cell(m.get(reading), key)


def choose_tables(results: list[dict]) -> list[Table]:
    tables = []
    wdl = [r for r in results if r["benchmark"] == "wdlmpro"]
    for task, title in WDLMPRO_TASKS.items():
        members = [r for r in wdl if task in r["metrics"]]
        if not members:
            continue
        table = Table("wdlmpro", f"WDLMPro {title}, ask to choose (--protocol choose)",
                      ["Model", "Setting", "POS", "Label P@1 (%)", "Label RS", "Generated P@1 (%)", "Parsed (%)",
                       "Generation failures", "Random P@1 (%)", "Asked", "Skipped"],
                      note="both readings of one run: label likelihood (most probable option label) and greedy "
                           "generation parsed strictly (failures count as wrong); random = expected P@1 over the "
                           "options shown; x100, 95% bootstrap intervals over targets (each averaged over its "
                           "option orders) in brackets; Asked counts target × order.")
        for r in members:
            for pos, m in r["metrics"][task].items():
                gen = m.get("generation") or {}
                table.rows.append([model_name(r), setting(r), POS_NAME.get(pos, pos),
                                   _reading_cell(m, "likelihood", "p_at_1"), _reading_cell(m, "likelihood", "rank_score"),
                                   _reading_cell(m, "generation", "p_at_1"), _reading_cell(m, "generation", "valid"),
                                   failures_text(gen), _cell(m.get("random"), "p_at_1"), m.get("n"), m.get("skipped")])
        tables.append(table)
    by_task = defaultdict(list)
    for r in results:
        if r["benchmark"] == "coda21":
            by_task[task_name(r)].append(r)
    for task, members in by_task.items():
        table = Table("coda21", f"CoDA21 {task}, ask to choose (--protocol choose)",
                      ["Model", "Setting", "POS", "Label acc. (%)", "Generated acc. (%)", "Parsed (%)",
                       "Generation failures", "Random (%)", "Asked", "Skipped"],
                      note="alignment accuracy of both readings of one run: the k x k label-likelihood matrix "
                           "solved with the optimal alignment, and the generated matching parsed strictly (an "
                           "invalid answer scores 0 for the group); random exact over the pairs shown; x100, 95% "
                           "bootstrap intervals over groups in brackets; Asked counts group × order.")
        for r in members:
            for pos, m in r["metrics"].items():
                gen = m.get("generation") or {}
                rnd = Cell(m.get("random_baseline"), (m.get("ci") or {}).get("random_baseline"))
                table.rows.append([model_name(r), setting(r), POS_NAME.get(pos, pos),
                                   _reading_cell(m, "likelihood", "accuracy"),
                                   _reading_cell(m, "generation", "accuracy"), _reading_cell(m, "generation", "valid"),
                                   failures_text(gen), rnd, m.get("n"), m.get("skipped")])
        tables.append(table)
    return tables


def sweep_tables(results: list[dict]) -> list[Table]:
    tables = []
    for r in results:
        table = Table("senserank", f"Sense ranking {task_name(r)} by layer: {model_name(r)}",
                      ["Layer", "MAP@50 (paper, pooled)", "MAP@50 (per-query AP)", "Random", "Oracle", "Queries"],
                      note=f"x100; layers are hidden_states indices (0 = embeddings); best layer {r.get('best_layer')}; "
                           "95% bootstrap intervals over queries in brackets; random and oracle exact.")
        for layer, entry in r["layers"].items():
            m = entry.get("metrics") or {}
            name = f"{layer} (best)" if str(layer) == str(r.get("best_layer")) else str(layer)
            table.rows.append([name, _cell(m, "pooled", 100.0, 2), _cell(m, "map", 100.0, 2),
                               _cell(m, "pooled_random", 100.0, 2), _cell(m, "pooled_oracle", 100.0, 2),
                               m.get("queries")])
        tables.append(table)
    return tables


SUMMARY_HEADERS = ["Model", "Protocol", "Template / chat", "W2D P@1 (%)", "D2W P@1 (%)", "CoDA21 acc. (%)",
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
    if not any(is_choose(r) or is_sweep(r) for r in results):
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
        name, bench, cfg = model_name(r), r["benchmark"], r.get("config") or {}
        protocol = cfg.get("protocol") or "paper"
        if is_choose(r):
            template = (cfg.get("template") or {}).get("name", "?") + (" / chat" if cfg.get("chat") else "")
            for reading, label in (("likelihood", "choose, label likelihood"), ("generation", "choose, generation")):
                key = (name, label, template)
                if bench == "wdlmpro":
                    for task in ("w2d", "d2w"):
                        m = (r["metrics"].get(task) or {}).get("all") or {}
                        if reading in m:
                            put(key, f"{task.upper()} P@1 (%)", _cell(m[reading], "p_at_1"))
                            _extras(put, key, m[reading], reading, task.upper())
                    random = {t: ((r["metrics"].get(t) or {}).get("all") or {}).get("random") for t in ("w2d", "d2w")}
                else:
                    m = r["metrics"].get("both") or next(iter(r["metrics"].values()), {})
                    if reading in m:
                        put(key, "CoDA21 acc. (%)", _cell(m[reading], "accuracy"))
                        _extras(put, key, m[reading], reading, "CoDA21")
            rkey = ("Random", "options shown (choose)", "–")
            if bench == "wdlmpro":
                for task, rnd in random.items():
                    if rnd:
                        put(rkey, f"{task.upper()} P@1 (%)", _cell(rnd, "p_at_1"))
            else:
                m = r["metrics"].get("both") or {}
                put(rkey, "CoDA21 acc. (%)", Cell(m.get("random_baseline"), (m.get("ci") or {}).get("random_baseline")))
            continue
        key = (name, f"{protocol} (likelihood)" if bench != "senserank" else "embeddings", "–")
        rkey = ("Random", "all candidates", "–")
        if bench == "wdlmpro":
            for task in ("w2d", "d2w"):
                m = (r["metrics"].get(task) or {}).get("all")
                if m:
                    put(key, f"{task.upper()} P@1 (%)", _cell(m, "p_at_1"))
                b = ((r.get("random_baseline") or {}).get(task) or {}).get("all")
                if b:
                    put(rkey, f"{task.upper()} P@1 (%)", _cell(b, "p_at_1"))
        elif bench == "coda21":
            m = r["metrics"].get("both") or {}
            put(key, "CoDA21 acc. (%)", _cell(m, "accuracy"))
            put(rkey, "CoDA21 acc. (%)", Cell(m.get("random_baseline"), (m.get("ci") or {}).get("random_baseline")))
        elif is_sweep(r):
            best = str(r.get("best_layer"))
            m = (r["layers"].get(best) or {}).get("metrics") or {}
            put(key, "Sense ranking MAP@50 (layer)", _Tagged(_cell(m, "pooled", 100.0, 2), f"best layer {best}"))
            put(rkey, "Sense ranking MAP@50 (layer)", _cell(m, "pooled_random", 100.0, 2))
        else:
            m = r["metrics"]
            layer = cfg.get("layer")
            put(key, "Sense ranking MAP@50 (layer)",
                _Tagged(_cell(m, "pooled", 100.0, 2), f"layer {layer}" if layer is not None else "default layer"))
            put(rkey, "Sense ranking MAP@50 (layer)", _cell(m, "pooled_random", 100.0, 2))
    order = {"Random": 1}
    merged = sorted(zip(keys, rows), key=lambda kr: order.get(kr[0][0], 0))  # random rows last
    table = Table("llm", "Models by protocol (the table template of docs/llm.md)", SUMMARY_HEADERS,
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


def _extras(put, key, m: dict, reading: str, part: str) -> None:
    if reading == "generation" and m.get("valid") is not None:
        put(key, SUMMARY_HEADERS[6], m["valid"], part)
    if m.get("agreement") is not None:
        put(key, SUMMARY_HEADERS[7], m["agreement"], part)


def _per_bench(values: dict) -> str:
    return " / ".join("–" if values.get(b) is None else f"{100 * values[b]:.1f}" for b in _PER_BENCH)


def summary_note(results: list[dict]) -> str:
    """What docs/llm.md asks to state with the table: options, orders, seed, data, dtype of each run."""
    parts = []
    for r in results:
        c = r.get("config") or {}
        run = r.get("run") or {}
        what = [f"protocol {c.get('protocol') or 'paper'}"]
        if is_choose(r):
            what.append(f"≤{c.get('max_candidates') or 'all'} options, {c.get('permutations', 1)} order(s)")
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
