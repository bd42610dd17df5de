"""Stored answers → result files with the models' metrics, per participant and pooled.

A person picks one option, so WDLMPro results carry P@1 (rank score needs a full
ranking and is left empty: ``None``, never guessed); CoDA21 results carry the same
per-group alignment accuracy as the models. Results have the models' layout
(``benchmark``, ``model``, ``config``, ``metrics``, ``instances``), with
``model.kind = "human"``, so ``lexprobe report`` and ``lexprobe compare`` take them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

import numpy as np

from lexprobe.metrics.alignment import accuracy as alignment_accuracy
from lexprobe.metrics.alignment import random_baseline as alignment_random_baseline

POOLED = "pooled"


def _model(participant: str) -> dict:
    return {"name": f"human:{participant}", "kind": "human"}


def _config(item_set: dict, participant: str, answered: int, participants: Sequence[str]) -> dict:
    return {
        "protocol": "human", "subset": item_set["subset"], "seed": item_set["seed"], "set_id": item_set["set_id"],
        "source": item_set.get("source", ""), "participant": participant, "participants": list(participants),
        "answered": answered, "total": len(item_set["items"]) * max(1, len(participants)),
        "complete": answered == len(item_set["items"]) * max(1, len(participants)),
    }


# ------------------------------------------------------------------ WDLMPro


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
    return {"p_at_1": float(np.mean([r["correct"] for r in records])), "rank_score": None, "n": len(records)}


def wdlmpro_result(item_set: dict, answers: dict[str, dict[str, Any]], participant: str) -> dict:
    items = {it["id"]: it for it in item_set["items"]}
    who = sorted(answers) if participant == POOLED else [participant]
    records = [_choice_record(items[i], a, p) for p in who for i, a in answers.get(p, {}).items() if i in items]
    tasks = [t for t in ("w2d", "d2w") if any(it["task"] == t for it in item_set["items"])]
    metrics, baseline = {}, {}
    for task in tasks:
        recs = [r for r in records if r["task"] == task]
        metrics[task], baseline[task] = {}, {}
        for pos in sorted({r["pos"] for r in recs}) + ["all"]:
            sub = [r for r in recs if pos == "all" or r["pos"] == pos]
            metrics[task][pos] = _p_at_1(sub)
            sizes = [r["n_candidates"] for r in sub]
            baseline[task][pos] = {"p_at_1": float(np.mean([1 / s for s in sizes])) if sizes else None,
                                   "rank_score": 0.5 if sizes else None, "n": len(sizes)}
    return {
        "benchmark": "wdlmpro", "task": tasks, "model": _model(participant),
        "config": _config(item_set, participant, len(records), who),
        "metrics": metrics, "random_baseline": baseline, "breakdowns": {}, "instances": records,
    }


# ------------------------------------------------------------------ CoDA21


def _align_record(item: dict, answer: list[str], participant: str) -> dict:
    labels = [d["label"] for d in item["definitions"]]
    order = item["definition_order"]
    assignment = [order[labels.index(a)] for a in answer]  # original definition index of each context
    return {
        "id": item["id"], "pos": item["pos"], "k": len(item["contexts"]), "ancestor": item["ancestor"],
        "relation": item["relation"], "synsets": item["synsets"], "assignment": assignment,
        "predicted_pairs": [[c, d] for c, d in enumerate(assignment)],
        "accuracy": alignment_accuracy(assignment), "answer": answer, "participant": participant,
    }


def coda_result(item_set: dict, answers: dict[str, dict[str, Any]], participant: str) -> dict:
    items = {it["id"]: it for it in item_set["items"]}
    who = sorted(answers) if participant == POOLED else [participant]
    records = [_align_record(items[i], a, p) for p in who for i, a in answers.get(p, {}).items() if i in items]
    pos_list = sorted({it["pos"] for it in item_set["items"]})
    metrics = {}
    for key in pos_list + ["both"]:
        sub = [r for r in records if key == "both" or r["pos"] == key]
        metrics[key] = {
            "accuracy": float(np.mean([r["accuracy"] for r in sub])) if sub else None,
            "random_baseline": alignment_random_baseline([r["k"] for r in sub]) if sub else None,
            "groups": len(sub), "skipped": 0,
        }
    by_k = defaultdict(list)
    for r in records:
        by_k[r["k"]].append(r["accuracy"])
    return {
        "benchmark": "coda21", "task": "context-definition alignment", "model": _model(participant),
        "config": {**_config(item_set, participant, len(records), who), "align": "human"},
        "metrics": metrics,
        "breakdowns": {"by_k": {str(k): {"groups": len(v), "accuracy": float(np.mean(v)), "random_baseline": 1 / k}
                                for k, v in sorted(by_k.items())}},
        "skipped": [], "instances": records,
    }


def results_for(item_set: dict, answers: dict[str, dict[str, Any]]) -> dict[str, dict]:
    """{participant or "pooled": result} for one item set."""
    build = wdlmpro_result if item_set["benchmark"] == "wdlmpro" else coda_result
    out = {p: build(item_set, answers, p) for p in sorted(answers)}
    if len(answers) > 1:
        out[POOLED] = build(item_set, answers, POOLED)
    return out
