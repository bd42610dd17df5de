"""Figure-2-style heatmap of one group's match scores.

Rows are contexts, columns definitions, each cell shows its score; the predicted
alignment is drawn in bold with a red frame and the gold alignment (context i
with definition i) with a dashed white frame inside a black one (visible on any
cell colour); rows and columns are labelled with the synset names. Reads a result file written by ``lexprobe coda eval``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lexprobe.data.files import read_json
from lexprobe.errors import DataError
from lexprobe.reporting import save_figure


def find_group(result: dict[str, Any], group: str) -> dict[str, Any]:
    """A group by id (``n/3``) or by position in the result's instances (``3``)."""
    instances = result.get("instances") or []
    for inst in instances:
        if inst.get("id") == group:
            return inst
    if group.isdigit() and int(group) < len(instances):
        return instances[int(group)]
    ids = ", ".join(i.get("id", "?") for i in instances[:5])
    raise DataError(f"group {group!r} not in the result file (it has {len(instances)} groups: {ids}, ...); "
                    "pass an id such as n/0 or an index")


def load_result(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.exists():
        raise DataError(f"result file {path} not found; write one with `lexprobe coda eval --out FILE.json`")
    result = read_json(path, "pass the --out file of `lexprobe coda eval`")
    if not isinstance(result, dict) or result.get("benchmark") != "coda21" or "instances" not in result:
        raise DataError(f"{path} is not a CoDA21 result file (written by `lexprobe coda eval`)")
    return result


def draw_heatmap(instance: dict[str, Any], out: str | Path, title: str | None = None, centred: bool = False) -> Path:
    """The group's score matrix; ``centred``: beside it the same matrix with each column's mean taken out (a
    definition's pull on every context removed: a definition that scores high against every context fills its
    raw column, and the centred map shows which context it fits best). Frames as in the module's docstring;
    the predicted pairs are the model's (from the raw scores) on both maps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scores = np.asarray(instance["scores"], dtype=float)
    k = scores.shape[0]
    predicted = {tuple(p) for p in instance.get("predicted_pairs", [])}
    names = [str(n) for n in instance.get("synsets") or []]
    if len(names) != k:
        names = [str(i + 1) for i in range(k)]
    labels = [f"{i + 1}: {_short(n)}" for i, n in enumerate(names)]
    room = max(len(label) for label in labels) * 0.075  # inches the longest label takes at 8 points
    width, height = max(5.0, 2.6 + room + 0.85 * k), max(4.2, 2.0 + room + 0.75 * k)
    maps = [(scores, "match score\n(higher = better match)", "raw scores")]
    if centred:
        maps.append((scores - scores.mean(axis=0, keepdims=True), "score minus its column's mean",
                     "column-centred (each definition's mean taken out)"))
    # constrained layout (compressed: the map keeps square cells) keeps labels, title and colour bar apart; the size
    # leaves room for the longest label
    fig, axes = plt.subplots(1, len(maps), figsize=(width + (width - room - 0.6) * (len(maps) - 1), height),
                             layout="compressed", squeeze=False)
    for j, (ax, (matrix, bar, what)) in enumerate(zip(axes[0], maps)):
        _matrix(fig, ax, matrix, predicted, labels, bar, rows_named=j == 0)
        if centred:
            ax.set_title(what, fontsize=9)
    correct = sum(1 for c, d in predicted if c == d)
    fig.suptitle(title or f"CoDA21 group {instance.get('id')} ({_short(str(instance.get('ancestor', '')))}): "
                 f"{correct}/{k} correct\nred frame: predicted pair;\nblack-and-white dashed frame: gold pair",
                 fontsize=9)
    return save_figure(fig, out, dpi=150)


def _matrix(fig, ax, scores: np.ndarray, predicted: set, labels: list[str], bar: str, rows_named: bool = True) -> None:
    """One score matrix with its values, frames and colour bar (``rows_named``: the contexts' labels on its
    left; a map beside another leaves them to the first)."""
    from matplotlib.patches import Rectangle

    k = scores.shape[0]
    image = ax.imshow(scores, cmap="viridis", aspect="equal")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label=bar)
    spread = float(scores.max() - scores.min()) or 1.0
    for c in range(k):
        for d in range(k):
            value = scores[c, d]
            light = (value - scores.min()) / spread > 0.6
            ax.text(d, c, f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}", ha="center", va="center",
                    fontsize=8, color="black" if light else "white",
                    fontweight="bold" if (c, d) in predicted else "normal")
            if (c, d) in predicted:
                ax.add_patch(Rectangle((d - 0.47, c - 0.47), 0.94, 0.94, fill=False, edgecolor="red", linewidth=2.5))
        # gold: a white frame inside a black one, visible on every cell colour
        ax.add_patch(Rectangle((c - 0.36, c - 0.36), 0.72, 0.72, fill=False, edgecolor="black", linewidth=3.2))
        ax.add_patch(Rectangle((c - 0.36, c - 0.36), 0.72, 0.72, fill=False, edgecolor="white", linewidth=1.4,
                               linestyle=(0, (3, 2))))
    ax.set_xticks(range(k), labels, rotation=90, fontsize=8)  # upright: long names never run into each other
    ax.set_yticks(range(k), labels if rows_named else [""] * k, fontsize=8)
    ax.set_xlabel("definition of synset")
    if rows_named:
        ax.set_ylabel("context of synset\n(target word hidden)")


#: synset names longer than this are cut (with "…") on the heatmap's axes
NAME_CHARS = 32


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"
