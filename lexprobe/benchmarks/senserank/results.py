"""Sense-ranking results in schema 2: per-query values and their aggregation, tables, plots, items-page rows.

One task per corpus (``semcor``, ...); slices are ``all`` and the paper's (ℓ x r) buckets;
metrics ``pooled`` (the paper's MAP@50: mean pooled P@k, k = 1..50) and ``map``
(per-query AP@50); baselines ``random`` (exact expectation) and ``oracle``; the P@k
curves under ``breakdowns[corpus]["curves"][slice]``. A layer sweep holds one such block
per layer under ``sweep`` and the best layer's in ``metrics``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lexprobe.benchmarks.base import Unit
from lexprobe.metrics import retrieval as R
from lexprobe.reporting import format_table
from lexprobe.result_schema import from_v1, model_name

METRICS = ("pooled", "map")


def _slices(overall: dict, buckets: dict) -> tuple[dict, dict, dict]:
    """(metrics, baselines, curves) of schema-1 summaries (``retrieval.summarize``) per slice."""
    metrics: dict = {}
    baselines: dict = {"random": {}, "oracle": {}}
    curves: dict = {}
    for name, s in list(buckets.items()) + [("all", overall)]:
        ci = s.get("ci") or {}
        n = s.get("queries", 0)
        metrics[name] = {m: s.get(m) for m in METRICS if m in s} | {"n": n, "ci": {m: ci[m] for m in METRICS if m in ci}}
        for base in ("random", "oracle"):
            baselines[base][name] = {m: s.get(f"{m}_{base}") for m in METRICS if f"{m}_{base}" in s} | {
                "n": n, "ci": {m: ci[f"{m}_{base}"] for m in METRICS if f"{m}_{base}" in ci}}
        if s.get("curves"):
            curves[name] = s["curves"]
    return metrics, baselines, curves


def upgrade(old: dict) -> dict:
    """A schema-1 sense-ranking result (or layer sweep) in schema 2."""
    corpus = str(old.get("task") or (old.get("config") or {}).get("corpus") or "corpus")
    recipe = (old.get("config") or {}).get("protocol") or "paper"  # schema 1 named the recipe "protocol"
    if isinstance(old.get("layers"), dict):
        values = {}
        for layer, r in old["layers"].items():
            m, b, _ = _slices(r["metrics"], r.get("breakdowns", {}).get("buckets", {}))
            values[str(layer)] = {"metrics": {corpus: m}, "baselines": {k: {corpus: v} for k, v in b.items()}}
        best = values[str(old["best_layer"])]
        sections = {"tasks": [corpus], "metrics": best["metrics"], "baselines": best["baselines"],
                    "counts": old.get("counts") or {},
                    "sweep": {"parameter": "layer", "values": values, "best": old["best_layer"]}}
    else:
        overall = dict(old.get("metrics") or {})
        overall["curves"] = (old.get("breakdowns") or {}).get("overall_curves") or overall.get("curves")
        m, b, curves = _slices(overall, (old.get("breakdowns") or {}).get("buckets", {}))
        sections = {"tasks": [corpus], "metrics": {corpus: m}, "baselines": {k: {corpus: v} for k, v in b.items()},
                    "breakdowns": {corpus: {"curves": curves}}, "counts": old.get("counts") or {},
                    "instances": old.get("instances") or []}
    model = old.get("model")
    if isinstance(model, str):
        embedder = (old.get("config") or {}).get("embedder")
        old = dict(old, model=dict(embedder) if isinstance(embedder, dict) else {"name": model})
        old["model"]["name"] = model
    return from_v1(old, "senserank", sections, "similarity", recipe)


def corpus(result: dict) -> str:
    if result.get("tasks"):
        return result["tasks"][0]
    return str((result.get("config") or {}).get("corpus") or "?")  # a result's sections being built


@dataclass
class Query(Unit):
    """A ranked query as ``evaluate`` aggregates it: ``values`` (its AP@k and its mean of hits(k)/k over
    k = 1..K) and its hits(k) (the model's, or a baseline's expectation), which a slice's pooled P@k curve
    sums; ``bucket``: its slice (None: in no bucket, e.g. r = 1), while ``pos`` stays its part of speech
    (``compare``'s slices). ``oracle``: the oracle's figures, whose AP@k is 1 by construction."""

    cumulative: np.ndarray = field(default_factory=lambda: np.zeros(0))
    bucket: str | None = None
    oracle: bool = False


def unit_values(result: dict, of: str = "model") -> list[Query]:
    """The queries of ``result`` with the model's figures, or (``of``) the exact ``random`` or ``oracle`` ones."""
    k = int((result.get("config") or {}).get("k", 50))
    ranks = np.arange(1, k + 1, dtype=np.float64)
    out = []
    for r in result["instances"]:
        relevant, candidates = r["n_relevant"], r["n_candidates"]
        ap: float | None
        if of == "model":
            hits = np.array([int(c) for c in r["hits"]], dtype=np.int64)
            cumulative, ap = R.cumulative_hits(hits, k), R.average_precision(hits, relevant, k)
        elif of == "random":
            cumulative = R.random_expected_hits(relevant, candidates, k)
            ap = R.random_expected_ap(relevant, candidates, k)
        else:
            cumulative, ap = R.oracle_hits(relevant, candidates, k), None
        out.append(Query(r["id"], corpus(result), r["pos"], {"pooled": float(np.mean(cumulative / ranks)), "map": ap},
                         cumulative, r.get("bucket"), oracle=of == "oracle"))
    return out


def slices(result: dict, units: list[Query]) -> dict[str, list[Query]]:
    """Table 1's (ℓ x r) buckets in table order (an empty one too), then ``all``."""
    from lexprobe.benchmarks.senserank.config import bucket_edges

    names = R.bucket_names(*bucket_edges(result["config"]["freq_edges"], result["config"]["rarity_edges"]))
    return {name: [u for u in units if u.bucket == name] for name in names} | {"all": list(units)}


def pk_curve(units: list[Query]) -> np.ndarray:
    """Pooled P@k, k = 1..K: hits(k) summed over the queries / (queries x k)."""
    total = np.zeros(len(units[0].cumulative))
    for u in units:
        total += u.cumulative
    return total / (len(units) * np.arange(1, len(total) + 1, dtype=np.float64))


def aggregate(means: dict, units: list[Query]) -> dict:
    """A slice's figures from the per-query means (``Benchmark.aggregate``'s ``means``): ``pooled`` is the
    paper's MAP@50, the mean of the pooled P@k curve (not a mean of per-query values); the oracle's AP is 1."""
    if not units:
        return means  # {"n": 0, "ci": {}}: no figure
    return {"pooled": float(pk_curve(units).mean()), "map": 1.0 if units[0].oracle else means["map"],
            "n": means["n"], "ci": means["ci"]}


def breakdowns(result: dict) -> dict:
    """The P@k curves (model, random, oracle) of every slice that has queries."""
    of = {name: unit_values(result, name) for name in ("model", "random", "oracle")}
    cut = {name: slices(result, units) for name, units in of.items()}
    curves = {s: {name: [float(x) for x in pk_curve(cut[name][s])] for name in of}
              for s, members in cut["model"].items() if members}
    return {corpus(result): {"curves": curves}}


FAILURE_COLUMNS = [("model", "Model"), ("task", "Corpus"), ("pos", "POS"), ("item", "Query (target in [brackets])"),
                   ("gold", "Query sense"), ("chosen", "Senses of the nearest neighbours (✓ same sense)"),
                   ("score", "AP@50 (random)")]


def failure_rows(result: dict) -> list[dict]:
    """One row per query; a failure (``ok`` false) ranks its same-sense instances no better than chance: AP@50
    below R/N, the share of the lemma's database instances with the query's sense (``SenseRank.failure_note``)."""
    rows = []
    for q in result["instances"]:
        hits, top = q.get("hits", ""), q.get("top", [])
        chosen = ", ".join(f"{'✓' if h == '1' else '✗'} {label}" for h, label in zip(hits, top))
        ap, chance = q.get("ap", 0.0), _chance(q)
        item = f"{q.get('lemma', '')}: {q['context']} ({q['id']})" if q.get("context") else f"{q.get('lemma', '')} ({q['id']})"
        rows.append({"task": corpus(result), "item": item, "gold": q.get("label", ""),
                     "chosen": chosen, "ok": ap >= chance if chance is not None else hits[:1] == "1",
                     "score": f"{ap:.2f}" + (f" ({chance:.2f})" if chance is not None else ""),
                     "model": model_name(result), "pos": q.get("pos", "")})
    return rows


def _chance(query: dict) -> float | None:
    """R/N of a query (same-sense instances among the lemma's candidates): a random order's mean precision."""
    r, n = query.get("n_relevant"), query.get("n_candidates")
    return r / n if r is not None and n else None


def _columns(result: dict) -> list[str]:
    slices = list(result["metrics"][corpus(result)])
    return [s for s in slices if s != "all"] + ["all"]


def format_report(result: dict) -> str:
    """Table 1 style: baseline, oracle and model per bucket (x100), with query counts."""
    task = corpus(result)
    cols = _columns(result)

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
    title = (f"CWE similarity ranking on {task}: mean over k=1..{result['config'].get('k', 50)} of pooled P@k "
             f"(the paper's MAP@50), x100; l = {'the query sense' if by == 'sense' else 'the lemma'}'s frequency in D")
    notes = (
        f"D={c['database']} instances ({c['lemmas_in_database']} lemmas), Q={c['queries']} -> "
        f"{c['ranked_queries']} ranked; dropped {c['dropped_rare_sense']} queries whose sense has "
        f"<{result['config']['min_sense_count']} instances in D, {c['dropped_unaligned']} unaligned queries, "
        f"{c['database_unaligned']} unaligned D targets; {c['single_sense_queries']} ranked queries have r=1 "
        f"(in no r bucket, as in the original code)."
    )
    return format_table(["model"] + cols, rows, title=title) + "\n" + notes


def save_curves_plot(result: dict, path) -> None:
    """P@k curves (model, random, oracle) per bucket, one panel each, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    task = corpus(result)
    curves = result["breakdowns"][task]["curves"]
    panels = [(c, result["metrics"][task][c]["n"]) for c in _columns(result)
              if result["metrics"][task][c]["n"] and c in curves]
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    # constrained layout; the legend and the panels' key below them, not on a plot (issue #29)
    fig, axes = plt.subplots(rows, cols, figsize=(max(4.2 * cols, 6.4), 3.2 * rows + 1.6), squeeze=False,
                             layout="constrained")
    lines = []
    for ax, (name, n) in zip(axes.flat, panels):
        c = curves[name]
        ks = range(1, len(c["model"]) + 1)
        lines = [ax.plot(ks, c["oracle"], "k--")[0], ax.plot(ks, c["model"], "C0-")[0],
                 ax.plot(ks, c["random"], "C3:")[0]]
        ax.set_title(f"{re.sub(r'(?<![a-z])l(?![a-z])', 'ℓ', name)} (n={n})", fontsize=9)
        ax.set_xlabel("k", fontsize=8)
        ax.set_ylabel("precision at k", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    width = max(4.2 * cols, 6.4)
    fig.legend(lines, ["oracle (relevant first)", _wrap(model_name(result), _chars(width / 2, 8)),
                       "random (exact expectation)"], loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    fig.suptitle(_wrap(f"senserank {task}: {model_name(result)} — precision of the k nearest same-lemma instances "
                       "having the query's sense", _chars(width, 9)) + "\n" + _wrap(
        "panels: ℓ = number of same-lemma instances in the database (lemma frequency); r = share of them with the "
        "query's sense (sense proportion); n = queries in the panel", _chars(width, 9)), fontsize=9)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    from lexprobe.reporting import save_figure

    save_figure(fig, path, dpi=110)


def _chars(inches: float, fontsize: float) -> int:
    """About how many characters of ``fontsize`` points fit on ``inches`` (a wrapping width, with a margin)."""
    return max(16, int(inches * 72 / (0.6 * fontsize)) - 6)


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False)) or text


def sweep_rows(result: dict):
    """(layer, metrics of all, random of all, oracle of all) per swept layer."""
    task = corpus(result)
    for layer, v in result["sweep"]["values"].items():
        yield (layer, v["metrics"][task]["all"], v["baselines"]["random"][task]["all"],
               v["baselines"]["oracle"][task]["all"])


def format_sweep(result: dict) -> str:
    pct = (lambda v: "-" if v is None else f"{100 * v:.2f}")  # noqa: E731
    rows = [[layer, pct(m.get("pooled")), pct(m.get("map")), pct(rnd.get("pooled")), pct(orc.get("pooled")),
             m.get("n", 0)] for layer, m, rnd, orc in sweep_rows(result)]
    title = (f"CWE similarity ranking on {corpus(result)} by layer ({model_name(result)}): the paper's MAP@50 "
             f"x100; best layer {result['sweep']['best']} (hidden_states index, 0 = embeddings)")
    return format_table(["layer", "MAP@50 (paper)", "per-query MAP@50", "random", "oracle", "queries"], rows,
                        title=title)


def plot_sweep(result: dict, path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lexprobe.reporting import save_figure

    rows = list(sweep_rows(result))
    layers = [int(r[0]) for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.4), layout="constrained")
    ax.plot(layers, [100 * (r[1].get("pooled") or 0.0) for r in rows], "o-", color="C0",
            label=_wrap(f"{model_name(result)} (paper's MAP@50)", 40))
    ax.plot(layers, [100 * (r[1].get("map") or 0.0) for r in rows], "s--", color="C2", label="per-query MAP@50")
    ax.plot(layers, [100 * (r[3].get("pooled") or 0.0) for r in rows], "k:", label="oracle")
    ax.plot(layers, [100 * (r[2].get("pooled") or 0.0) for r in rows], ":", color="C3", label="random")
    ax.axvline(result["sweep"]["best"], color="0.7", lw=1)
    ax.set_xlabel("layer (hidden_states index; 0 = embeddings)")
    ax.set_ylabel("MAP@50 x100")
    ax.set_title(f"senserank {corpus(result)}: metric by layer (grey line: best layer)", fontsize=10)
    ax.grid(alpha=0.3)
    fig.legend(loc="outside lower center", ncols=2, fontsize=7, frameon=False)  # below the plot, not on it
    return save_figure(fig, path)
