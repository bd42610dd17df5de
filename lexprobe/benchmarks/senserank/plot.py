"""Sense ranking's figures: the P@k curves of a run's buckets, and MAP@50 by layer of a sweep."""

from __future__ import annotations

import re
from pathlib import Path

from lexprobe.benchmarks.senserank.results import bucket_columns, corpus, sweep_rows
from lexprobe.core.result_schema import model_name
from lexprobe.reporting import figure_chars, figure_wrap, save_figure


def save_curves_plot(result: dict, path) -> None:
    """P@k curves (model, random, oracle) per bucket, one panel each, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    task = corpus(result)
    curves = result["breakdowns"][task]["curves"]
    panels = [(c, result["metrics"][task][c]["n"]) for c in bucket_columns(result)
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
    fig.legend(lines, ["oracle (relevant first)", figure_wrap(model_name(result), figure_chars(width / 2, 8)),
                       "random (exact expectation)"], loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    fig.suptitle(figure_wrap(f"senserank {task}: {model_name(result)} — precision of the k nearest same-lemma instances "
                       "having the query's sense", figure_chars(width, 9)) + "\n" + figure_wrap(
        "panels: ℓ = number of same-lemma instances in the database (lemma frequency); r = share of them with the "
        "query's sense (sense proportion); n = queries in the panel", figure_chars(width, 9)), fontsize=9)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, path, dpi=110)


def plot_sweep(result: dict, path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(sweep_rows(result))
    layers = [int(r[0]) for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.4), layout="constrained")
    ax.plot(layers, [100 * (r[1].get("pooled") or 0.0) for r in rows], "o-", color="C0",
            label=figure_wrap(f"{model_name(result)} (paper's MAP@50)", 40))
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
