"""WDLMPro asked as multiple choice: W2D (word -> which definition) and D2W (definition -> which word).

Each (group, task, permutation) is one prompt. The shown candidates (the gold one
always among them) are listed in a seeded order; the likelihood reading takes the
option whose label is most probable after the prompt (and the gold option's rank,
for the rank score), the generation readings parse the greedy answer strictly and
leniently (``parse``). With ``--debias cyclic`` every permutation is also asked in
its other n - 1 cyclic orders (likelihood only); ``likelihood_cyclic`` of the first
order's record reads the option probabilities averaged over the n orders (``debias``).
Ties in label likelihood follow ``lexprobe.metrics.ranking``: never in the model's favour.
A unit of the resume log is one target (both tasks, every order); the run loop is the generic
``prompting.method.ChooseMethod`` (``benchmark.Choose`` says what a WDLMPro unit is).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from lexprobe.metrics.ranking import gold_rank, predicted_index, random_expectation, rank_score
from lexprobe.prompting.choose import (
    ChooseConfig,
    agreement,
    generation_summary,
    item_means,
    position_bias,
    read_answers,
    reading_intervals,
    readings_present,
    too_long,
)
from lexprobe.prompting.debias import debiased, rotations
from lexprobe.prompting.options import option_order, sample_candidates
from lexprobe.prompting.parse import parse_choice, parse_choice_lenient
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
            for p in range(config.permutations):
                base = option_order(shown, config.seed, f"{task}:{g.target}", p)
                for r, order in enumerate(rotations(base) if config.cyclic else [base]):
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
    shown = min(len(group.candidates), config.max_candidates or len(group.candidates))
    return len(tasks) * config.permutations * (shown if config.cyclic else 1)


def score_items(scorer, items: list[dict], config: ChooseConfig) -> list[dict]:
    runnable = []
    for it in items:
        reason = too_long(scorer, it["prompt"], config, ANSWER_TOKENS)
        if reason:
            it["skipped"] = reason
        else:
            runnable.append(it)
    logps, texts = read_answers(
        scorer, [it["prompt"] for it in runnable],
        [[" " + lab for lab in option_labels(len(it["order"]), config.template.labels)] for it in runnable],
        config, ANSWER_TOKENS, generate=[it.get("rotation", 0) == 0 for it in runnable],
    ) if runnable else (None, None)
    for j, it in enumerate(runnable):
        n, gold = len(it["order"]), it["gold_position"]
        if logps is not None:
            lp = logps[j]
            pick = predicted_index(lp, gold=gold)
            k = gold_rank(lp, gold=gold)
            it["likelihood"] = {"label_logprobs": np.round(lp, 6).tolist(), "choice": it["order"][pick],
                                "correct": pick == gold, "gold_rank": k, "rank_score": rank_score(n, k),
                                "positions": [int(pick)]}
        if texts is not None and texts[j] is not None:
            strict = parse_choice(texts[j], n, config.template.labels)
            lenient = parse_choice_lenient(texts[j], it["options"], config.template.labels)
            it["generation"] = dict(_generated(it, strict), text=texts[j])
            it["generation_lenient"] = _generated(it, lenient)
    if logps is not None and config.cyclic:
        _debias(runnable, logps)
    for it in items:
        it.pop("prompt")
    return items


def _generated(item: dict, parsed) -> dict:
    return {"choice": item["order"][parsed.answer] if parsed.ok else None, "failure": parsed.failure,
            "correct": parsed.ok and parsed.answer == item["gold_position"], "positions": [parsed.answer]}


def _debias(items: list[dict], logps) -> None:
    """``likelihood_cyclic`` on each first-order record: option probabilities averaged over its cyclic orders."""
    orders: dict = defaultdict(list)
    for it, lp in zip(items, logps):
        orders[(it["item"], it["permutation"])].append((it, lp))
    for asked in orders.values():
        first = next((it for it, _ in asked if it["rotation"] == 0), None)
        if first is None or len(asked) < len(first["order"]):
            continue  # an order too long to ask: no debiased reading for this item
        shown = sorted(first["order"])
        probs = debiased([lp for _, lp in asked], [it["order"] for it, _ in asked], shown)
        gold = shown.index(0)
        logp = np.log(probs)
        pick, k = predicted_index(logp, gold=gold), gold_rank(logp, gold=gold)
        first["likelihood_cyclic"] = {"probabilities": np.round(probs, 6).tolist(), "options": shown,
                                      "choice": shown[pick], "correct": pick == gold, "gold_rank": k,
                                      "rank_score": rank_score(len(shown), k)}


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
