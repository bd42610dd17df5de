"""WSD results as the field reports them: precision, recall and F1 per set and part of speech, ALL over the
concatenation, with the three baselines, breakdowns by polysemy and by MFS/LFS, tables and console text.

The framework's scorer (``metrics.wsd``, ``Scorer.java``): P = correct / answered, R = correct / total,
F1 their harmonic mean. Per unit (an instance) the credit is 1 when the answer is one of the gold keys,
0 otherwise, and an instance left unanswered (a prompt too long for the model) counts in R, not in P. So
F1 = 2 sum(credit) / (answered + total), a ratio of two means over instances: its 95% interval resamples
the instances and takes the ratio in each resample (``stats.bootstrap``), as the other benchmarks'
means do.

Slices of the one task: each set present (``senseval2`` ... in the paper's order), each part of speech
(N, V, A, R), and ``all`` (ALL when the data is ALL). Units are instance ids; a record names its set.

Where a result has the published systems beside it (its ``systems`` section, ``systems.py``), its presentation
shows them on the same instances: ``field_rows`` reads the model, each system and the baselines as rows (the
section checked: ``read_systems``), ``systems_tables`` makes the field's table (F1, macro F1, MFS/LFS, the model
minus each system) and the table by part of speech, number of senses and MFS/LFS, and ``figures`` draws them
(``plot.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, TypedDict

import numpy as np

from lexprobe.core.contract import Unit
from lexprobe.data.wsd import POS_ORDER, SETS, short_name
from lexprobe.metrics.wsd import LFS, MFS, first_sense_group, sense_bucket
from lexprobe.metrics.wsd_baselines import random_credit

TASK = "wsd"
#: the baselines every result carries, by name (``baselines``), as tables label them
BASELINES = {"random": "random (expected)", "first_sense": "WordNet first sense", "mfs": "SemCor MFS"}


def credit(gold: list[str], answer: str | None) -> float | None:
    """1.0 for a gold answer, 0.0 for another, None for none (unanswered)."""
    return None if answer is None else float(answer in gold)


def unit(key: str, pos: str, value: float | None) -> Unit:
    """An instance as intervals and ``compare`` see it: ``f1`` and ``recall`` count an unanswered instance as
    0 (the paired tests compare credits), ``precision`` leaves it out."""
    return Unit(key, TASK, pos, {"f1": value or 0.0, "precision": value, "recall": value or 0.0})


def unit_values(records: list[dict]) -> list[Unit]:
    return [unit(r["id"], r["pos"], None if "skipped" in r else r["correct"]) for r in records]


def baseline_values(records: list[dict]) -> dict[str, list[Unit]]:
    """Random (its exact expectation), WordNet first sense and SemCor MFS on the result's own instances; MFS
    only where the run had SemCor (``mfs`` in the records)."""
    out = {"random": [unit(r["id"], r["pos"], random_credit(r["gold"], r["candidates"]) if r["candidates"] else None)
                      for r in records],
           "first_sense": [unit(r["id"], r["pos"], credit(r["gold"], r["candidates"][0] if r["candidates"] else None))
                           for r in records]}
    if records and all("mfs" in r or not r["candidates"] for r in records):
        out["mfs"] = [unit(r["id"], r["pos"], credit(r["gold"], r.get("mfs"))) for r in records]
    return out


def slices(records: list[dict], units: list[Unit]) -> dict[str, list[Unit]]:
    set_of = {r["id"]: r["set"] for r in records}
    sets = [s for s in (*SETS, *sorted(set(set_of.values()) - set(SETS))) if s in set_of.values()]
    out = {s: [u for u in units if set_of.get(u.key) == s] for s in sets}
    out.update({p: [u for u in units if u.pos == p] for p in POS_ORDER if any(u.pos == p for u in units)})
    out["all"] = list(units)
    return out


def aggregate(units: list[Unit]) -> dict[str, Any]:
    """P, R and F1 of a slice with their 95% bootstrap intervals over instances (see the module docstring)."""
    return aggregates([units])[0]


def aggregates(slices: list[list[Unit]]) -> list[dict[str, Any]]:
    """``aggregate`` of each of ``slices``, lists of units of the same instances in the same order (several systems'
    answers on one slice): the bootstrap resamples are drawn once for all, the draws each would make alone (they
    depend only on the number of instances and the seed)."""
    from lexprobe.stats.bootstrap import percentile_interval, resampled_means

    outs: list[dict[str, Any]] = []
    columns: list[tuple[np.ndarray, np.ndarray] | None] = []
    for units in slices:
        n = len(units)
        out: dict[str, Any] = {"f1": None, "precision": None, "recall": None, "n": n, "answered": 0, "ci": {}}
        outs.append(out)
        if not n:
            columns.append(None)
            continue
        c = np.array([u.values.get("recall") or 0.0 for u in units])
        a = np.array([u.values.get("precision") is not None for u in units], dtype=np.float64)
        out["answered"] = int(a.sum())
        out["recall"] = float(c.mean())
        out["precision"] = float(c.sum() / a.sum()) if a.sum() else None
        out["f1"] = float(2 * c.sum() / (a.sum() + n))
        columns.append((c, a))
    drawn = [j for j, col in enumerate(columns) if col is not None]
    if not drawn:
        return outs
    if len({len(slices[j]) for j in drawn}) != 1:
        raise ValueError("aggregates takes slices of the same instances")
    pairs = [col for col in columns if col is not None]
    stacked = np.column_stack([np.column_stack([c, a, 2 * c, a + 1]) for c, a in pairs])
    means = resampled_means(stacked)
    for k, j in enumerate(drawn):
        c, a = columns[j]  # type: ignore[misc]  # drawn: the slices with units
        out, m = outs[j], means[:, 4 * k: 4 * k + 4]
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = {"recall": m[:, 0], "precision": m[:, 0] / m[:, 1], "f1": m[:, 2] / m[:, 3]}
        for name, samples in ratios.items():
            if out[name] is None:
                continue
            if np.all(c == c[0]) and np.all(a == a[0]):  # constant units: the value itself, no drift
                out["ci"][name] = [round(out[name], 6)] * 2
                continue
            lo, hi = percentile_interval(samples[np.isfinite(samples)][:, None])[:, 0]
            out["ci"][name] = [round(float(lo), 6), round(float(hi), 6)]
    return outs


def breakdowns(records: list[dict]) -> dict:
    """F1 by number of senses and by whether the gold is the WordNet first sense (MFS) or not (LFS), for the
    model and the first-sense baseline (on LFS instances it scores 0 by construction)."""
    def table(group) -> dict:
        out: dict[str, list[dict]] = {}
        for r in records:
            if r["candidates"]:
                out.setdefault(group(r), []).append(r)
        return {name: {"model": aggregate(unit_values(members)),
                       "first_sense": aggregate(baseline_values(members)["first_sense"])}
                for name, members in out.items()}

    senses = table(lambda r: sense_bucket(len(r["candidates"])))
    order = sorted(senses, key=lambda b: int(b.split("-")[0].rstrip("+")))
    first = table(lambda r: first_sense_group(r["gold"], r["candidates"][0]))
    return {TASK: {"senses": {k: senses[k] for k in order}, "first_sense": {k: first[k] for k in (MFS, LFS)
                                                                           if k in first}}}


# --- tables and console ----------------------------------------------------------------------------

def method_words(result: dict, reading: str | None = None) -> str:
    """How a row's figures were obtained, from the result's own record: its method, the layer its vectors
    came from (``model.hidden_states_index``, the layer the run asked) and a choose run's reading."""
    from lexprobe.prompting.readings import label

    words = [str(result["method"])]
    index = (result.get("model") or {}).get("hidden_states_index")
    if index is not None and (result.get("config") or {}).get("requests", {}).get("asked") == ["TokenVector"]:
        words.append(f"layer {index}")
    if reading is not None:
        words.append(label(reading))
    return ", ".join(words)


