"""The report's own figures, drawn from the numbers its tables show, where a picture reads faster than a table.

Each figure is two steps, kept apart so that tests can hold the drawing to the data: a function of result dicts
that returns the figure's data (``forests``, ``wsd_breakdowns``, ``position_bars``, ``coda_by_k``, ``slopes``:
plain values read from the results' ``metrics``, ``ci``, ``baselines`` and ``breakdowns``, never computed
anew but for the slope chart's means over the items two runs share), and one that draws that data
(``*_figure``: a matplotlib figure whose every mark carries its row's label as its ``gid``). ``report_figures``
draws them all into a folder through ``reporting.save_figure``.

- a forest plot per benchmark, task and data (``forests``): a panel per part of speech, a row per model and
  method (a choose run: per reading) with its dot and 95% interval, the random baseline of its own items as a
  tick on its row, rows of the baselines (random, WordNet first sense, SemCor MFS, oracle) marked apart, a
  figure at chance hollow and marked ⚠ as in the tables;
- WSD F1 by number of senses and by MFS/LFS (gold the WordNet first sense or not), with the first-sense and
  SemCor MFS lines (``wsd_breakdowns``);
- position bias: the presented positions chosen beside the gold ones, per reading (``position_bars``);
- CoDA21 accuracy by group size k with the random 1/k (``coda_by_k``);
- likelihood against choose per model, on the items both runs have (``slopes``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexprobe.core import contract
from lexprobe.core.registry import get
from lexprobe.core.result_schema import model_name
from lexprobe.prompting.readings import label as reading_label
from lexprobe.report.results import per_reading, units
from lexprobe.reporting import figure_chars, figure_wrap, save_figure
from lexprobe.tables import Cell, digest, vs_random

log = logging.getLogger(__name__)

#: the slices that are parts of speech (WDLMPro and CoDA21: n, v; WSD: N, V, A, R), in the order drawn
POS_SLICES = {"n": "Nouns", "v": "Verbs", "N": "Nouns", "V": "Verbs", "A": "Adjectives", "R": "Adverbs",
              "all": "All"}
#: the baselines a result may carry, as the figures name them (``random`` among the options shown: choose)
BASELINE_WORDS = {"random": "random", "first_sense": "WordNet first sense", "mfs": "SemCor MFS",
                  "oracle": "oracle"}
#: colours and markers of the baselines' rows and lines
BASELINE_STYLE = {"random": ("0.45", "D"), "first_sense": ("C2", "s"), "mfs": ("C3", "^"), "oracle": ("C4", "v")}
FLAG_MARK = "⚠"


@dataclass(frozen=True)
class Point:
    """A row of a forest panel: a figure (a fraction, 0..1) with its 95% interval."""

    label: str
    value: float
    ci: tuple[float, float] | None
    kind: str  #: "model", or the baseline's name ("random", "first_sense", "mfs", "oracle")
    #: a model's row: the baselines of its own items, (name, value), drawn as ticks on its row
    baselines: tuple[tuple[str, float], ...] = ()
    flags: tuple[str, ...] = ()  #: ``tables.vs_random``'s "chance", as the tables flag it
    group: str = ""  #: a model's row: the model (the figure heads its rows with it once; ``label`` holds it too)

    @property
    def chance(self) -> float | None:
        return dict(self.baselines).get("random")


@dataclass(frozen=True)
class Panel:
    name: str
    points: tuple[Point, ...]
    slice: str = ""  #: the results' slice it shows ("n", "all")


@dataclass(frozen=True)
class Forest:
    benchmark: str
    title: str
    metric: str  #: the figure's name ("P@1")
    panels: tuple[Panel, ...]
    task: str = ""


@dataclass
class Drawn:
    """A figure of the report: which benchmark's section shows it, its caption and its file."""

    benchmark: str
    title: str
    path: Path
    kind: str = ""  #: "forest", "wsd-senses", "position-bias", "by-k", "slope" (the section's order)


# --- the data ------------------------------------------------------------------------------------

