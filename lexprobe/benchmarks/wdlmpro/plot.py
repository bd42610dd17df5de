"""Breakdown plots for a WDLMPro result: P@1 per band, with the random expectation beside it."""

from __future__ import annotations

from pathlib import Path

from lexprobe.benchmarks.wdlmpro.results import band_order
from lexprobe.core.result_schema import model_name
from lexprobe.reporting import figure_chars, figure_wrap, save_figure

POS_NAME = {"n": "nouns", "v": "verbs"}
PANELS = ("frequency", "depth", "word_tokens")


def has_breakdowns(result: dict) -> bool:
    """A result with a breakdown to draw."""
    return any(result["breakdowns"].get(t) for t in result["tasks"])


def figures(result: dict, folder: Path, stem: str) -> list[tuple[str, Path]]:
    """The report's figures of a result (``Presentation.figures``): its breakdowns, where it has any."""
    if not has_breakdowns(result):
        return []
    return [(f"WDLMPro breakdowns: {model_name(result)}", plot_breakdowns(result, folder / f"{stem}.png"))]


def plot_breakdowns(result: dict, out: str | Path) -> Path:
    """One panel per task and breakdown (rows: tasks; columns: frequency, depth, word tokens): P@1 per band and
    POS as bars with their 95% intervals (``interval``), the random expectation as a black tick on each, a
    triangle where a bar has no height; the targets per band under its name; every mark in the legend.

    Laid out so that no text touches another at any number of bands (issue #29): constrained layout, panels
    as wide as their bands need, long axis labels wrapped to the panel, the bands' counts in the tick labels
    (not above bars, where a 100% bar would put them on the title), the legend below the panels.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = result["tasks"]
    panels = [(t, name) for t in tasks for name in PANELS if result["breakdowns"].get(t, {}).get(name)]
    if not panels:
        raise ValueError("the result has no breakdowns to plot")
    columns = [name for name in PANELS if any(n == name for _, n in panels)]
    rows = [t for t in tasks if any(tt == t for tt, _ in panels)]
    bands_of = {(t, name): _bands(result["breakdowns"][t][name]) for t, name in panels}
    widths = [max(_panel_width(len(bands_of[(t, name)])) for t in rows if (t, name) in bands_of) for name in columns]
    fig, axes = plt.subplots(len(rows), len(columns), figsize=(sum(widths), 3.3 * len(rows) + 1.3), squeeze=False,
                             layout="constrained", gridspec_kw={"width_ratios": widths})
    for ax in axes.flat:
        ax.set_visible(False)
    handles: dict = {}
    for task, name in panels:
        col = columns.index(name)
        ax = axes[rows.index(task)][col]
        ax.set_visible(True)
        per_pos = result["breakdowns"][task][name]
        bands = bands_of[(task, name)]
        width = 0.8 / max(len(per_pos), 1)
        for j, (pos, stats) in enumerate(per_pos.items()):
            xs = [i + (j - (len(per_pos) - 1) / 2) * width for i in range(len(bands))]
            nan = float("nan")  # a band this POS does not have draws nothing
            p1 = [100 * stats[b]["p_at_1"] if b in stats else nan for b in bands]
            rnd = [100 * stats[b]["random_p_at_1"] if b in stats else nan for b in bands]
            color = f"C{j}"
            bars = ax.bar(xs, p1, width=width * 0.9, color=color, edgecolor=color, linewidth=1.2)
            handles.setdefault(POS_NAME.get(pos, pos), bars)
            tick = ax.scatter(xs, rnd, marker="_", s=300, color="black", zorder=3)
            drawn = [(x, 100 * stats[b]["p_at_1"], interval(stats[b])) for x, b in zip(xs, bands) if b in stats]
            if drawn:
                errors = ax.errorbar([x for x, _, _ in drawn], [y for _, y, _ in drawn],
                                     yerr=[[y - 100 * lo for _, y, (lo, _) in drawn],
                                           [100 * hi - y for _, y, (_, hi) in drawn]],
                                     fmt="none", ecolor="0.3", elinewidth=1, capsize=3, zorder=3.5)
                handles.setdefault(INTERVAL, errors)
            for x, b, bar in zip(xs, bands, bars):
                if b in stats and bar.get_height() == 0:  # a zero-height bar still shows whose it is
                    zero = ax.plot([x], [0], marker="^", markersize=7, color=color, clip_on=False, zorder=4)[0]
                    handles.setdefault(ZERO, zero)
        many = len(bands) > FLAT_BANDS
        counts = ["/".join(str(s[b]["n"]) if b in s else "–" for s in per_pos.values()) for b in bands]
        labels = [f"{b} (n={c})" if many else f"{b}\nn={c}" for b, c in zip(bands, counts)]
        ax.set_xticks(range(len(bands)), labels, fontsize=7, rotation=90 if many else 0)
        chars = figure_chars(widths[col], 9)
        ax.set_title(figure_wrap(f"{task.upper()} ({TASK_NAME.get(task, task)}) by {name.replace('_', ' ')}", chars),
                     fontsize=9)
        ax.set_xlabel(figure_wrap(axis_label(name, result), figure_chars(widths[col], 8)), fontsize=8)
        ax.set_ylabel("P@1 (%)", fontsize=8)
        ax.set_ylim(0, 100)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", alpha=0.3)
    handles["random ranking (expected P@1)"] = tick
    if ZERO in handles:  # the marker in grey: its colour is the POS's, as the bars'
        from matplotlib.lines import Line2D

        handles[ZERO] = Line2D([], [], marker="^", markersize=7, color="0.35", linestyle="none")
    order = [k for k in handles if k not in (INTERVAL, ZERO)] + [k for k in (INTERVAL, ZERO) if k in handles]
    poses = " / ".join(POS_NAME.get(p, p) for p in _poses(result, panels))
    fig.legend([handles[k] for k in order], order, loc="outside lower center",
               ncols=_legend_columns(order, sum(widths)), fontsize=8, frameon=False)
    fig.suptitle(figure_wrap(f"WDLMPro: {result['model']['name']}. P@1 = gold ranked first; black tick = P@1 of a "
                       f"random ranking; n = targets in the band ({poses})", figure_chars(sum(widths), 10)), fontsize=10)
    return save_figure(fig, out, dpi=120)


#: more bands than this in a panel: their labels turn upright (one line each) so they cannot run together
FLAT_BANDS = 7
INTERVAL = "95% interval (bootstrap; exact binomial where all targets agree)"
ZERO = "P@1 = 0 (a bar of no height)"


def interval(stats: dict) -> tuple[float, float]:
    """The 95% interval of a band's P@1 drawn as its whisker: the result's bootstrap ``ci``, or, where every
    target of the band scored alike (one target, or all right or all wrong: resampling them gives no width at
    all, yet a single target says next to nothing), the exact (Clopper-Pearson) binomial interval of its
    hits among its n targets, as P@1 per target is 0 or 1."""
    p, n = stats["p_at_1"], stats.get("n") or 0
    ci = (stats.get("ci") or {}).get("p_at_1")
    if ci and ci[0] < ci[1]:
        return float(ci[0]), float(ci[1])
    if n < 1:
        return p, p
    from scipy.stats import binomtest

    exact = binomtest(round(p * n), n).proportion_ci(confidence_level=0.95, method="exact")
    return float(exact.low), float(exact.high)


def _legend_columns(labels: list[str], inches: float, fontsize: float = 8) -> int:
    """The most legend columns whose entries fit side by side on the figure's width (``inches``)."""
    for ncols in range(len(labels), 1, -1):
        rows = -(-len(labels) // ncols)  # matplotlib fills the columns one after the other
        columns = [labels[i * rows:(i + 1) * rows] for i in range(ncols)]
        needed = sum(max(len(t) for t in c) * 0.6 * fontsize / 72 + 0.55 for c in columns if c)
        if needed <= inches * 0.95:
            return ncols
    return 1


def _bands(per_pos: dict) -> list[str]:
    return sorted({b for pos in per_pos.values() for b in pos}, key=band_order)


def _poses(result: dict, panels) -> list[str]:
    return list(dict.fromkeys(p for t, name in panels for p in result["breakdowns"][t][name]))


def _panel_width(bands: int) -> float:
    """Inches a panel needs: room for each band's two-line label, or its upright label when there are many."""
    return max(3.8, 1.0 + (0.32 if bands > FLAT_BANDS else 0.7) * bands)


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
