"""WDLMPro asked as multiple choice: W2D (word -> which definition) and D2W (definition -> which word).

Each (group, task, permutation) is one prompt. The shown candidates (the gold one
always among them) are listed in a seeded order and read as one right option among k
(``prompting.choice``: the readings, cyclic debiasing, ties).
A unit of the resume log is one target (both tasks, every order); the run loop is the generic
``prompting.method.ChooseMethod`` (``benchmark.Choose`` says what a WDLMPro unit is).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from lexprobe.metrics.ranking import random_expectation
from lexprobe.prompting.choice import presented, prompts
from lexprobe.prompting.choose import (
    ChooseConfig,
    agreement,
    generation_summary,
    item_means,
    position_bias,
    reading_intervals,
    readings_present,
)
from lexprobe.prompting.options import sample_candidates
from lexprobe.prompting.templates import Template, build_prompt, option_labels, option_lines
from lexprobe.stats.bootstrap import mean_intervals

TASKS = ("w2d", "d2w")
ANSWER_TOKENS = 8  # "12" and a little room: the first line is all that is read


def w2d_question(t: Template, word: str, definitions: Sequence[str]) -> str:
    labels = option_labels(len(definitions), t.labels)
    return t.w2d.format(word=word, options=option_lines(t, labels, definitions), n=len(definitions))


def d2w_question(t: Template, definition: str, words: Sequence[str]) -> str:
    labels = option_labels(len(words), t.labels)
    return t.d2w.format(definition=definition, options=option_lines(t, labels, words), n=len(words))


def item_prompt(group, task: str, order: Sequence[int], config: ChooseConfig, tokenizer=None) -> str:
    t = config.template
    if task == "w2d":
        question = w2d_question(t, group.word, [group.candidates[i].definition for i in order])
    else:
        question = d2w_question(t, group.definition, [group.candidates[i].word for i in order])
    return build_prompt(t, question, tokenizer, config.chat)


def build_items(groups, tasks: Sequence[str], config: ChooseConfig, tokenizer=None) -> list[dict]:
    items = []
    for g in groups:
        shown = sample_candidates(len(g.candidates), config.max_candidates, config.seed, g.target, keep=0)
        for task in tasks:
            for p, r, order in presented(shown, config, f"{task}:{g.target}"):
                item = {
                    "item": f"{task}:{g.target}", "task": task, "target": g.target, "pos": g.pos,
                    "word": g.word, "permutation": p, "n_candidates": len(g.candidates), "order": order,
                    "gold_position": order.index(0),
                    "definition": g.definition,  # the report's failure pages show the texts
                    "options": [g.candidates[i].definition if task == "w2d" else g.candidates[i].word
                                for i in order],
                    "prompt": item_prompt(g, task, order, config, tokenizer),
                }
                if config.cyclic:
                    item["rotation"] = r
                items.append(item)
    return items


def prompts_per_group(group, tasks: Sequence[str], config: ChooseConfig) -> int:
    return len(tasks) * prompts(min(len(group.candidates), config.max_candidates or len(group.candidates)), config)


def summarise(records: Sequence[dict]) -> dict:
    asked = [r for r in records if "skipped" not in r]
    out: dict = {"n": len(asked), "skipped": len(records) - len(asked)}
    lik = [r["likelihood"] for r in asked if "likelihood" in r]
    if lik:
        out["likelihood"] = {"p_at_1": float(np.mean([x["correct"] for x in lik])),
                             "rank_score": float(np.mean([x["rank_score"] for x in lik])), "n": len(lik),
                             "agreement": agreement(asked, "likelihood", "choice"),
                             "ci": reading_intervals(asked, "likelihood", {
                                 "p_at_1": lambda x: float(x["correct"]), "rank_score": lambda x: x["rank_score"]})}
    cyc = [r["likelihood_cyclic"] for r in asked if "likelihood_cyclic" in r]
    if cyc:
        out["likelihood_cyclic"] = {
            "p_at_1": float(np.mean([x["correct"] for x in cyc])),
            "rank_score": float(np.mean([x["rank_score"] for x in cyc])), "n": len(cyc),
            "agreement": agreement(asked, "likelihood_cyclic", "choice"),
            "ci": reading_intervals(asked, "likelihood_cyclic", {
                "p_at_1": lambda x: float(x["correct"]), "rank_score": lambda x: x["rank_score"]})}
    for reading in ("generation", "generation_lenient"):
        if any(reading in r for r in asked):
            gen = generation_summary(asked, "correct", reading)
            gen["p_at_1"] = gen.pop("correct")
            gen["agreement"] = agreement(asked, reading, "choice")
            gen["ci"] = reading_intervals(asked, reading, {
                "p_at_1": lambda x: float(x["correct"]), "valid": lambda x: float(x["failure"] is None)})
            out[reading] = gen
    out["readings"] = readings_present(asked)
    out["position_bias"] = position_bias(asked, lambda r: [r["gold_position"]])
    shown = [len(r["order"]) for r in asked]
    out["random"] = {k: v for k, v in random_expectation(shown).items() if k != "n"} if shown else None
    if shown:
        out["random"]["ci"] = mean_intervals({"p_at_1": item_means(asked, lambda r: 1.0 / len(r["order"])),
                                              "rank_score": item_means(asked, lambda r: 0.5)})
    return out


def result_dict(scorer, tasks, records, config: ChooseConfig) -> dict:
    by_task = defaultdict(list)
    for r in records:
        by_task[r["task"]].append(r)
    metrics = {}
    for task in tasks:
        recs = by_task[task]
        metrics[task] = {pos: summarise([r for r in recs if pos == "all" or r["pos"] == pos])
                         for pos in sorted({r["pos"] for r in recs}) + ["all"]}
    return {"benchmark": "wdlmpro", "task": list(tasks), "model": scorer.describe(), "config": config.record(),
            "metrics": metrics, "instances": records}
