"""WDLMPro for people: the W2D/D2W item set of ``lexprobe human serve`` and people's answers as results.

A ``choice`` item per sheet question of ``human.sample_human`` (the paper's subsets); a person
picks one option, so the results carry P@1 (rank score needs a full ranking: ``None``, never
guessed), one file per task (the W2D and D2W subsets are different groups).
"""

from __future__ import annotations

from typing import Any, Sequence

from lexprobe.benchmarks.wdlmpro.human import TASKS, sample_human
from lexprobe.core.contract import Records, sections
from lexprobe.core.human_items import groups_digest, make_item_set
from lexprobe.core.human_score import POOLED, finish_person_result, person_config, person_model, who
from lexprobe.result_schema import new_result

#: the paper's human subset: 20 groups per task with at most 10 candidates
PAPER_SUBSET = {"n": 20, "max_candidates": 10}


def item_set(args: Any) -> dict:
    """``HumanItems.item_set``: the item set of ``lexprobe human`` from its options (the paper's subset)."""
    from lexprobe.benchmarks.wdlmpro import dataset as ds

    pos = args.pos or "both"
    groups = ds.load_dataset(args.data, pos) if args.data else ds.default_dataset(pos)
    n = PAPER_SUBSET["n"] if args.subset == "paper" else args.subset
    return wdlmpro_item_set(groups, n, args.max_candidates, 0 if args.seed is None else args.seed, str(args.subset))


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


def wdlmpro_result(bench: Any, item_set: dict, answers: dict[str, dict[str, Any]], participant: str,
                   task: str) -> dict:
    """One participant's (or the pooled) result on one task's subset: their records through the sections a
    model's run gets (``contract.sections``: P@1 and the random baseline per POS slice)."""
    items = {it["id"]: it for it in item_set["items"] if it["task"] == task}
    who = sorted(answers) if participant == POOLED else [participant]
    records = [_choice_record(items[i], a, p) for p in who for i, a in answers.get(p, {}).items() if i in items]
    config = {**person_config(item_set, list(items.values()), participant, len(records), who), "task": task}
    built = sections(bench, Records(records, tasks=[task]), "human", config)
    result = new_result("wdlmpro", person_model(participant), "human", "human", config, built)
    return finish_person_result(result, item_set["digests"][task], len(items), "target")


def wdlmpro_results(bench: Any, item_set: dict, answers: dict[str, dict[str, Any]]) -> dict[str, dict]:
    """{<task>-<participant>: result}."""
    tasks = [t for t in ("w2d", "d2w") if any(it["task"] == t for it in item_set["items"])]
    return {f"{t}-{p}": wdlmpro_result(bench, item_set, answers, p, t) for t in tasks for p in who(answers)}
