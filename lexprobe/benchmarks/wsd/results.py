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
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lexprobe.core.contract import Unit
from lexprobe.data.wsd import POS_ORDER, SETS, SHORT
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
    from lexprobe.stats.bootstrap import percentile_interval, resampled_means

    n = len(units)
    out: dict[str, Any] = {"f1": None, "precision": None, "recall": None, "n": n, "answered": 0, "ci": {}}
    if not n:
        return out
    c = np.array([u.values.get("recall") or 0.0 for u in units])
    a = np.array([u.values.get("precision") is not None for u in units], dtype=np.float64)
    out["answered"] = int(a.sum())
    out["recall"] = float(c.mean())
    out["precision"] = float(c.sum() / a.sum()) if a.sum() else None
    out["f1"] = float(2 * c.sum() / (a.sum() + n))
    means = resampled_means(np.column_stack([c, a, 2 * c, a + 1]))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = {"recall": means[:, 0], "precision": means[:, 0] / means[:, 1], "f1": means[:, 2] / means[:, 3]}
    for name, samples in ratios.items():
        if out[name] is None:
            continue
        if np.all(c == c[0]) and np.all(a == a[0]):  # constant units: the value itself, no drift
            out["ci"][name] = [round(out[name], 6)] * 2
            continue
        lo, hi = percentile_interval(samples[np.isfinite(samples)][:, None])[:, 0]
        out["ci"][name] = [round(float(lo), 6), round(float(hi), 6)]
    return out


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
                      ["Model", "Method", *[SHORT.get(s, s) for s in slices[:-1]], "all", "instances"],
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
    and its baselines side by side, with the intervals (``tables.to_text``)."""
    from lexprobe.tables import to_text

    return "\n\n".join(to_text(t, transpose=True) for t in tables([result]))


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