def _ci(block: dict, key: str) -> tuple[float, float] | None:
    ci = (block.get("ci") or {}).get(key)
    return (float(ci[0]), float(ci[1])) if ci and None not in ci else None


def readings(result: dict) -> list[str | None]:
    """The answer readings a result reports its figures by (``<reading>.<metric>``), else the one plain figure."""
    return list(result.get("readings") or []) if per_reading(result) else [None]


def row_label(result: dict, reading: str | None, twice: bool = False) -> str:
    """A model's row: its name, method (and recipe where not the paper's), the layer it was read at (the
    benchmark's ``summary_tag``, from the result's model record) and the reading; ``twice``: the same label
    would name another result too, so the file is named."""
    model, words = row_parts(result, reading, twice)
    return f"{model} · {words}"


def row_parts(result: dict, reading: str | None, twice: bool = False) -> tuple[str, str]:
    """``row_label``'s two parts: the model (with the file where ``twice``) and how it was asked."""
    bench = get(result["benchmark"])
    words = [str(result["method"])] + ([str(result["recipe"])] if result.get("recipe") not in (None, "paper") else [])
    tag = contract.summary_tag(bench, result)
    words += [tag] if tag else []
    words += [reading_label(reading)] if reading else []
    return (model_name(result) + (f" ({Path(result['_path']).name})" if twice and result.get("_path") else ""),
            ", ".join(words))


def _group(result: dict) -> str:
    return contract.table_group(get(result["benchmark"]), result)


def _where(bench: contract.Benchmark, group: str, task: str) -> str:
    """A figure's subject: the benchmark, its data (a table group other than the benchmark) and its task where
    it has several (and the task is not the data: sense ranking's corpus)."""
    words = [bench.meta.title] + ([group] if group != bench.meta.name else [])
    return " ".join(words) + (f", {task.upper()}" if len(bench.meta.tasks) > 1 and task != group else "")


def forests(results: list[dict]) -> list[Forest]:
    """A forest plot's data per benchmark, task and data (``Presentation.table_group``: a CoDA21 file, a corpus):
    a panel per part of speech present (then All; sense ranking's slices are buckets: All only), in each a row
    per model, method and reading with its main score (``meta.main_score``) and interval as the result holds
    them, then a row per baseline of each set of items."""
    out = []
    for bench_name in dict.fromkeys(r["benchmark"] for r in results):
        bench = get(bench_name)
        main = bench.meta.main_score
        metric = contract.main_score_label(bench)
        mine = [r for r in results if r["benchmark"] == bench_name and not r.get("sweep")]
        for group in dict.fromkeys(_group(r) for r in mine):
            members = [r for r in mine if _group(r) == group]
            for task in dict.fromkeys(t for r in members for t in r.get("tasks") or []):
                have = [r for r in members if task in r["metrics"]]
                slices = [s for s in POS_SLICES if any(s in r["metrics"][task] for r in have)]
                panels = tuple(Panel(POS_SLICES[s], tuple(_points(have, task, s, main)), s) for s in slices)
                panels = tuple(p for p in panels if p.points)
                if panels:
                    out.append(Forest(bench_name, _where(bench, group, task), metric, panels, task))
    return out


def _points(results: list[dict], task: str, slice_: str, main: str) -> list[Point]:
    labels = [row_label(r, reading) for r in results for reading in readings(r)]
    points = []
    for r in results:
        m = r["metrics"][task].get(slice_) or {}
        found = {name: ((block.get(task) or {}).get(slice_) or {}).get(main)
                 for name, block in (r.get("baselines") or {}).items()}
        own: dict[str, float] = {name: float(v) for name, v in found.items() if v is not None}
        for reading in readings(r):
            key = f"{reading}.{main}" if reading else main
            if m.get(key) is None:
                continue
            flags = vs_random(Cell(m[key], list(_ci(m, key) or ()) or None), own.get("random")).flags
            twice = labels.count(row_label(r, reading)) > 1
            points.append(Point(row_label(r, reading, twice), float(m[key]), _ci(m, key), "model",
                                tuple(own.items()), flags, row_parts(r, reading, twice)[0]))
    if len({(digest(r), per_reading(r)) for r in results}) == 1:  # one set of items: its baselines' own rows
        r = results[0]
        for name, block in (r.get("baselines") or {}).items():
            b = (block.get(task) or {}).get(slice_) or {}
            if b.get(main) is not None:
                words = BASELINE_WORDS.get(name, name) + (" (options shown)" if name == "random" and per_reading(r)
                                                          else "")
                points.append(Point(words, float(b[main]), _ci(b, main), name))
    return points


