"""What the CLI prints after a sense-ranking run: the bucket table of one layer, or the table of a layer sweep."""

from __future__ import annotations

from lexprobe.benchmarks.senserank.results import bucket_columns, corpus, sweep_rows
from lexprobe.reporting import format_table, wrap_text
from lexprobe.result_schema import model_name


def format_report(result: dict) -> str:
    """Table 1 style: baseline, oracle and model per bucket (x100), with query counts."""
    task = corpus(result)
    cols = bucket_columns(result)

    def row(label, tree, metric):
        out = [label]
        for c in cols:
            s = tree.get(c) or {}
            out.append(f"{100 * s[metric]:.2f}" if s.get("n") and s.get(metric) is not None else "-")
        return out

    metrics, base = result["metrics"][task], result["baselines"]
    name = model_name(result)
    rows = [
        row("Baseline (random, exact)", base["random"][task], "pooled"),
        row("Oracle", base["oracle"][task], "pooled"),
        row(name, metrics, "pooled"),
        row(f"{name} MAP@50 (per-query AP)", metrics, "map"),
        row("random MAP@50 (exact)", base["random"][task], "map"),
        ["queries"] + [str((metrics.get(c) or {}).get("n", 0)) for c in cols],
    ]
    c = result["counts"]
    by = result["config"].get("bucket_by", "sense")
    title = (f"CWE similarity ranking on {task}, {name}: mean over k=1..{result['config'].get('k', 50)} of pooled P@k "
             f"(the paper's MAP@50), x100; l = {'the query sense' if by == 'sense' else 'the lemma'}'s frequency in D")
    notes = (
        f"D={c['database']} instances ({c['lemmas_in_database']} lemmas), Q={c['queries']} -> "
        f"{c['ranked_queries']} ranked; dropped {c['dropped_rare_sense']} queries whose sense has "
        f"<{result['config']['min_sense_count']} instances in D, {c['dropped_unaligned']} unaligned queries, "
        f"{c['database_unaligned']} unaligned D targets; {c['single_sense_queries']} ranked queries have r=1 "
        f"(in no r bucket, as in the original code)."
    )
    return format_table(["model"] + cols, rows, title=title) + "\n" + wrap_text(notes)



def format_sweep(result: dict) -> str:
    pct = (lambda v: "-" if v is None else f"{100 * v:.2f}")  # noqa: E731
    rows = [[layer, pct(m.get("pooled")), pct(m.get("map")), pct(rnd.get("pooled")), pct(orc.get("pooled")),
             m.get("n", 0)] for layer, m, rnd, orc in sweep_rows(result)]
    title = (f"CWE similarity ranking on {corpus(result)} by layer ({model_name(result)}): the paper's MAP@50 "
             f"x100; best layer {result['sweep']['best']} (hidden_states index, 0 = embeddings)")
    return format_table(["layer", "MAP@50 (paper)", "per-query MAP@50", "random", "oracle", "queries"], rows,
                        title=title)
