"""CoDA21 results: per-unit values, slices, baseline and breakdown of a run's group records
(``contract.default_sections`` aggregates them), and failure-page rows. (A schema-1 file, from before schema 2, is
refused in one line by ``result_schema.load``; lexprobe 0.1.0 reads it.)

One task, ``alignment``; slices ``n``, ``v`` (as ``--pos`` chose) and ``all``; a unit is a group.
The likelihood and ask methods' metrics are ``accuracy`` (one-to-one alignment) and
``simple_accuracy`` (simple matching), with the exact random baseline's accuracy (1/k) on the
same groups; ask-to-choose results report each answer reading's accuracy.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, TypedDict

import numpy as np

from lexprobe.benchmarks.coda21.config import parts_of_speech
from lexprobe.core.contract import Unit, default_sections
from lexprobe.core.result_schema import model_name
from lexprobe.prompting.readings import GENERATED, answered, item_rows

TASK = "alignment"


class _Group(TypedDict):
    id: str
    pos: str
    accuracy: float


class GroupInstance(_Group, total=False):
    """A likelihood or ask run's group as ``report`` and ``compare`` read it."""

    k: int
    synsets: list[str]
    words: list[str]
    definitions: list[str]
    contexts: list[str]
    scores: list[list[float]]
    assignment: list[int]
    predicted_pairs: list[tuple[int, int]]
    simple_accuracy: Optional[float]


class _ChooseGroup(TypedDict):
    item: str
    pos: str


class ChooseGroupItem(_ChooseGroup, total=False):
    """A choose run's asked group (its readings' blocks are read by ``readings``)."""

    contexts: list[str]
    definitions: list[str]
    shown: list[int]
    likelihood: dict[str, Any]
    generation: dict[str, Any]
    generation_lenient: dict[str, Any]
    likelihood_cyclic: dict[str, Any]


def unit_values(result: dict) -> list[Unit]:
    return [Unit(r["id"], TASK, r["pos"], {k: r[k] for k in ("accuracy", "simple_accuracy") if k in r})
            for r in result["instances"]]  # (people's groups: no simple matching)


def slices(result: dict, units: list[Unit]) -> dict[str, list[Unit]]:
    """The parts of speech ``--pos`` chose (also one whose groups were all skipped), then ``all``; people's
    results (no ``--pos``): the parts of speech answered."""
    pos = (result.get("config") or {}).get("pos")
    names = parts_of_speech(pos) if pos else sorted({u.pos for u in units})
    return {**{p: [u for u in units if u.pos == p] for p in names}, "all": list(units)}


def random_units(result: dict) -> list[Unit]:
    """The exact random baseline per group: a random alignment (or simple matching) gets 1/k right."""
    return [Unit(r["id"], TASK, r["pos"], {"accuracy": 1.0 / r["k"]}) for r in result["instances"]]


def sections(bench: Any, records: Any, method: str, config: dict) -> dict:
    """``contract.default_sections``, but a slice without a group (a part of speech whose groups were all
    skipped) has its metrics None and no random baseline (there is no expectation over no groups)."""
    sections = default_sections(bench, records, method, config)
    names = ("accuracy",) if method == "human" else ("accuracy", "simple_accuracy")  # (people: no simple matching)
    for task, by_slice in sections["metrics"].items():
        for name, m in by_slice.items():
            if m["n"] == 0:
                by_slice[name] = {**dict.fromkeys(names), "n": 0, "ci": {}}
                sections["baselines"].get("random", {}).get(task, {}).pop(name, None)
    return sections


def breakdown_by_k(records: list[dict], intervals: bool = True) -> dict[str, dict[str, Any]]:
    """Accuracy and the random baseline by group size k (``intervals``: with their ``ci``; people's: without)."""
    from lexprobe.stats.bootstrap import mean_intervals

    out: dict[str, dict[str, Any]] = {}
    for k in sorted({r["k"] for r in records}):
        accs = [r["accuracy"] for r in records if r["k"] == k]
        out[str(k)] = {"groups": len(accs), "accuracy": float(np.mean(accs)), "random_baseline": 1.0 / k}
        if intervals:
            out[str(k)]["ci"] = mean_intervals({"accuracy": accs, "random_baseline": [1.0 / k] * len(accs)})
    return out