@dataclass(frozen=True)
class Series:
    """A line of a breakdown figure: a value (0..1) and its interval per x."""

    label: str
    x: tuple[str, ...]
    y: tuple[float | None, ...]
    ci: tuple[tuple[float, float] | None, ...]
    kind: str = "model"  #: "model", or a baseline's name


@dataclass(frozen=True)
class Breakdown:
    benchmark: str
    title: str
    panels: tuple[tuple[str, tuple[Series, ...]], ...]  #: (panel title, its lines)
    counts: tuple[dict[str, int], ...] = ()  #: per panel: units per x (of the first result)
    lines: tuple[tuple[str, str, float], ...] = ()  #: horizontal lines across every panel: (baseline, label, value)
    ylabel: str = ""


def wsd_breakdowns(results: list[dict]) -> list[Breakdown]:
    """Per WSD data set: F1 by number of senses and by whether the gold is the WordNet first sense (MFS) or not
    (LFS), each result's ``breakdowns.wsd.senses`` and ``first_sense`` with their intervals, the first-sense
    baseline's line from the same breakdowns and SemCor MFS's F1 over all instances (``baselines.mfs``)."""
    out = []
    have = [r for r in results if r["benchmark"] == "wsd" and (r.get("breakdowns") or {}).get("wsd", {}).get("senses")]
    # a figure per set of items: the baselines' lines are those of its instances, and no two models are compared
    # on different instances
    for group, items in dict.fromkeys((_group(r), digest(r)) for r in have):
        members = [r for r in have if _group(r) == group and digest(r) == items]
        panels, counts = [], []
        for name, title in (("senses", "by number of senses (candidates)"),
                            ("first_sense", "by whether the gold sense is WordNet's first (MFS) or not (LFS)")):
            xs = tuple(dict.fromkeys(x for r in members for x in r["breakdowns"]["wsd"][name]))
            series = []
            for r in members:
                block = r["breakdowns"]["wsd"][name]
                series.append(Series(row_label(r, None), xs, tuple(_value(block.get(x, {}).get("model"), "f1")
                                                                     for x in xs),
                                     tuple(_ci(block.get(x, {}).get("model") or {}, "f1") for x in xs)))
            block = members[0]["breakdowns"]["wsd"][name]
            series.append(Series(BASELINE_WORDS["first_sense"], xs,
                                 tuple(_value(block.get(x, {}).get("first_sense"), "f1") for x in xs),
                                 tuple(_ci(block.get(x, {}).get("first_sense") or {}, "f1") for x in xs),
                                 "first_sense"))
            panels.append((title, tuple(series)))
            first = members[0]["breakdowns"]["wsd"][name]
            counts.append({x: int((first.get(x, {}).get("model") or {}).get("n") or 0) for x in xs})
        lines = []
        for r in members[:1]:
            for name in ("first_sense", "mfs"):
                value = (((r.get("baselines") or {}).get(name) or {}).get("wsd") or {}).get("all", {}).get("f1")
                if value is not None:
                    lines.append((name, f"{BASELINE_WORDS[name]}, all instances", float(value)))
        n = ((members[0]["metrics"].get("wsd") or {}).get("all") or {}).get("n")
        files = ", ".join(Path(r["_path"]).name for r in members if r.get("_path"))
        out.append(Breakdown("wsd", f"All-words WSD {group}, {n} instances" + (f" ({files})" if files else ""),
                             tuple(panels), tuple(counts), tuple(lines), "F1 (%)"))
    return out


def _value(block: dict | None, key: str) -> float | None:
    value = (block or {}).get(key)
    return None if value is None else float(value)


