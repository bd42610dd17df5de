"""WDLMPro asked as multiple choice: W2D (word -> which definition) and D2W (definition -> which word).

Each (group, task, permutation) is one prompt. The shown candidates (the gold one
always among them) are listed in a seeded order; the likelihood reading takes the
option whose label is most probable after the prompt (and the gold option's rank,
for the rank score), the generation reading parses the greedy answer strictly.
Ties in label likelihood follow ``lexprobe.metrics.ranking``: never in the model's favour.
"""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Sequence

import numpy as np

from lexprobe.errors import DataError
from lexprobe.metrics.ranking import gold_rank, predicted_index, random_expectation, rank_score
from lexprobe.protocols.choose import (
    ChooseConfig, agreement, check_scorer, generation_summary, item_means, read_answers, reading_intervals, run_units,
    too_long,
)
from lexprobe.protocols.options import option_order, sample_candidates
from lexprobe.protocols.parse import parse_choice
from lexprobe.protocols.templates import build_prompt, d2w_question, option_labels, w2d_question
from lexprobe.run_record import finish_result
from lexprobe.stats.bootstrap import mean_intervals

TASKS = ("w2d", "d2w")
ANSWER_TOKENS = 8  # "12" and a little room: the first line is all that is read


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
                order = option_order(shown, config.seed, f"{task}:{g.target}", p)
                items.append({
                    "item": f"{task}:{g.target}", "task": task, "target": g.target, "pos": g.pos, "word": g.word,
                    "permutation": p, "n_candidates": len(g.candidates), "order": order,
                    "gold_position": order.index(0),
                    "definition": g.definition,  # the report's failure pages show the texts
                    "options": [g.candidates[i].definition if task == "w2d" else g.candidates[i].word for i in order],
                    "prompt": item_prompt(g, task, order, config, tokenizer),
                })
    return items


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
        config, ANSWER_TOKENS,
    ) if runnable else (None, None)
    for j, it in enumerate(runnable):
        n, gold = len(it["order"]), it["gold_position"]
        if logps is not None:
            lp = logps[j]
            pick = predicted_index(lp, gold=gold)
            k = gold_rank(lp, gold=gold)
            it["likelihood"] = {"label_logprobs": np.round(lp, 6).tolist(), "choice": it["order"][pick],
                                "correct": pick == gold, "gold_rank": k, "rank_score": rank_score(n, k)}
        if texts is not None:
            parsed = parse_choice(texts[j], n, config.template.labels)
            choice = it["order"][parsed.answer] if parsed.ok else None
            it["generation"] = {"text": texts[j], "choice": choice, "failure": parsed.failure,
                                "correct": parsed.ok and parsed.answer == gold}
    for it in items:
        it.pop("prompt")
    return items


def evaluate_choose(scorer, groups, tasks: Sequence[str] = TASKS, config: ChooseConfig = ChooseConfig(),
                    out: str | Path | None = None, chunk_size: int = 100, progress: bool = True) -> dict:
    """Ask ``scorer`` every group as a multiple-choice question; returns the result dict."""
    config.validate()
    check_scorer(scorer, config)
    if not groups:
        raise DataError("no WDLMPro groups to evaluate; check --data, --pos and --limit")
    started = time.time()
    units = [(f"{start}:{start + chunk_size}", groups[start:start + chunk_size])
             for start in range(0, len(groups), chunk_size)]
    run_config = {"benchmark": "wdlmpro", "config": config.record(), "tasks": list(tasks),
                  "scorer": scorer.describe(), "chunk": chunk_size}

    def unit(chunk):
        return score_items(scorer, build_items(chunk, tasks, config, scorer.tokenizer), config)

    records = run_units(units, unit, out, run_config, f"WDLMPro choose {scorer.name}", progress)
    result = finish_result(result_dict(scorer, tasks, records, config), scorer, groups, unit="target")
    result["timing"] = {"seconds": round(time.time() - started, 2), "scorer_stats": dict(scorer.stats)}
    return result


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
    if any("generation" in r for r in asked):
        gen = generation_summary(asked, "correct")
        gen["p_at_1"] = gen.pop("correct")
        gen["agreement"] = agreement(asked, "generation", "choice")
        gen["ci"] = reading_intervals(asked, "generation", {
            "p_at_1": lambda x: float(x["correct"]), "valid": lambda x: float(x["failure"] is None)})
        out["generation"] = gen
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


def format_choose(result: dict) -> str:
    from lexprobe.reporting import format_table

    rows = []
    for task, by_pos in result["metrics"].items():
        for pos, m in by_pos.items():
            lik, gen = m.get("likelihood", {}), m.get("generation", {})
            rnd = m.get("random") or {}
            rows.append([task.upper(), pos, m["n"], lik.get("p_at_1"), lik.get("rank_score"), gen.get("p_at_1"),
                         gen.get("valid"), rnd.get("p_at_1"), m["skipped"]])
    c = result["config"]
    title = (f"WDLMPro, ask to choose ({c['template']['name']} template{', chat' if c['chat'] else ''}, "
             f"<= {c['max_candidates']} options, {c['permutations']} order(s)): P@1 as a fraction")
    return format_table(["task", "pos", "asked", "label P@1", "label RS", "generated P@1", "parsed",
                         "random P@1", "skipped"], rows, title=title)
