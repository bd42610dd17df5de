"""The random-baseline rows of the report's summary table ("Models by method").

Every result carries the random baseline of its own items: over all candidates (likelihood,
ask, similarity) or over the options a choose run showed. One row per baseline, not per
result: results on the same items with the same kind of baseline and the same figures share a
row, and other benchmarks' figures of that kind sit beside them. Rows that would read alike
but hold other figures (another item set, another ``--max-candidates``) name what tells them
apart: the options shown and the result files whose items they are (the table's note says
what each file ran on).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lexprobe.prompting.readings import options_shown
from lexprobe.report.results import per_reading
from lexprobe.tables import Cell

ALL, SHOWN = "all candidates", "options shown (choose)"


@dataclass
class Baseline:
    """One result's random baseline: its figures by summary header, and what they are of."""

    kind: str  #: ALL or SHOWN
    benchmark: str
    digest: str | None  #: the run record's items digest (None: an old result without one)
    file: str
    cells: dict[str, Cell]
    shown: str | None = None  #: a choose run's "≤N options"


@dataclass
class _Row:
    cells: dict[str, Cell] = field(default_factory=dict)
    digests: dict[str, str | None] = field(default_factory=dict)
    kind: str = ""
    shown: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def takes(self, b: Baseline) -> bool:
        """The same kind of baseline on the same items (or another benchmark's), equal where both have
        figures."""
        if b.kind != self.kind or self.digests.get(b.benchmark, b.digest) != b.digest:
            return False  # another item set of this benchmark: never one row
        return all(self.cells.get(h, v) == v for h, v in b.cells.items())

    def add(self, b: Baseline) -> None:
        self.kind = b.kind
        self.cells.update(b.cells)
        self.digests[b.benchmark] = b.digest
        for seen, new in ((self.shown, b.shown), (self.files, b.file)):
            if new is not None and new not in seen:
                seen.append(new)

    def label(self, told_apart: bool) -> str:
        if not told_apart:
            return self.kind
        return self.kind + ": " + ", ".join([*self.shown, f"items of {', '.join(self.files)}"])


def baseline(result: dict, columns) -> Baseline | None:
    """``result``'s random baseline in the summary's ``columns`` (``SummaryColumn``s); None if it has none."""
    from lexprobe.tables import cell

    rnd = (result.get("baselines") or {}).get("random") or {}
    cells = {}
    for c in columns:
        figures = (rnd.get(c.task or result["tasks"][0]) or {}).get("all")
        if figures:
            cells[c.header] = cell(figures, c.metric, c.scale, c.digits)
    if not cells:
        return None
    among_shown = per_reading(result)
    return Baseline(SHOWN if among_shown else ALL, result["benchmark"], (result.get("run") or {}).get("items_digest"),
                    Path(result["_path"]).name if result.get("_path") else "?", cells,
                    options_shown(result.get("config") or {}) if among_shown else None)


def random_rows(baselines: list[Baseline]) -> list[tuple[str, dict[str, Cell]]]:
    """(label of the "Method / recipe" column, figures by header) per row, in first-seen order."""
    rows: list[_Row] = []
    for b in baselines:
        row = next((r for r in rows if r.takes(b)), None)
        if row is None:
            row = _Row()
            rows.append(row)
        row.add(b)
    out = []
    for row in rows:  # a kind of baseline in two rows: each names its options and items
        told_apart = sum(other.kind == row.kind for other in rows) > 1
        out.append((row.label(told_apart), row.cells))
    return out
