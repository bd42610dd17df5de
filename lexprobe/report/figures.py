"""The benchmarks' own plots, drawn for a report: PNG files plus their bytes for data URIs."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from lexprobe.report.results import is_choose, is_sweep, model_name

log = logging.getLogger(__name__)
HEATMAPS_PER_RESULT = 2


@dataclass
class Figure:
    benchmark: str
    title: str
    path: Path

    def png(self) -> bytes:
        return self.path.read_bytes()


def draw_figures(results: list[dict], folder: Path) -> list[Figure]:
    """Every figure that each result supports; a figure that fails is logged and left out."""
    folder.mkdir(parents=True, exist_ok=True)
    figures: list[Figure] = []
    for i, r in enumerate(results):
        stem = f"{i:02d}-{r['benchmark']}-{_slug(model_name(r))}"
        try:
            figures += _draw(r, folder, stem)
        except Exception as err:  # noqa: BLE001 - a missing plot must not cost the report
            log.warning("no figure for %s: %s", r["_path"], err)
    return figures


def _draw(r: dict, folder: Path, stem: str) -> list[Figure]:
    name, bench = model_name(r), r["benchmark"]
    if bench == "wdlmpro" and any(r.get("breakdowns", {}).get(t) for t in r.get("task", [])):
        from lexprobe.benchmarks.wdlmpro.plot import plot_breakdowns

        return [Figure(bench, f"WDLMPro breakdowns: {name}", plot_breakdowns(r, folder / f"{stem}.png"))]
    if is_sweep(r):
        from lexprobe.benchmarks.senserank.layers import plot_sweep

        path = plot_sweep(r, folder / f"{stem}-layers.png")
        return [Figure(bench, f"Sense ranking {r.get('task', '')} by layer: {name}", Path(path))]
    if is_choose(r):
        return []  # the choose tables hold its figures; heatmaps need the likelihood protocol's score matrices
    if bench == "coda21" and r.get("instances"):
        from lexprobe.benchmarks.coda21.heatmap import draw_heatmap

        wrong = [g for g in r["instances"] if g["accuracy"] < 1]
        right = [g for g in r["instances"] if g["accuracy"] == 1]
        out = []
        for label, group in (("a misaligned group", wrong[:1]), ("an aligned group", right[:1])):
            for g in group[:HEATMAPS_PER_RESULT]:
                path = draw_heatmap(g, folder / f"{stem}-{_slug(g['id'])}.png")
                out.append(Figure(bench, f"CoDA21 {name}: {label} ({g['id']})", path))
        return out
    if bench == "senserank" and r.get("breakdowns", {}).get("overall_curves"):
        from lexprobe.benchmarks.senserank.evaluate import save_curves_plot

        path = folder / f"{stem}.png"
        save_curves_plot(r, path)
        return [Figure(bench, f"Sense ranking precision at k: {name}", path)]
    return []


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[-40:] or "x"