def coda_by_k(results: list[dict]) -> list[Breakdown]:
    """Per CoDA21 data file: each result's accuracy by group size k (``breakdowns.alignment.by_k``) with its
    interval, and the random alignment's 1/k."""
    out = []
    have = [r for r in results if r["benchmark"] == "coda21"
            and (r.get("breakdowns") or {}).get("alignment", {}).get("by_k")]
    for group in dict.fromkeys(_group(r) for r in have):
        members = [r for r in have if _group(r) == group]
        ks = tuple(sorted({k for r in members for k in r["breakdowns"]["alignment"]["by_k"]}, key=int))
        series = [Series(row_label(r, None), ks,
                         tuple(_value(r["breakdowns"]["alignment"]["by_k"].get(k), "accuracy") for k in ks),
                         tuple(_ci(r["breakdowns"]["alignment"]["by_k"].get(k) or {}, "accuracy") for k in ks))
                  for r in members]
        chance = {k: v["random_baseline"] for r in members for k, v in r["breakdowns"]["alignment"]["by_k"].items()}
        series.append(Series("random alignment (1/k)", ks, tuple(chance.get(k) for k in ks), (None,) * len(ks),
                             "random"))
        counts = {k: int(members[0]["breakdowns"]["alignment"]["by_k"].get(k, {}).get("groups") or 0) for k in ks}
        out.append(Breakdown("coda21", f"CoDA21 {group}: accuracy by group size k",
                             (("accuracy by the number of synsets k in a group", tuple(series)),), (counts,), (),
                             "alignment accuracy (%)"))
    return out


@dataclass(frozen=True)
class Bars:
    """Position bias of one choose result and task: per reading, the share of answers at each presented
    position beside the share of gold answers there (``breakdowns.<task>.position_bias.all``)."""

    benchmark: str
    title: str
    positions: tuple[str, ...]
    readings: tuple[tuple[str, tuple[float, ...], tuple[float, ...], int], ...]  #: (reading, chosen, gold, n)


def position_bars(results: list[dict]) -> list[Bars]:
    out = []
    for r in results:
        bench = get(r["benchmark"])
        for task in r.get("tasks") or []:
            bias = ((r.get("breakdowns") or {}).get(task) or {}).get("position_bias") or {}
            block = bias.get("all") or (next(iter(bias.values())) if len(bias) == 1 else None)
            if not block:
                continue
            rows = [(reading, b) for reading, b in block.items() if isinstance(b, dict) and b.get("n")]
            if not rows:
                continue
            seen = {str(p) for _, b in rows for p in [*b.get("chosen", {}), *b.get("gold", {})]}
            last = max([int(p) for p in seen if p.isdigit()], default=0)  # every position shown, chosen or not
            positions = tuple(str(p) for p in range(1, last + 1)) + tuple(sorted(p for p in seen if not p.isdigit()))
            drawn = tuple((reading, tuple(b.get("chosen", {}).get(p, 0) / b["n"] for p in positions),
                           tuple(b.get("gold", {}).get(p, 0) / b["n"] for p in positions), int(b["n"]))
                          for reading, b in rows)
            out.append(Bars(r["benchmark"], f"Position bias, {_where(bench, _group(r), task)}: {row_label(r, None)}",
                            positions, drawn))
    return out


@dataclass(frozen=True)
class Slope:
    """A model's plain method against its choose readings on the items both results have."""

    label: str
    x: tuple[str, ...]
    y: tuple[float | None, ...]
    n: int  #: the items both runs have


@dataclass(frozen=True)
class Slopes:
    benchmark: str
    title: str
    metric: str
    lines: tuple[Slope, ...]