def _readings(result: dict) -> list[str | None]:
    """A choose result's readings (its figures are ``<reading>.f1``), else the one plain score (None)."""
    return list(result.get("readings") or []) or [None]


def data_group(result: dict) -> str:
    """Which table (and figure) a result belongs in: its data set."""
    return str((result.get("dataset") or {}).get("name", (result.get("config") or {}).get("data")))


def tables(results: list[dict]) -> list:
    """The report's tables: one per data set (``data_tables``), then, for each result with the published systems
    beside it, its two tables among them (``systems_tables``)."""
    return data_tables(results) + [t for r in results for t in systems_tables(r)]


def data_tables(results: list[dict]) -> list:
    """One table per data set: every model and method (a choose run: each reading) on its rows, F1 (%) per set
    and part of speech with its 95% interval, flagged where it is not above the random baseline of the
    result's own instances; then the baselines of each set of instances (random among all senses, or among
    the options a choose run showed; WordNet first sense; SemCor MFS). Every method's results share the table
    of their data (``Choose.presentation`` shows them here too), so two methods on the same items sit side by
    side."""
    from collections import Counter
    from pathlib import Path

    from lexprobe.tables import Table, baseline_label, cell, digest, model_name, vs_random

    groups: dict[str, list[dict]] = {}
    for r in results:
        groups.setdefault(data_group(r), []).append(r)
    out = []
    runs = Counter((model_name(r), r["method"]) for r in results)

    def label(r: dict) -> str:  # a model run twice the same way: its rows told apart by file
        twice = runs[(model_name(r), r["method"])] > 1 and r.get("_path")
        return f"{model_name(r)} ({Path(r['_path']).name})" if twice else model_name(r)

    for data, members in groups.items():
        slices = list(dict.fromkeys(s for r in members for s in r["metrics"][TASK] if s != "all")) + ["all"]
        table = Table("wsd", f"All-words WSD, {data}: F1 (%)",
                      ["Model", "Method", *[short_name(s) for s in slices[:-1]], "all", "instances"],
                      note="F1 (%) of the framework's scorer (P = correct/answered, R = correct/total), 95% "
                           "bootstrap intervals over instances in brackets; random: the exact expectation over all "
                           "senses, or over the options a choose run showed.")
        for r in members:
            m, rnd = r["metrics"][TASK], r["baselines"].get("random", {}).get(TASK, {})
            for reading in _readings(r):
                key = f"{reading}.f1" if reading else "f1"
                table.rows.append([label(r), method_words(r, reading)]
                                  + [vs_random(cell(m.get(s), key), rnd.get(s), "f1") for s in slices]
                                  + [(m.get("all") or {}).get("n")])
        seen: set = set()
        for r in members:
            shown = bool(r.get("readings"))
            if (digest(r), shown) in seen:
                continue
            seen.add((digest(r), shown))
            for name, words in BASELINES.items():
                base = (r.get("baselines") or {}).get(name, {}).get(TASK)
                if not base:
                    continue
                words = "random (options shown)" if name == "random" and shown else words
                table.rows.append([baseline_label(words[0].upper() + words[1:], r, members), "baseline"]
                                  + [cell(base.get(s), "f1") for s in slices] + [(base.get("all") or {}).get("n")])
        out.append(table)
    return out


