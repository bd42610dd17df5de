"""Breakdown plots for a WDLMPro result: P@1 per band, with the random expectation beside it."""

from __future__ import annotations

from pathlib import Path

from lexprobe.benchmarks.wdlmpro.evaluate import band_order
from lexprobe.reporting import save_figure

POS_NAME = {"n": "nouns", "v": "verbs"}
PANELS = ("frequency", "depth", "word_tokens")


def plot_breakdowns(result: dict, out: str | Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = result["task"]
    panels = [(t, name) for t in tasks for name in PANELS if result["breakdowns"].get(t, {}).get(name)]
    if not panels:
        raise ValueError("the result has no breakdowns to plot")
    fig, axes = plt.subplots(len(tasks), len(PANELS), figsize=(4.2 * len(PANELS), 3.4 * len(tasks)), squeeze=False)
    for ax in axes.flat:
        ax.set_visible(False)
    for task, name in panels:
        ax = axes[tasks.index(task)][PANELS.index(name)]
        ax.set_visible(True)
        per_pos = result["breakdowns"][task][name]
        width = 0.8 / max(len(per_pos), 1)
        bands = sorted({b for pos in per_pos.values() for b in pos}, key=lambda b: band_order((b, None)))
        for j, (pos, stats) in enumerate(per_pos.items()):
            xs = [i + (j - (len(per_pos) - 1) / 2) * width for i in range(len(bands))]
            nan = float("nan")  # a band this POS does not have draws nothing
            p1 = [100 * stats[b]["p_at_1"] if b in stats else nan for b in bands]
            rnd = [100 * stats[b]["random_p_at_1"] if b in stats else nan for b in bands]
            bars = ax.bar(xs, p1, width=width * 0.9, label=POS_NAME.get(pos, pos))
            ax.scatter(xs, rnd, marker="_", s=300, color="black", zorder=3,
                       label="random (expected)" if j == 0 else None)
            for x, b, bar in zip(xs, bands, bars):
                if b in stats:
                    ax.annotate(str(stats[b]["n"]), (x, bar.get_height()), ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(bands)), bands)
        ax.set_title(f"{task.upper()} by {name.replace('_', ' ')}", fontsize=10)
        ax.set_ylabel("P@1 (%)")
        ax.set_ylim(0, 100)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"WDLMPro: {result['model']['name']} (bar labels: number of targets)", fontsize=11)
    fig.tight_layout()
    return save_figure(fig, out, dpi=120)
