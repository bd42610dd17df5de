"""All-words WSD's figure: the model among the published systems, F1 with intervals on all, MFS and LFS instances.

Why one figure of three panels: the headline F1 hides where a model fails; side by side, the share of the gap to
the trained systems that lies on instances whose gold is not WordNet's first sense (LFS) shows at a glance. Every
row is on the same instances (the run's), drawn from the result alone (``results.field_rows``).
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.reporting import figure_chars, figure_wrap, save_figure

#: the panels: (title, where a row's figures are: a slice of ``metrics`` or a group of ``first_sense``)
PANELS = (("all instances", "all"), ("MFS: gold is WordNet's first sense", "MFS"),
          ("LFS: gold is another sense", "LFS"))
COLOURS = {"model": "C3", "system": "C0", "baseline": "0.45"}


def _figures(row, where: str) -> dict | None:
    if where == "all":
        return row.metrics.get("all")
    return (row.breakdowns.get("first_sense") or {}).get(where)


def field_figure(result: dict, rows: list, path: Path, data: str) -> Path:
    """Each row's F1 (x100) with its 95% interval, the rows in the order of their F1 on all instances, one panel
    per ``PANELS`` entry (its number of instances in its title: every row is on the same ones); a row without
    figures in a panel (a baseline without breakdowns) is left out of it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ordered = sorted(rows, key=lambda r: (r.metrics.get("all") or {}).get("f1") or 0.0)
    width = 11.0
    fig, axes = plt.subplots(1, len(PANELS), figsize=(width, 0.32 * len(ordered) + 2.0), sharey=True,
                             layout="constrained")
    labels = [figure_wrap(r.label, 34) for r in ordered]
    for ax, (title, where) in zip(axes, PANELS):
        counts = set()
        for y, row in enumerate(ordered):
            figures = _figures(row, where)
            if not figures or figures.get("f1") is None:
                continue
            f1 = 100 * figures["f1"]
            lo, hi = ((figures.get("ci") or {}).get("f1") or [figures["f1"]] * 2)
            ax.errorbar(f1, y, xerr=[[f1 - 100 * lo], [100 * hi - f1]], fmt="o" if row.kind != "baseline" else "s",
                        color=COLOURS[row.kind], ms=5, capsize=2, lw=1.2)
            counts.add(figures.get("n"))
        shown = f" ({counts.pop():,} instances)" if len(counts) == 1 and None not in counts else ""
        ax.set_title(title + shown, fontsize=9)
        ax.set_xlim(0, 105)
        ax.set_xlabel("F1 (%), 95% interval", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(labelsize=7)
    axes[0].set_yticks(range(len(ordered)))
    axes[0].set_yticklabels(labels)
    for tick, row in zip(axes[0].get_yticklabels(), ordered):
        tick.set_color(COLOURS[row.kind])
    n = result["systems"]["n"]
    model = next((r.label for r in rows if r.kind == "model"), "the model")
    fig.suptitle(figure_wrap(f"All-words WSD on {data} ({n:,} instances): {model} in red; blue: the published "
                             "systems (their released answers on the same instances); grey squares: baselines",
                             figure_chars(width, 9)), fontsize=9)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return save_figure(fig, path, dpi=120)
