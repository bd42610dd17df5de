"""The benchmarks' own plots, drawn for a report: PNG files plus their bytes for data URIs."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from lexprobe.result_schema import model_name

log = logging.getLogger(__name__)


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
    from lexprobe.core.contract import figures
    from lexprobe.core.registry import get

    return [Figure(r["benchmark"], title, Path(path)) for title, path in figures(get(r["benchmark"]), r, folder, stem)]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[-40:] or "x"
