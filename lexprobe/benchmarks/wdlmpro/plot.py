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

    tasks = result["tasks"]
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
            color = f"C{j}"
            bars = ax.bar(xs, p1, width=width * 0.9, label=POS_NAME.get(pos, pos), color=color,
                          edgecolor=color, linewidth=1.2)
            ax.scatter(xs, rnd, marker="_", s=300, color="black", zorder=3,
                       label="random (expected)" if j == 0 else None)
            for x, b, bar, r in zip(xs, bands, bars, rnd):
                if b not in stats:
                    continue
                height = bar.get_height()
                if height == 0:  # a zero-height bar still shows whose it is: a marker in its colour
                    ax.plot([x], [0], marker="^", markersize=7, color=color, clip_on=False, zorder=4)
                ax.annotate(f"n={stats[b]['n']}", (x, max(height, r)), xytext=(0, 4),
                            textcoords="offset points", ha="center", va="bottom", fontsize=6.5, color=color)
        ax.set_xticks(range(len(bands)), bands)
        ax.set_title(f"{task.upper()} ({TASK_NAME.get(task, task)}) by {name.replace('_', ' ')}", fontsize=9)
        ax.set_xlabel(axis_label(name, result), fontsize=8)
        ax.set_ylabel("P@1 (%): gold ranked first")
        ax.set_ylim(0, 100)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"WDLMPro: {result['model']['name']}  (n = targets in the band; "
                 "black tick = P@1 of random ranking)", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, out, dpi=120)


TASK_NAME = {"w2d": "word → its definition", "d2w": "definition → its word"}


def axis_label(name: str, result: dict) -> str:
    """What the bands of a breakdown mean, written on the axis so the figure reads without the docs."""
    from lexprobe.benchmarks.wdlmpro import attributes as at

    if name == "frequency":
        if (result.get("config") or {}).get("counts"):
            return (f"target word frequency (--counts): rare < {at.COUNT_MEDIUM}, "
                    f"medium < {at.COUNT_FREQUENT}, frequent ≥ {at.COUNT_FREQUENT}")
        return (f"target word frequency (wordfreq Zipf): rare < {at.ZIPF_MEDIUM:g}, "
                f"medium < {at.ZIPF_FREQUENT:g}, frequent ≥ {at.ZIPF_FREQUENT:g}")
    if name == "depth":
        return "WordNet depth of the target (synsets on its shortest path from the root, root = 1)"
    if name == "word_tokens":
        return "tokens of the target word in the model's tokenizer"
    return name