FAILURE_COLUMNS = [("model", "Model"), ("task", "Data"), ("pos", "POS"), ("item", "Group"), ("score", "Accuracy (%)"),
                   ("details", "Alignment made (context → definition chosen)")]


def data_name(result: dict) -> str:
    from pathlib import Path

    data = (result.get("config") or {}).get("data")
    return Path(str(data)).stem if data else "CoDA21"


def failure_rows(result: dict) -> list[dict]:
    name, task = model_name(result), data_name(result)
    return [{**_row(task, f"{g['id']} {g.get('ancestor', '')}".strip(), g["accuracy"], g.get("k"),
                    g.get("predicted_pairs", []), g, True, "context {c} ({synset}) → definition {d}"),
             "model": name, "pos": g.get("pos", "")} for g in result["instances"]]


def _row(task: str, item: str, accuracy: float, k: Any, pairs: Any, g: dict, numbered: bool, plain: str,
         first: Sequence[str] = ()) -> dict:
    """An items-page row of one alignment: a line per (context, definition chosen) pair, marked right or wrong,
    with the texts where the record has them (``numbered``: with their numbers in the group), else ``plain``."""
    contexts, definitions, synsets, lines = g.get("contexts"), g.get("definitions"), g.get("synsets", []), list(first)
    for c, d in pairs:
        mark = "✓" if c == d else "✗"
        if contexts and definitions:
            context, definition = (f"context {c + 1}: ", f"definition {d + 1}: ") if numbered else ("", "")
            line = f"{mark} {context}{contexts[c]}\n    → {definition}{definitions[d]}"
            if c != d:
                line += f"\n    (gold: {definitions[c]})"
        else:
            line = f"{mark} " + plain.format(c=c + 1, d=d + 1, synset=synsets[c] if c < len(synsets) else "?")
        lines.append(line)
    return {"task": task, "item": item, "ok": accuracy == 1, "score": f"{100 * accuracy:.1f} (k={k})",
            "details": "\n".join(lines)}


def choose_rows(r: dict) -> list[dict]:
    task = data_name(r)

    def row(inst: dict, reading: str, text: str | None) -> dict:
        answer = inst[reading]
        return _row(task, inst["item"], answer["accuracy"], len(inst.get("shown", [])) or inst.get("k"),
                    enumerate(answer.get("assignment") or []), inst, False, "shown pair {c} → definition of pair {d}",
                    [answered(answer, text)] if reading in GENERATED else [])

    return item_rows(r, row, task)


def breakdown_figures(results: list[dict]) -> list:
    """Per CoDA21 data file: each result's accuracy by group size k (``breakdowns.alignment.by_k``) with its
    interval, and the random alignment's 1/k."""
    from lexprobe.core.contract import result_label, table_group
    from lexprobe.core.registry import get
    from lexprobe.tables import Breakdown, Series, interval_of, value_of

    out = []
    have = [r for r in results if (r.get("breakdowns") or {}).get("alignment", {}).get("by_k")]
    for group in dict.fromkeys(table_group(get(r['benchmark']), r) for r in have):
        members = [r for r in have if table_group(get(r['benchmark']), r) == group]
        ks = tuple(sorted({k for r in members for k in r["breakdowns"]["alignment"]["by_k"]}, key=int))
        series = [Series(result_label(get(r['benchmark']), r), ks,
                         tuple(value_of(r["breakdowns"]["alignment"]["by_k"].get(k), "accuracy") for k in ks),
                         tuple(interval_of(r["breakdowns"]["alignment"]["by_k"].get(k) or {}, "accuracy") for k in ks))
                  for r in members]
        chance = {k: v["random_baseline"] for r in members for k, v in r["breakdowns"]["alignment"]["by_k"].items()}
        series.append(Series("random alignment (1/k)", ks, tuple(chance.get(k) for k in ks), (None,) * len(ks),
                             "random"))
        counts = {k: int(members[0]["breakdowns"]["alignment"]["by_k"].get(k, {}).get("groups") or 0) for k in ks}
        out.append(Breakdown("coda21", f"CoDA21 {group}: accuracy by group size k",
                             (("accuracy by the number of synsets k in a group", tuple(series)),), (counts,), (),
                             "alignment accuracy (%)"))
    return out