def format_result(result: dict) -> str:
    """The console text: the report's table of this one result, a line per set and part of speech, the model
    and its baselines side by side, with the intervals (``tables.to_text``); then the published systems on the
    same instances, where the result has them."""
    from lexprobe.tables import to_text

    return "\n\n".join(to_text(t, transpose=True) for t in data_tables([result])) + format_systems(result)


def key_lines(result: dict) -> str:
    """The result's answers in the framework's key-file format (``<instance id> <sense key>``), for its scorer."""
    from lexprobe.metrics.wsd import format_key_lines

    return format_key_lines({r["id"]: (r["predicted"],) for r in result["instances"]
                             if r.get("predicted") is not None})


def failure_rows(result: dict) -> list[dict]:
    """The report's items page: one row per instance (a choose run: per asked order), right or wrong."""
    rows = []
    for r in result["instances"]:
        block = next((r[k] for k in ("likelihood", "generation") if isinstance(r.get(k), dict)), None)
        if block is not None:  # a choose record: the reading first asked
            picked = r["candidates"][block["choice"]] if block.get("choice") is not None else None
            ok = bool(block.get("correct"))
        else:
            picked, ok = r.get("predicted"), bool(r.get("correct"))
        rows.append({"task": TASK, "item": r["id"], "set": r["set"], "word": r["word"], "pos": r["pos"],
                     "sentence": r.get("sentence", ""), "gold": r.get("gold_definition") or ", ".join(r["gold"]),
                     "predicted": r.get("predicted_definition") or picked or "(not answered)", "ok": ok})
    return rows


