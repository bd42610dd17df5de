"""Stored answers → result files with the models' metrics, per participant and pooled.

A person picks one option, so WDLMPro results carry P@1 (rank score needs a full
ranking and is left empty: ``None``, never guessed); CoDA21 results carry the same
per-group alignment accuracy as the models. Results have the models' layout
(``benchmark``, ``model``, ``config``, ``metrics`` with bootstrap ``ci``, ``run``,
``instances``), with ``model.kind = "human"``, so ``lexprobe report`` and ``lexprobe
compare`` take them. WDLMPro gets one file per task: the W2D and D2W subsets are
different groups, and a model evaluated on ``human_<task>.jsonl`` has the same items
(and the same ``run.items_digest``) as the people's file of that task.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

import numpy as np

from lexprobe.metrics.alignment import accuracy as alignment_accuracy
from lexprobe.metrics.alignment import random_baseline as alignment_random_baseline
from lexprobe.stats.bootstrap import describe as describe_intervals
from lexprobe.stats.bootstrap import mean_intervals

POOLED = "pooled"


def _model(participant: str) -> dict:
    return {"name": f"human:{participant}", "kind": "human"}


def _config(item_set: dict, items: Sequence[dict], participant: str, answered: int,
            participants: Sequence[str]) -> dict:
    total = len(items) * max(1, len(participants))
    return {
        "protocol": "human", "subset": item_set["subset"], "seed": item_set["seed"], "set_id": item_set["set_id"],
        "source": item_set.get("source", ""), "participant": participant, "participants": list(participants),
        "answered": answered, "total": total, "complete": answered == total,
    }


def _finish(result: dict, digest: str, n_items: int, unit: str) -> dict:
    from lexprobe.run_record import run_record

    run = run_record(None, [], result["config"])
    run.update(model=result["model"]["name"], model_kind="human", model_revision=None,
               items_digest=digest, n_items=n_items)
    result["run"] = run
    result["intervals"] = describe_intervals(unit)
    return result


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
    correct = [float(r["correct"]) for r in records]
    return {"p_at_1": float(np.mean(correct)), "rank_score": None, "n": len(records),
            "ci": mean_intervals({"p_at_1": correct})}


def wdlmpro_result(item_set: dict, answers: dict[str, dict[str, Any]], participant: str, task: str) -> dict:
    """One participant's (or the pooled) result on one task's subset."""
    items = {it["id"]: it for it in item_set["items"] if it["task"] == task}
    who = sorted(answers) if participant == POOLED else [participant]
    records = [_choice_record(items[i], a, p) for p in who for i, a in answers.get(p, {}).items() if i in items]
    metrics, baseline = {task: {}}, {task: {}}
    for pos in sorted({r["pos"] for r in records}) + ["all"]:
        sub = [r for r in records if pos == "all" or r["pos"] == pos]
        metrics[task][pos] = _p_at_1(sub)
        chance = [1 / r["n_candidates"] for r in sub]
        baseline[task][pos] = {"p_at_1": float(np.mean(chance)) if sub else None,
                               "rank_score": 0.5 if sub else None, "n": len(sub),
                               "ci": mean_intervals({"p_at_1": chance})}
    result = {
        "benchmark": "wdlmpro", "task": [task], "model": _model(participant),
        "config": {**_config(item_set, list(items.values()), participant, len(records), who), "task": task},
        "metrics": metrics, "random_baseline": baseline, "breakdowns": {}, "instances": records,
    }
    return _finish(result, item_set["digests"][task], len(items), "target")


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
            "ci": mean_intervals({"accuracy": [r["accuracy"] for r in sub],
                                  "random_baseline": [1.0 / r["k"] for r in sub]}),
        }
    by_k = defaultdict(list)
    for r in records:
        by_k[r["k"]].append(r["accuracy"])
    result = {
        "benchmark": "coda21", "task": "context-definition alignment", "model": _model(participant),
        "config": {**_config(item_set, item_set["items"], participant, len(records), who), "align": "human"},
        "metrics": metrics,
        "breakdowns": {"by_k": {str(k): {"groups": len(v), "accuracy": float(np.mean(v)), "random_baseline": 1 / k}
                                for k, v in sorted(by_k.items())}},
        "skipped": [], "instances": records,
    }
    return _finish(result, item_set["digests"]["alignment"], len(items), "group")


def _who(answers: dict) -> list[str]:
    return sorted(answers) + ([POOLED] if len(answers) > 1 else [])


def coda_results(item_set: dict, answers: dict[str, dict[str, Any]]) -> dict[str, dict]:
    """{participant: result} (``pooled``: all participants together), in schema 2."""
    from lexprobe.benchmarks.coda21.results import upgrade

    return {p: upgrade(coda_result(item_set, answers, p)) for p in _who(answers)}


def wdlmpro_results(item_set: dict, answers: dict[str, dict[str, Any]]) -> dict[str, dict]:
    """{<task>-<participant>: result} in schema 2."""
    from lexprobe.benchmarks.wdlmpro.results import upgrade

    tasks = [t for t in ("w2d", "d2w") if any(it["task"] == t for it in item_set["items"])]
    return {f"{t}-{p}": upgrade(wdlmpro_result(item_set, answers, p, t)) for t in tasks for p in _who(answers)}


def results_for(item_set: dict, answers: dict[str, dict[str, Any]]) -> dict[str, dict]:
    """{name: result} for one item set, from its benchmark (``Benchmark.human_results``); name is
    ``<participant>`` (CoDA21) or ``<task>-<participant>`` (WDLMPro), ``pooled`` for all together."""
    from lexprobe.benchmarks.registry import get

    return get(item_set["benchmark"]).human_results(item_set, answers)