def slopes(results: list[dict]) -> list[Slopes]:
    """Per benchmark and task: for each model with a plain result (likelihood, embedding) and a choose result of
    the same benchmark, a line from the plain method's main score to each choose reading's, each the mean of
    the per-item values (``contract.unit_values``) over the items both results have, so the two ends are
    measured on the same items (the tables' figures may be on different samples)."""
    out = []
    for bench_name in dict.fromkeys(r["benchmark"] for r in results):
        bench = get(bench_name)
        main = bench.meta.main_score
        mine = [r for r in results if r["benchmark"] == bench_name and r.get("instances") and not r.get("sweep")]
        plain = [r for r in mine if not per_reading(r)]
        chose = [r for r in mine if per_reading(r)]
        for group, task in dict.fromkeys((_group(r), t) for r in mine for t in r.get("tasks") or []):
            lines = []
            for p in plain:
                for c in chose:
                    if (model_name(p) != model_name(c) or task not in p["tasks"] or task not in c["tasks"]
                            or _group(p) != group or _group(c) != group):
                        continue
                    a = {u.key: u.values for u in units(p) if u.task == task}
                    b = {u.key: u.values for u in units(c) if u.task == task}
                    shared = [k for k in a if k in b]
                    if not shared:
                        continue
                    x = (str(p["method"]),) + tuple(f"choose: {reading_label(g)}" for g in c.get("readings") or [])
                    y = (_mean([a[k].get(main) for k in shared]),) + tuple(
                        _mean([b[k].get(f"{g}.{main}") for k in shared]) for g in c.get("readings") or [])
                    lines.append(Slope(f"{model_name(p)} ({p['method']} vs choose)", x, y, len(shared)))
            if lines:
                out.append(Slopes(bench_name, f"{_where(bench, group, task)}: {contract.main_score_label(bench)}, "
                                  "likelihood against choose on the same items", contract.main_score_label(bench),
                                  tuple(lines)))
    return out


def _mean(values: list) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


# --- drawing -------------------------------------------------------------------------------------

#: inches: 624 px at the report's 120 dpi; a phone shrinks it to its width (~370 px), its text then still ~10 px
WIDTH = 5.2
FONT = 11


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _legend(fig, handles: dict, inches: float = WIDTH) -> None:
    """The legend under the panels, in as many columns as its longest entry leaves room for."""
    if handles:
        longest = max(len(line) for text in handles for line in text.splitlines())
        room = int(inches * 72 / (0.6 * (FONT - 1)))  # characters on the figure's width
        ncols = max(1, min(len(handles), room // (longest + 8)))
        fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=ncols,
                   fontsize=FONT - 1, frameon=False)


def forest_figure(forest: Forest):
    """The forest plot of ``forest``: a panel per part of speech, stacked; each row's dot at its value (x100)
    with its interval as a line, both carrying the row's label as ``gid`` (the interval ``<label> ci``)."""
    from matplotlib.lines import Line2D

    plt = _pyplot()
    chars = figure_chars(WIDTH * 0.46, FONT - 1)
    # the rows' labels: a model's name heads its rows once (bold), each row says how it was asked
    slots = [_slots(panel.points, chars) for panel in forest.panels]
    # each row as tall as its label's lines: a model's long path wraps onto lines of its own
    steps = [[max(1.0, 0.8 * text.count("\n") + 1.0) for text, _ in panel] for panel in slots]
    heights = [sum(s) + 1.2 for s in steps]
    fig, axes = plt.subplots(len(forest.panels), 1, figsize=(WIDTH, 0.26 * sum(heights) + 1.6), sharex=True,
                             layout="constrained", gridspec_kw={"height_ratios": heights}, squeeze=False)
    handles: dict = {}
    highest = max([100 * (p.ci[1] if p.ci else p.value) for panel in forest.panels for p in panel.points] + [1.0])
    for ax, panel, slot, step in zip(axes[:, 0], forest.panels, slots, steps):
        at = [sum(step) - sum(step[:i]) - step[i] / 2 for i in range(len(step))]  # top to bottom
        ys = [y for y, (_, p) in zip(at, slot) if p is not None]
        rows_of_baselines = any(p.kind != "model" for p in panel.points)  # else: ticks on each model's row
        for y, p in zip(ys, panel.points):
            color, marker = ("C0", "o") if p.kind == "model" else BASELINE_STYLE.get(p.kind, ("0.3", "s"))
            if p.ci:
                ax.hlines(y, 100 * p.ci[0], 100 * p.ci[1], color=color, linewidth=1.6, gid=f"{p.label} ci")
            at_chance = "chance" in p.flags
            dot = ax.plot([100 * p.value], [y], marker=marker, markersize=6.5, linestyle="none", color=color,
                          markerfacecolor="white" if at_chance else color, gid=p.label, zorder=3)[0]
            if p.kind == "model":
                handles.setdefault("model: its figure, line: its 95% interval",
                                   Line2D([], [], marker="o", color="C0", linewidth=1.6))
                if at_chance:
                    handles[f"{FLAG_MARK} hollow: at chance (the interval reaches the random baseline)"] = Line2D(
                        [], [], marker="o", color="C0", markerfacecolor="white", linestyle="none")
                for name, value in () if rows_of_baselines else p.baselines:
                    tick_color = BASELINE_STYLE.get(name, ("0.3", ""))[0]
                    ax.plot([100 * value], [y], marker="|", markersize=11, markeredgewidth=2, color=tick_color,
                            linestyle="none", gid=f"{p.label} {name}", zorder=2)
                    handles.setdefault(f"tick: {BASELINE_WORDS.get(name, name)} on the row's own items",
                                       Line2D([], [], marker="|", markersize=11, markeredgewidth=2, color=tick_color,
                                              linestyle="none"))
            else:
                handles.setdefault(_baseline_words(p.kind), dot)
        ax.set_yticks(at, [text for text, _ in slot], fontsize=FONT - 1)
        for tick, (_, row) in zip(ax.get_yticklabels(), slot):
            if row is None:
                tick.set_fontweight("bold")
            elif row.kind != "model":
                tick.set_color("0.35")
        ax.set_ylim(-0.2, sum(step) + 0.2)
        ax.set_title(panel.name, fontsize=FONT, loc="left")
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=FONT - 1)
    axes[-1, 0].set_xlim(0, min(100.0, highest * 1.08 + 2))
    axes[-1, 0].set_xlabel(f"{forest.metric} (%)", fontsize=FONT)
    _legend(fig, handles)
    fig.suptitle(figure_wrap(f"{forest.title}: {forest.metric} (%) with 95% intervals", figure_chars(WIDTH, FONT + 1)),
                 fontsize=FONT + 1)
    return fig