#: the baselines' names in the figures
BASELINE_WORDS = {"first_sense": "WordNet first sense", "mfs": "SemCor MFS"}


def breakdown_figures(results: list[dict]) -> list:
    """Per WSD data set: F1 by number of senses and by whether the gold is the WordNet first sense (MFS) or not
    (LFS), each result's ``breakdowns.wsd.senses`` and ``first_sense`` with their intervals, the first-sense
    baseline's line from the same breakdowns and SemCor MFS's F1 over all instances (``baselines.mfs``)."""
    from lexprobe.core.contract import result_label
    from lexprobe.core.registry import get
    from lexprobe.tables import Breakdown, Series, digest, interval_of, value_of

    out = []
    have = [r for r in results if (r.get("breakdowns") or {}).get("wsd", {}).get("senses")]
    # a figure per set of items: the baselines' lines are those of its instances, and no two models are compared
    # on different instances
    for group, items in dict.fromkeys((data_group(r), digest(r)) for r in have):
        members = [r for r in have if data_group(r) == group and digest(r) == items]
        panels, counts = [], []
        for name, title in (("senses", "by number of senses (candidates)"),
                            ("first_sense", "by whether the gold sense is WordNet's first (MFS) or not (LFS)")):
            xs = tuple(dict.fromkeys(x for r in members for x in r["breakdowns"]["wsd"][name]))
            series = []
            for r in members:
                block = r["breakdowns"]["wsd"][name]
                series.append(Series(result_label(get(r['benchmark']), r), xs, tuple(value_of(block.get(x, {}).get("model"), "f1")
                                                                     for x in xs),
                                     tuple(interval_of(block.get(x, {}).get("model") or {}, "f1") for x in xs)))
            block = members[0]["breakdowns"]["wsd"][name]
            series.append(Series(BASELINE_WORDS["first_sense"], xs,
                                 tuple(value_of(block.get(x, {}).get("first_sense"), "f1") for x in xs),
                                 tuple(interval_of(block.get(x, {}).get("first_sense") or {}, "f1") for x in xs),
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


# --- among the published systems ---------------------------------------------------------------------------------

class PairedRow(TypedDict, total=False):
    """The model minus a system on the same instances (``stats.paired.PairedResult.as_dict``)."""

    n: int
    a: float
    b: float
    difference: float
    ci: list[float]
    test: str
    p_value: float
    only_a: int
    only_b: int


class SystemRow(TypedDict, total=False):
    """One system of a result's ``systems`` section."""

    cite: str
    release: bool
    published_all: Optional[float]
    files: list[dict[str, Any]]
    answered: int
    unanswered: int
    metrics: dict[str, dict[str, Any]]
    breakdowns: dict[str, dict[str, dict[str, Any]]]
    macro_f1: dict[str, Optional[float]]
    paired: dict[str, dict[str, PairedRow]]


class Section(TypedDict, total=False):
    """A result's ``systems`` section, as the presentation reads it back (``validation``)."""

    n: int
    release: dict[str, str]
    macro: bool
    systems: dict[str, SystemRow]
    absent: list[dict[str, str]]
    models: dict[str, dict[str, Any]]
    baselines: dict[str, dict[str, Any]]


def read_systems(result: dict) -> dict | None:
    """A result's ``systems`` section, checked (``validation``), or None where it has none."""
    from lexprobe import validation

    found = result.get("systems")
    if found is None:
        return None
    return validation.check(found, Section, f"the systems section of {result.get('_path', 'the result')}",
                            "rerun the evaluation")



@dataclass
class FieldRow:
    """One row of a result's comparison with the published systems: the model (a choose run: each reading), a
    system or a baseline, with its figures per slice and, where known, by breakdown, its macro F1 and the paired
    comparison of the model with it."""

    label: str
    kind: str  #: "model", "system" or "baseline"
    metrics: dict[str, dict]  #: slice -> {"f1", "ci", ...}
    breakdowns: dict[str, dict[str, dict]] = field(default_factory=dict)  #: "senses"/"first_sense" -> group -> figures
    macro: dict[str, Any] = field(default_factory=dict)  #: slice -> macro F1
    paired: dict[str, dict] = field(default_factory=dict)  #: slice -> the first model minus this row


def field_rows(result: dict) -> list[FieldRow]:
    """The model, each published system (and ``--answers`` file) and the baselines as rows on the same instances,
    read from the result (its ``systems`` section checked: ``systems.read``); [] without the section."""
    section = read_systems(result)
    if section is None:
        return []
    models = section.get("models") or {}
    metrics = result["metrics"][TASK]
    rows: list[FieldRow] = []
    name = str(result["model"].get("name"))
    if result.get("readings"):
        from lexprobe.prompting.readings import label as reading_label

        for reading in result["readings"]:
            shown = {s: {"f1": block.get(f"{reading}.f1"), "ci": {"f1": (block.get("ci") or {}).get(f"{reading}.f1")}}
                     for s, block in metrics.items()}
            rows.append(FieldRow(f"{name} ({reading_label(reading)})", "model", shown,
                                 (models.get(reading) or {}).get("breakdowns") or {}))
        first = result["readings"][0] if result["readings"] else "model"
    else:
        own = (result.get("breakdowns") or {}).get(TASK) or {}
        breakdowns = {kind: {group: figures["model"] for group, figures in own.get(kind, {}).items()}
                      for kind in ("senses", "first_sense")}
        rows.append(FieldRow(name, "model", metrics, breakdowns, (models.get("model") or {}).get("macro_f1") or {}))
        first = "model"
    for system, row in section["systems"].items():
        rows.append(FieldRow(system, "system", row["metrics"], row["breakdowns"], row.get("macro_f1") or {},
                             (row.get("paired") or {}).get(first) or {}))
    own = (result.get("breakdowns") or {}).get(TASK) or {}
    for base, text in BASELINES.items():
        block = (result.get("baselines") or {}).get(base, {}).get(TASK)
        if not block:
            continue
        label = "chance (options shown)" if base == "random" and result.get("readings") else text
        breakdowns = ({kind: {group: figures["first_sense"] for group, figures in own.get(kind, {}).items()}
                       for kind in ("senses", "first_sense")} if base == "first_sense" and own else {})
        macro = ((section.get("baselines") or {}).get(base) or {}).get("macro_f1") or {}
        rows.append(FieldRow(label, "baseline", block, breakdowns, macro))
    return rows


#: a skipped line of an answer file, by fault (``metrics.wsd.AnswerFaults``), as a remark says it
FAULT_WORDS = {"without_key": "without a sense key", "twice": "repeating an instance",
               "not_a_sense_key": "with a field that is not a sense key",
               "outside_the_set": "naming no instance of {set}"}


def data_name(result: dict) -> str:
    """What a result ran on, in a title: the set's name, or a file's name (not its whole path)."""
    name = str((result.get("dataset") or {}).get("name") or result["config"].get("data"))
    return Path(name).name if "/" in name else name


def _f1_of(row: FieldRow) -> float:
    return (row.metrics.get("all") or {}).get("f1") or 0.0


def systems_tables(result: dict) -> list:
    """Two tables where the result has published systems beside it: the field on the run's instances (F1 with its
    interval, macro F1 on the release's sets, MFS/LFS, the model minus each system with its paired interval and
    exact test), and F1 by part of speech, number of senses and MFS/LFS, the model and every system in one table."""
    from lexprobe.reporting import format_p
    from lexprobe.tables import Cell, Table, cell

    rows = field_rows(result)
    if not rows:
        return []
    section = result["systems"]
    model = rows[0].label
    data = data_name(result)
    macro = bool(section.get("macro"))
    headers = ["", "F1", *(["macro F1"] if macro else []), "MFS F1", "LFS F1", "model − row [95% CI]",
               "p (McNemar)"]
    field_table = Table("wsd", f"All-words WSD among the published systems: {model} on {data} "
                               f"({section['n']:,} instances)", headers,
                        note="F1 (%) of the framework's scorer on exactly the run's instances (their 95% bootstrap "
                             "intervals: in the report and the result); MFS/LFS: the instances whose gold is (not) "
                             f"WordNet's first sense; model − row: the difference of {model}'s and the row's credit "
                             "per instance (an unanswered one 0) with its paired-bootstrap interval, and the exact "
                             "McNemar test of the instances only one of the two gets right (as `lexprobe compare`)"
                             + ("; macro F1: the mean over gold senses of each sense's F1 (the release's "
                                "evaluate_macro_F1.py)" if macro else "") + ".")
    for row in sorted(rows, key=_f1_of, reverse=True):
        first = row.breakdowns.get("first_sense") or {}
        paired = row.paired.get("all")
        shown = [row.label if row.kind != "model" else f"▶ {row.label}", cell(row.metrics.get("all"), "f1")]
        if macro:
            shown.append(Cell(row.macro.get("all")) if row.macro else Cell(None))
        shown += [cell(first.get("MFS"), "f1"), cell(first.get("LFS"), "f1"),
                  _difference(paired), format_p(paired["p_value"]) if paired else ""]
        field_table.rows.append(shown)
    absent = section.get("absent") or []
    if absent:
        field_table.remarks.append("Not among the rows: " + "; ".join(a["why"] for a in absent) + ".")
    unanswered = [f"{name} answers {row['answered']:,} of the {section['n']:,} instances"
                  for name, row in section["systems"].items() if row.get("unanswered")]
    if unanswered:
        field_table.remarks.append("; ".join(unanswered) + ": the others count in R, not in P, as the framework's "
                                   "scorer counts an instance without an answer.")
    skipped = [f"{name}'s {Path(f['file']).name}: {n} {FAULT_WORDS.get(fault, fault).format(set=f.get('set', 'the set'))}"
               for name, row in section["systems"].items() for f in row.get("files") or []
               for fault, n in f.items() if fault in FAULT_WORDS and n]
    if skipped:
        field_table.remarks.append("Lines of the answer files skipped: " + "; ".join(skipped) + ".")
    pos = [p for p in POS_ORDER if p in result["metrics"][TASK]]
    buckets = list(dict.fromkeys(b for row in rows for b in (row.breakdowns.get("senses") or {})))
    by = Table("wsd", f"All-words WSD by part of speech, number of senses and MFS/LFS: {model} and the published "
                      f"systems on {data}", ["", *pos, *[f"{b} sense{'s' if b != '1' else ''}" for b in buckets],
                                             "MFS", "LFS"],
               note="F1 (%) on the same instances for every row; senses: the instance's number of WordNet "
                    "candidates; MFS/LFS: whether its gold is WordNet's first sense.")
    for row in sorted((r for r in rows if r.kind != "baseline" or r.breakdowns), key=_f1_of, reverse=True):
        senses, first = row.breakdowns.get("senses") or {}, row.breakdowns.get("first_sense") or {}
        by.rows.append([row.label, *[cell(row.metrics.get(p), "f1") for p in pos],
                        *[cell(senses.get(b), "f1") for b in buckets], cell(first.get("MFS"), "f1"),
                        cell(first.get("LFS"), "f1")])
    return [field_table, by]


def _difference(paired: dict | None) -> Any:
    """The model minus a row, x100, with its paired interval (one text: the console shows it whole)."""
    from lexprobe.tables import Text

    if not paired:
        return ""
    lo, hi = paired["ci"]
    return Text([f"{100 * paired['difference']:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"])


def format_systems(result: dict) -> str:
    """The console's lines for the published systems: the first of ``systems_tables``, its figures without their
    intervals (the difference keeps its own: it is what the rows are for), in at most ~80 columns."""
    from lexprobe.tables import Cell, to_text

    tables = systems_tables(result)
    if not tables:
        return ""
    table = tables[0]
    table.rows = [[c.main() if isinstance(c, Cell) else c for c in row] for row in table.rows]
    return "\n\n" + to_text(table)


def figures(result: dict, folder: Path, stem: str) -> list[tuple[str, Path]]:
    """The report's figure where the result has published systems beside it: each row's F1 with its interval on
    all, MFS and LFS instances side by side (``plot.py``)."""
    rows = field_rows(result)
    if not rows:
        return []
    from lexprobe.benchmarks.wsd.plot import field_figure

    path = field_figure(result, rows, folder / f"{stem}-systems.png", data_name(result))
    return [(f"All-words WSD among the published systems: {rows[0].label}", path)]
