"""WDLMPro results: per-unit values, the random baseline and breakdowns, failure-page rows.

A unit is a target in one task (``w2d:dog.n.01``). The likelihood method's metrics are
``p_at_1`` and ``rank_score`` per task and POS slice (``evaluate`` averages the units'
values: ``contract.sections``), with the random baseline's expected values on the same
targets and breakdowns by frequency, depth and token bands; ask-to-choose results report
each answer reading (``likelihood.p_at_1``, ``generation.p_at_1``, ``generation.valid``,
...), one record per target and option order, and the random baseline over the options
shown.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Optional, TypedDict

from lexprobe.core.contract import Unit, mean_aggregate
from lexprobe.core.result_schema import model_name
from lexprobe.prompting.readings import GENERATED, answered, item_rows


class _Record(TypedDict):
    task: str
    target: str
    pos: str


class LikelihoodRecord(_Record, total=False):
    """One target in one task as the likelihood method records it (its resume log and the result's instances;
    a person's answer has the same shape), as ``report`` and ``compare`` read it."""

    word: str
    n_candidates: int
    gold_rank: Optional[int]
    rank_score: Optional[float]
    correct: Optional[bool]
    predicted: str
    gold_definition: str
    predicted_word: str
    predicted_definition: str
    skipped: str
    dropped: str
    truncated_definitions: int
    patterns: list[dict[str, Any]]


def unit_values(result: dict) -> list[Unit]:
    out = []
    for r in result["instances"]:
        rank = r.get("gold_rank")
        p1 = r.get("correct", None if rank is None else rank == 1)
        out.append(Unit(f"{r['task']}:{r['target']}", r["task"], r["pos"],
                        {"p_at_1": None if p1 is None else float(p1), "rank_score": r.get("rank_score")}))
    return out


def scored(result: dict) -> list[dict]:
    """A likelihood run's ranked instances (a target the recipe dropped has no rank; ``counts`` has it)."""
    return [r for r in result["instances"] if not r.get("dropped")]


def baseline_values(result: dict) -> dict[str, list[Unit]]:
    """The random baseline's exact expectation on each ranked target: P@1 = 1 / candidates, RS = 0.5."""
    return {"random": [Unit(f"{r['task']}:{r['target']}", r["task"], r["pos"],
                            {"p_at_1": 1.0 / r["n_candidates"], "rank_score": 0.5}) for r in scored(result)]}


#: a likelihood run's breakdowns, by the instance field that gives a target's band
BREAKDOWNS = {"pos": "pos", "frequency": "frequency_band", "depth": "depth_band", "word_tokens": "word_tokens"}


def token_band(n: int) -> str:
    return str(n) if n < 4 else "4+"


def band_order(name: str) -> tuple:
    """Frequency bands rare to frequent, then numeric bands (depth, tokens) by their first number."""
    order = {"rare": 0, "medium": 1, "frequent": 2}
    if name in order:
        return (0, order[name], name)
    digits = "".join(ch for ch in name.split("–")[0].split("-")[0] if ch.isdigit())
    return (1, int(digits) if digits else 10**6, name)


def breakdowns(result: dict) -> dict:
    """``{task: {breakdown: {pos: {band: figures}}}}`` of a likelihood run: per band, P@1 and RS beside the random
    baseline's (means with their intervals) and the mean number of candidates; none for
    another method (a person's answers)."""
    out: dict = {}
    if result["method"] != "likelihood":
        return out
    for task in result["tasks"]:
        recs = [r for r in scored(result) if r["task"] == task]
        out[task] = {}
        for name, key in BREAKDOWNS.items():
            for pos in sorted({r["pos"] for r in recs}):
                bands = defaultdict(list)
                for r in recs:
                    if r["pos"] == pos and key in r:
                        bands[token_band(r[key]) if name == "word_tokens" else str(r[key])].append(r)
                if bands:
                    out[task].setdefault(name, {})[pos] = {
                        band: _band(result, task, band, bands[band]) for band in sorted(bands, key=band_order)}
    return out


def _band(result: dict, task: str, band: str, recs: list[dict]) -> dict:
    units = [Unit(f"{task}:{r['target']}", task, r["pos"], {
        "p_at_1": float(r["gold_rank"] == 1), "rank_score": r["rank_score"],
        "random_p_at_1": 1.0 / r["n_candidates"], "random_rank_score": 0.5}) for r in recs]
    figures = mean_aggregate(result, task, band, units)
    return {**figures, "mean_candidates": sum(r["n_candidates"] for r in recs) / len(recs)}


FAILURE_COLUMNS = [("model", "Model"), ("task", "Task"), ("pos", "POS"), ("item", "Item"), ("gold", "Gold answer"),
                   ("chosen", "Chosen instead"), ("score", "Gold rank")]


def failure_rows(result: dict) -> list[dict]:
    """The items page's rows; a target the recipe dropped (the authors' static-vector filter) is not scored: in
    ``counts``, not a miss."""
    name = model_name(result)
    return [{**_row(i), "model": name, "pos": i.get("pos", "")} for i in scored(result)]


def _row(i: dict) -> dict:
    rank, n = i.get("gold_rank"), i.get("n_candidates")
    ok = i.get("correct", rank == 1)
    gold_def = i.get("gold_definition") or i["target"]
    chosen_def = i.get("predicted_definition") or i.get("predicted", "")
    if i["task"] == "d2w":
        item, gold, chosen = gold_def, i.get("word", i["target"]), i.get("predicted_word") or i.get("predicted", "")
    else:
        item, gold, chosen = i.get("word", i["target"]), gold_def, chosen_def
    if ok:
        chosen = ""
    elif i.get("predicted"):
        chosen = f"{chosen} ({i['predicted']})"
    return {"task": i["task"], "item": item, "gold": f"{gold} ({i['target']})", "chosen": chosen, "ok": bool(ok),
            "score": "" if rank is None else f"{rank} of {n}"}


def choose_rows(r: dict) -> list[dict]:
    """Rows of an ask-to-choose result; the model column names the reading, so it filters."""
    return item_rows(r, _choose_row)


def _choose_row(i: dict, reading: str, text: str | None) -> dict:
    options = i.get("options") or []
    order = i["order"]
    answer = i[reading]

    def option(candidate: int | None) -> str:
        if candidate is None:
            return ""
        at = order.index(candidate)
        return f"option {at + 1}: {options[at]}" if at < len(options) else f"option {at + 1}"

    ok = bool(answer["correct"])
    if reading in GENERATED:
        chosen = answered(answer, text) + ("" if answer.get("choice") is None else f" → {option(answer['choice'])}")
        score = "right" if ok else (answer.get("failure") or "wrong").replace("_", " ")
    else:
        chosen = "" if ok else option(answer.get("choice"))
        score = f"{answer['gold_rank']} of {len(order)}"
    item = i.get("word", "") if i["task"] == "w2d" else i.get("definition", f"the definition of {i['target']}")
    return {"task": i["task"], "item": item, "gold": f"{option(0)} ({i['target']})", "chosen": chosen, "ok": ok,
            "score": score}