def _slots(points, chars: int) -> list[tuple[str, Point | None]]:
    """A panel's y labels top to bottom: (text, its row), a model's name (row None) before its first row."""
    out: list[tuple[str, Point | None]] = []
    last = None
    for p in points:
        if p.group and p.group != last:
            out.append((wrap_label(p.group, chars), None))
        last = p.group
        words = p.label[len(p.group) + 3:] if p.group else p.label  # "<model> · <how>" -> "<how>"
        out.append((wrap_label(words + (f" {FLAG_MARK}" if "chance" in p.flags else ""), chars), p))
    return out


def wrap_label(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, broken after spaces and after each "/" or "-" of a name
    (a model's folder, a Hub name), a longer piece cut only where it must be."""
    import re

    lines, line = [], ""
    for piece in re.split(r"(?<=[ /-])", text):
        while len(piece) > width:  # a piece longer than a line: cut
            if line:
                lines.append(line.rstrip())
                line = ""
            lines.append(piece[:width])
            piece = piece[width:]
        if len(line) + len(piece.rstrip()) > width and line:
            lines.append(line.rstrip())
            line = ""
        line += piece
    return "\n".join(lines + ([line.rstrip()] if line.strip() else []))


def _baseline_words(kind: str) -> str:
    return f"baseline: {BASELINE_WORDS.get(kind, kind)} (line: its 95% interval)"


def breakdown_figure(data: Breakdown):
    """Lines per result across the panels' x values (dot + interval, slightly apart so intervals do not hide
    each other), baselines dashed, horizontal lines across every panel; each mark's ``gid`` its line's label and
    x (``<label> @ <x>``)."""
    plt = _pyplot()
    n = len(data.panels)
    fig, axes = plt.subplots(n, 1, figsize=(WIDTH * 0.8, 3.1 * n + 1.4), layout="constrained", squeeze=False)
    handles: dict = {}
    for (title, series), counts, ax in zip(data.panels, data.counts or ({},) * n, axes[:, 0]):
        models = [s for s in series if s.kind == "model"]
        for s in series:
            j = models.index(s) if s in models else 0
            shift = (j - (len(models) - 1) / 2) * 0.12 if s.kind == "model" else 0.0
            color, marker = (f"C{j}", "o") if s.kind == "model" else BASELINE_STYLE.get(s.kind, ("0.3", "s"))
            xs = [i + shift for i, v in enumerate(s.y) if v is not None]
            ys = [100 * v for v in s.y if v is not None]
            line = ax.plot(xs, ys, color=color, marker=marker, markersize=5,
                           linestyle="-" if s.kind == "model" else "--", linewidth=1 if s.kind == "model" else 1.2,
                           gid=s.label)[0]
            for i, (v, ci) in enumerate(zip(s.y, s.ci)):
                if v is not None:
                    ax.plot([i + shift], [100 * v], marker=marker, color=color, linestyle="none", markersize=5,
                            gid=f"{s.label} @ {s.x[i]}")
                if v is not None and ci is not None and s.kind == "model":
                    ax.vlines(i + shift, 100 * ci[0], 100 * ci[1], color=color, linewidth=1.4,
                              gid=f"{s.label} @ {s.x[i]} ci")
            handles.setdefault(s.label, line)
        for kind, words, value in data.lines:
            drawn = ax.axhline(100 * value, color=BASELINE_STYLE[kind][0], linestyle=":", linewidth=1.3,
                               gid=f"line {words}")
            handles.setdefault(words, drawn)
        x = models[0].x if models else series[0].x
        ax.set_xticks(range(len(x)), [f"{v}\nn={counts[v]}" if v in counts else v for v in x], fontsize=FONT - 1)
        ax.set_xlim(-0.5, len(x) - 0.5)
        ax.set_title(figure_wrap(title, figure_chars(WIDTH * 0.8, FONT)), fontsize=FONT, loc="left")
        ax.grid(axis="y", alpha=0.3)
        ax.tick_params(axis="y", labelsize=FONT - 1)
        ax.set_ylabel(data.ylabel, fontsize=FONT)
        ax.set_ylim(0, 102)
    _legend(fig, {wrap_label(k, figure_chars(WIDTH * 0.75, FONT - 1)): v for k, v in handles.items()}, WIDTH * 0.8)
    fig.suptitle(figure_wrap(f"{data.title}: dot = figure, bar = 95% interval, n = units (of the first line)",
                             figure_chars(WIDTH * 0.8, FONT + 1)), fontsize=FONT + 1)
    return fig


def bars_figure(data: Bars):
    """A panel per reading: the share of answers at each presented position (the model's, blue) beside the
    share of gold answers there (grey); each bar's ``gid`` ``<reading> chosen|gold @ <position>``."""
    plt = _pyplot()
    n = len(data.readings)
    fig, axes = plt.subplots(n, 1, figsize=(WIDTH * 0.8, 1.9 * n + 1.4), layout="constrained", squeeze=False,
                             sharex=True)
    xs = range(len(data.positions))
    handles: dict = {}
    for ax, (reading, chosen, gold, count) in zip(axes[:, 0], data.readings):
        for offset, values, color, what in ((-0.2, chosen, "C0", "chosen"), (0.2, gold, "0.6", "gold")):
            bars = ax.bar([x + offset for x in xs], [100 * v for v in values], width=0.4, color=color)
            for bar, p in zip(bars, data.positions):
                bar.set_gid(f"{reading} {what} @ {p}")
            handles.setdefault("answers at the position (the model's choice)" if what == "chosen"
                               else "gold answers at the position", bars)
        ax.set_title(f"{reading_label(reading)} ({count} answers)", fontsize=FONT, loc="left")
        ax.set_ylim(0, 100)
        ax.set_ylabel("% of answers", fontsize=FONT - 1)
        ax.grid(axis="y", alpha=0.3)
        ax.tick_params(labelsize=FONT - 1)
    many = len(data.positions) > 12  # (WSD shows every sense: a label a position, upright where they are many)
    axes[-1, 0].set_xticks(list(xs), [p if p != "none" else "none\n(not read)" for p in data.positions],
                           rotation=90 if many else 0, fontsize=FONT - 2 if many else FONT - 1)
    axes[-1, 0].set_xlabel("presented position (1 = first shown)", fontsize=FONT)
    _legend(fig, handles, WIDTH * 0.8)
    fig.suptitle(figure_wrap(data.title, figure_chars(WIDTH * 0.8, FONT + 1)), fontsize=FONT + 1)
    return fig


def slope_figure(data: Slopes):
    """A line per model from its plain method to each choose reading; each point's ``gid`` ``<label> @ <x>``."""
    plt = _pyplot()
    xs = list(dict.fromkeys(x for line in data.lines for x in line.x))
    fig, ax = plt.subplots(figsize=(WIDTH, 4.4), layout="constrained")
    for j, line in enumerate(data.lines):
        points = [(xs.index(x), 100 * y) for x, y in zip(line.x, line.y) if y is not None]
        drawn = ax.plot([p for p, _ in points], [v for _, v in points], marker="o", color=f"C{j}",
                        label=wrap_label(f"{line.label}, {line.n} items", figure_chars(WIDTH * 0.9, FONT - 1)),
                        gid=line.label)[0]
        for (p, v), x in zip(points, [x for x, y in zip(line.x, line.y) if y is not None]):
            ax.plot([p], [v], marker="o", color=drawn.get_color(), linestyle="none", gid=f"{line.label} @ {x}")
    ax.set_xticks(range(len(xs)), [figure_wrap(x, 16) for x in xs], fontsize=FONT - 1)
    ax.set_xlim(-0.3, len(xs) - 0.7)
    ax.set_ylim(0, 100)
    ax.set_ylabel(f"{data.metric} (%)", fontsize=FONT)
    ax.grid(axis="y", alpha=0.3)
    ax.tick_params(axis="y", labelsize=FONT - 1)
    fig.legend(loc="outside lower center", fontsize=FONT - 1, frameon=False)
    fig.suptitle(figure_wrap(f"{data.title} (each point a mean over the items both runs have)",
                             figure_chars(WIDTH, FONT + 1)), fontsize=FONT + 1)
    return fig


# --- into the report -----------------------------------------------------------------------------

@dataclass
class _Plan:
    kind: str
    benchmark: str
    title: str
    draw: Any
    data: Any = field(repr=False, default=None)


def report_figures(results: list[dict], folder: Path) -> list[Drawn]:
    """Every figure above for ``results``, written into ``folder`` (``reporting.save_figure``); one that fails is
    logged and left out (the tables still hold its numbers)."""
    plans = ([_Plan("forest", f.benchmark, f"{f.title}: {f.metric} of every model and method, with the "
                    "baselines", forest_figure, f) for f in forests(results)]
             + [_Plan("wsd-senses", b.benchmark, f"{b.title}: F1 by number of senses and MFS/LFS", breakdown_figure, b)
                for b in wsd_breakdowns(results)]
             + [_Plan("by-k", b.benchmark, b.title, breakdown_figure, b) for b in coda_by_k(results)]
             + [_Plan("slope", s.benchmark, s.title, slope_figure, s) for s in slopes(results)]
             + [_Plan("position-bias", b.benchmark, b.title, bars_figure, b) for b in position_bars(results)])
    if plans:
        folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, plan in enumerate(plans):
        path = folder / f"report-{i:02d}-{plan.benchmark}-{plan.kind}.png"
        try:
            save_figure(plan.draw(plan.data), path)
        except Exception as err:  # noqa: BLE001 - a figure that cannot be drawn must not cost the report
            log.warning("figure %r not drawn: %s", plan.title, err)
            continue
        out.append(Drawn(plan.benchmark, plan.title, path, plan.kind))
    return out
