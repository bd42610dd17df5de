"""WDLMPro for people: the W2D/D2W item set of ``lexprobe human serve`` and people's answers as results.

A ``choice`` item per sheet question of ``human.sample_human`` (the paper's subsets); a person
picks one option, so the results carry P@1 (rank score needs a full ranking: ``None``, never
guessed), one file per task (the W2D and D2W subsets are different groups).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from lexprobe.benchmarks.wdlmpro.human import TASKS, sample_human
from lexprobe.benchmarks.wdlmpro.results import upgrade
from lexprobe.human.items import groups_digest, make_item_set
from lexprobe.human.score import POOLED, finish_person_result, person_config, person_model, who
from lexprobe.stats.bootstrap import mean_intervals

#: the paper's human subset: 20 groups per task with at most 10 candidates
PAPER_SUBSET = {"n": 20, "max_candidates": 10}


def wdlmpro_item_set(groups: Sequence, n: int, max_candidates: int, seed: int, subset: str) -> dict:
    """W2D and D2W items from ``wdlmpro.human.sample_human`` (the same sheets as on paper)."""
    sample = sample_human(groups, n=n, max_candidates=max_candidates, seed=seed)
    items, digests = [], {}
    for task in TASKS:
        digests[task] = groups_digest(sample[task]["groups"])
        for group, item in zip(sample[task]["groups"], sample[task]["items"]):
            items.append({
                "id": f"{task}/{item['item']}",
                "kind": "choice",
                "task": task,
                "pos": group.pos,
                "prompt": item["prompt"],
                "options": [{"label": o["label"], "text": o["text"], "synset": o["synset"]} for o in item["options"]],
                "answer": item["answer"],
                "target": group.target,
                "word": group.word,
            })
    return make_item_set("wdlmpro", subset, seed, items, digests)


def _choice_record(item: dict, answer: str, participant: str) -> dict:
    chosen = next(o for o in item["options"] if o["label"] == answer)
    correct = answer == item["answer"]
    return {
        "task": item["task"], "target": item["target"], "pos": item["pos"], "word": item["word"],
        "n_candidates": len(item["options"]), "gold_rank": 1 if correct else None, "correct": correct,
        "rank_score": None, "predicted": chosen["synset"], "answer": answer, "participant": participant,
    }


def _p_at_1(records: Sequence[dict]) -> dict:
    if not records:
        return {"p_at_1": None, "rank_score": None, "n": 0}
    correct = [float(r["correct"]) for r in records]
    return {"p_at_1": float(np.mean(correct)), "rank_score": None, "n": len(records),
            "ci": mean_intervals({"p_at_1": correct})}


def wdlmpro_result(item_set: dict, answers: dict[str, dict[str, Any]], participant: str, task: str) -> dict:
    """One participant's (or the pooled) result on one task's subset."""
    items = {it["id"]: it for it in item_set["items"] if it["task"] == task}
    who = sorted(answers) if participant == POOLED else [participant]
    records = [_choice_record(items[i], a, p) for p in who for i, a in answers.get(p, {}).items() if i in items]
    metrics: dict[str, dict] = {task: {}}
    baseline: dict[str, dict] = {task: {}}
    for pos in sorted({r["pos"] for r in records}) + ["all"]:
        sub = [r for r in records if pos == "all" or r["pos"] == pos]
        metrics[task][pos] = _p_at_1(sub)
        chance = [1 / r["n_candidates"] for r in sub]
        baseline[task][pos] = {"p_at_1": float(np.mean(chance)) if sub else None,
                               "rank_score": 0.5 if sub else None, "n": len(sub),
                               "ci": mean_intervals({"p_at_1": chance})}
    result = {
        "benchmark": "wdlmpro", "task": [task], "model": person_model(participant),
        "config": {**person_config(item_set, list(items.values()), participant, len(records), who), "task": task},
        "metrics": metrics, "random_baseline": baseline, "breakdowns": {}, "instances": records,
    }
    return finish_person_result(result, item_set["digests"][task], len(items), "target")


def wdlmpro_results(item_set: dict, answers: dict[str, dict[str, Any]]) -> dict[str, dict]:
    """{<task>-<participant>: result} in schema 2."""
    tasks = [t for t in ("w2d", "d2w") if any(it["task"] == t for it in item_set["items"])]
    return {f"{t}-{p}": upgrade(wdlmpro_result(item_set, answers, p, t)) for t in tasks for p in who(answers)}


