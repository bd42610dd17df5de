"""Published WSD systems beside the model, instance by instance: their answers on exactly the instances a run
scored, their F1 there, and the paired comparison of the model with each.

Why: a WSD figure alone says little; ALL's F1 of 55 means something next to the trained systems (ESCHER 80.7 ...)
and on *which* instances each fails. Maru et al. (ACL 2022) released the answers of eight systems on ALL and on
their amended and hard sets (``data/wsd_hard.py``); a run on ALL, one of its five sets or one of those sets gets
each system's answers for its own instances (all of them, or its ``--limit`` sample), so every figure here is on
the same instances as the model's: F1 per set and part of speech, by number of senses and by MFS/LFS (whether the
gold is WordNet's first sense), macro F1 on the release's sets (as its ``evaluate_macro_F1.py`` computes it), and
the model minus each system with its paired-bootstrap interval and exact McNemar test
(``stats.paired.paired_difference``, what ``lexprobe compare`` does for two models). ``--answers FILE`` adds a
system of one's own (read strictly: a bad line is one error naming the file and line).

The section (``systems``) is built once, by the method, from its records (``section``); tables and the figure
read it back checked (``results.read_systems``, ``results.systems_tables``, ``plot.py``). Without the release in the data directory a result has no such section
(one line says so).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from lexprobe.core.contract import Unit

#: the model's per-instance values in a paired comparison: credit 1/0, an unanswered instance 0 (as ``compare``)
PAIRED_METRIC = "f1"


@dataclass
class Systems:
    """What a run compares its model with: each system's answers on its instances (``data.wsd_hard.SystemAnswers``),
    the published systems the release lacks for the set, and whether macro F1 is reported (the release's sets)."""

    rows: list = field(default_factory=list)
    absent: list[dict] = field(default_factory=list)
    release: dict | None = None  #: the release's record (dataset, pin, licence) where its systems are rows
    macro: bool = False


def _say(line: str) -> None:
    """A notice, wrapped to the console's width."""
    from lexprobe.reporting import wrap_text

    print(wrap_text(line), file=sys.stderr, flush=True)

def load(config: Any, instances: list, universe: frozenset[str]) -> Systems | None:
    """The systems of a run on ``instances`` (``universe``: the ids of every instance of ``--data``, before
    ``--pos`` and ``--limit``): the release's published systems where the instances are an official set's and
    the release is in the data directory, and each ``--answers`` file (strict). None when there are none; one line
    on stderr when the set has published answers but the release is not in the data directory."""
    from lexprobe.data import wsd_hard

    found = wsd_hard.release_answers(instances)
    out = Systems()
    if found is not None:
        out.rows, out.absent = found
        out.release = {"dataset": wsd_hard.NAME, "pin": wsd_hard.COMMIT, "licence": wsd_hard.LICENCE,
                       "cite": wsd_hard.CITATION}
        out.macro = {i.set_name for i in instances} <= set(wsd_hard.HARD_SETS)
    elif instances and all(i.set_name in wsd_hard.ANSWERS_OF for i in instances) and not wsd_hard.present():
        _say("lexprobe: no published systems beside this result: their answers (the wsd-hard release) are not "
                  "in the data directory; `lexprobe data fetch wsd-hard` gets them")
    taken = {row.name for row in out.rows}
    for path in getattr(config, "answers", None) or ():
        row = own_answers(Path(path), instances, universe, taken)
        taken.add(row.name)
        out.rows.append(row)
    return out if out.rows else None


def own_answers(path: Path, instances: list, universe: frozenset[str], taken: set[str]) -> Any:
    """A system of one's own: a key file of answers on the run's set, read strictly (a line without a key, an id
    twice, a key that is not a sense key, an id not in the set: one line naming the file and line), named by its
    file's name without ``.key.txt`` (or ``.txt``)."""
    from lexprobe.data.wsd_hard import SystemAnswers, read_answer_file
    from lexprobe.errors import DataError
    from lexprobe.provenance import file_sha256

    name = path.name
    for suffix in (".key.txt", ".txt"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    if name in taken:
        raise DataError(f"--answers {path}: a system named {name!r} is already compared (a published system or "
                        "another file of that name); rename the file")
    answers, faults = read_answer_file(path, set(universe), strict=True)
    mine = {inst.id: answers[inst.id] for inst in instances if inst.id in answers}
    record = {"file": str(path), "sha256": file_sha256(path), "lines": faults.lines}
    return SystemAnswers(name, "--answers", mine, [record], release=False)


# --- the section -------------------------------------------------------------------------------------------------

def groups(records: list[dict]) -> dict[str, dict[str, list[str]]]:
    """Instance ids by number of senses (``metrics.wsd.sense_bucket``) and by whether the gold holds WordNet's
    first sense (MFS) or not (LFS); instances without candidates belong to neither (they cannot be scored)."""
    from lexprobe.metrics.wsd import LFS, MFS, first_sense_group, sense_bucket

    senses: dict[str, list[str]] = {}
    first: dict[str, list[str]] = {MFS: [], LFS: []}
    for r in records:
        if not r["candidates"]:
            continue
        senses.setdefault(sense_bucket(len(r["candidates"])), []).append(r["id"])
        first[first_sense_group(r["gold"], r["candidates"][0])].append(r["id"])
    order = sorted(senses, key=lambda b: int(b.split("-")[0].rstrip("+")))
    return {"senses": {b: senses[b] for b in order}, "first_sense": {k: v for k, v in first.items() if v}}


def _slices(records: list[dict], grouped: dict) -> dict[str, list[str]]:
    """Instance ids by slice: each set, each part of speech and all (the result's own slices, ``results.slices``)."""
    from lexprobe.benchmarks.wsd.results import slices, unit

    units = [unit(r["id"], r["pos"], None) for r in records]
    return {name: [u.key for u in members] for name, members in slices(records, units).items()}


def _figures(unit_lists: list[list[Unit]], ids: list[str]) -> list[dict]:
    """``results.aggregate`` of each unit list on the instances ``ids`` (drawn once for all of them)."""
    from lexprobe.benchmarks.wsd.results import aggregates

    keep = set(ids)
    return aggregates([[u for u in units if u.key in keep] for units in unit_lists])


def macro_slices(records: list[dict], answers: dict[str, Any]) -> dict[str, Optional[float]]:
    """The release's macro F1 (``metrics.wsd.macro_f1``) of ``answers`` on each set present and on all."""
    from lexprobe.metrics.wsd import macro_f1

    sets = list(dict.fromkeys(r["set"] for r in records))
    out: dict[str, Optional[float]] = {}
    for name in [*sets, "all"] if len(sets) > 1 else ["all"]:
        gold = {r["id"]: r["gold"] for r in records if name == "all" or r["set"] == name}
        value = macro_f1(gold, answers)
        out[name] = None if value is None else round(value, 6)
    if len(sets) == 1:
        out[sets[0]] = out["all"]
    return out


def system_units(records: list[dict], answers: dict[str, tuple[str, ...]]) -> list[Unit]:
    """A system's units on the records' instances: its credit as the framework's scorer counts it (several keys:
    the share of them that is gold), None where it gave no answer (in R, not in P)."""
    from lexprobe.benchmarks.wsd.results import unit
    from lexprobe.metrics.wsd import credit

    return [unit(r["id"], r["pos"], credit(r["gold"], answers[r["id"]]) if r["id"] in answers else None)
            for r in records]


def section(records: list[dict], models: dict[str, list[Unit]], systems: Systems,
            predicted: dict[str, dict[str, tuple[str, ...]]] | None = None, model_breakdowns: bool = False) -> dict:
    """The ``systems`` section of a result: ``records`` one per instance (the result's, a choose run's first order
    of each), ``models`` the model's units by label (``model``; a choose run's readings), ``predicted`` the model's
    answers by label where it gives one key per instance (macro F1); ``model_breakdowns``: the model's F1 by number
    of senses and MFS/LFS here too (a choose result, whose ``breakdowns`` hold its position bias).

    Per system: its figures per slice (each set, part of speech, all), by number of senses and MFS/LFS, its macro F1
    on the release's sets, and per model label and slice (the result's slices and MFS/LFS) the model minus the
    system on the same instances (``stats.paired``: a credit per instance, an unanswered one 0, as ``compare``)."""
    from lexprobe.stats.paired import paired_differences

    grouped = groups(records)
    by_slice = _slices(records, grouped)
    units = [system_units(records, s.answers) for s in systems.rows]
    rows: dict[str, dict] = {}
    for s in systems.rows:
        rows[s.name] = {"cite": s.cite, "release": s.release, "published_all": s.published_all, "files": s.files,
                        "answered": sum(1 for r in records if r["id"] in s.answers),
                        "unanswered": sum(1 for r in records if r["id"] not in s.answers),
                        "metrics": {}, "breakdowns": {name: {} for name in grouped}, "paired": {}}
    for name, ids in by_slice.items():
        for row, figures in zip(rows.values(), _figures(units, ids)):
            row["metrics"][name] = figures
    for kind, members in grouped.items():
        for group, ids in members.items():
            for row, figures in zip(rows.values(), _figures(units, ids)):
                row["breakdowns"][kind][group] = figures
    paired_on = {**by_slice, **grouped["first_sense"]}
    for label, model_units in models.items():
        mine = {u.key: float(u.values.get(PAIRED_METRIC) or 0.0) for u in model_units}
        theirs = [{u.key: float(u.values.get(PAIRED_METRIC) or 0.0) for u in su} for su in units]
        for row in rows.values():
            row["paired"][label] = {}
        for name, ids in paired_on.items():
            if not ids or not units:
                continue
            compared = paired_differences([mine[i] for i in ids], [[t[i] for i in ids] for t in theirs])
            for row, result in zip(rows.values(), compared):
                row["paired"][label][name] = result.as_dict()
    if systems.macro:
        for s in systems.rows:
            rows[s.name]["macro_f1"] = macro_slices(records, s.answers)
    out: dict[str, Any] = {"n": len(records), "macro": systems.macro, "systems": rows, "absent": systems.absent}
    if systems.release:
        out["release"] = systems.release
    info: dict[str, dict] = {label: {} for label in models}
    if model_breakdowns:
        for label, model_units in models.items():
            info[label]["breakdowns"] = {kind: {group: _figures([model_units], ids)[0] for group, ids in members.items()}
                                         for kind, members in grouped.items()}
    if systems.macro:
        for label, answers in (predicted or {}).items():
            info[label]["macro_f1"] = macro_slices(records, answers)
    if any(info.values()):
        out["models"] = {label: block for label, block in info.items() if block}
    if systems.macro:
        firsts = {r["id"]: (r["candidates"][0],) for r in records if r["candidates"]}
        out["baselines"] = {"first_sense": {"macro_f1": macro_slices(records, firsts)}}
        if all("mfs" in r or not r["candidates"] for r in records):
            out["baselines"]["mfs"] = {"macro_f1": macro_slices(records, {r["id"]: (r["mfs"],) for r in records
                                                                          if "mfs" in r})}
    return out
