"""CoDA21 asked as a matching question: k numbered contexts (target hidden), k lettered definitions.

Each (group, permutation) is one prompt, contexts and definitions each listed in
their own seeded order. Likelihood reading: for context row c, the log-probability
of every definition letter after the prompt and `` c:`` — a k x k matrix solved with
the benchmark's optimal alignment (``lexprobe.metrics.alignment``, with the same
tie-break order as ``coda eval``); the k rows share one forward pass over the prompt
(and one short pass over the k x k row-and-letter continuations). Generation
reading: the greedy answer ``1: B, 2: A, ...`` parsed strictly; an invalid answer
scores 0 for the whole group.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

import numpy as np

from lexprobe.benchmarks.coda21.dataset import replace_target
from lexprobe.errors import DataError
from lexprobe.metrics import alignment as al
from lexprobe.protocols.choose import (
    ChooseConfig, agreement, check_scorer, generation_summary, item_means, read_answers, reading_intervals, run_units,
    too_long,
)
from lexprobe.protocols.options import option_order, sample_candidates
from lexprobe.protocols.parse import parse_matching
from lexprobe.protocols.templates import BLANK, build_prompt, coda_question, option_labels
from lexprobe.run_record import finish_result
from lexprobe.stats.bootstrap import mean_intervals


def answer_tokens(k: int) -> int:
    return 6 * k + 8  # "12: C, " is at most ~6 tokens per pair


def build_items(groups, config: ChooseConfig, tokenizer=None) -> list[dict]:
    items = []
    for g in groups:
        shown = sample_candidates(g.k, config.max_candidates, config.seed, g.id, keep=None)
        for p in range(config.permutations):
            ctx_order = option_order(shown, config.seed, g.id, p, "contexts")
            def_order = option_order(shown, config.seed, g.id, p, "definitions")
            contexts = [replace_target(g.candidates[i].context, g.candidates[i].word, BLANK) for i in ctx_order]
            definitions = [g.candidates[i].definition for i in def_order]
            prompt = build_prompt(config.template, coda_question(config.template, contexts, definitions),
                                  tokenizer, config.chat)
            items.append({"item": g.id, "id": g.id, "pos": g.pos, "k": g.k, "permutation": p, "shown": shown,
                          "context_order": ctx_order, "definition_order": def_order, "prompt": prompt,
                          # the shown pairs' texts (shown order), for the report's failure pages
                          "contexts": [replace_target(g.candidates[i].context, g.candidates[i].word, BLANK)
                                       for i in shown],
                          "definitions": [g.candidates[i].definition for i in shown]})
    return items


def score_items(scorer, items: list[dict], config: ChooseConfig) -> list[dict]:
    t = config.template
    runnable = []
    for it in items:
        reason = too_long(scorer, it["prompt"], config, answer_tokens(len(it["shown"])))
        if reason:
            it["skipped"] = reason
        else:
            runnable.append(it)
    sizes = [len(it["shown"]) for it in runnable]
    max_new = max((answer_tokens(m) for m in sizes), default=1)
    logps, texts = read_answers(  # row c of an item: its prompt + " c:", then each definition letter
        scorer, [it["prompt"] for it in runnable], [[" " + x for x in option_labels(m, "letters")] for m in sizes],
        config, max_new, prefixes=[[t.coda_row.format(context=c + 1) for c in range(m)] for m in sizes],
    ) if runnable else (None, None)
    for j, it in enumerate(runnable):
        m = len(it["shown"])
        where = {cand: a for a, cand in enumerate(it["shown"])}
        ctx_pos = [where[c] for c in it["context_order"]]  # presented row -> shown index
        def_pos = [where[d] for d in it["definition_order"]]
        if logps is not None:
            matrix = np.empty((m, m))
            for i in range(m):
                matrix[ctx_pos[i], def_pos] = logps[j][i]
            order = al.tie_break_order(f"{it['id']}:{it['permutation']}", m)
            assignment = al.align(matrix, "optimal", order)
            it["likelihood"] = {"label_logprobs": np.round(matrix, 6).tolist(), "assignment": assignment.tolist(),
                                "accuracy": al.accuracy(assignment)}
        if texts is not None:
            parsed = parse_matching(texts[j], m)
            assignment = None
            if parsed.ok:
                assignment = [0] * m
                for i, d in enumerate(parsed.answer):
                    assignment[ctx_pos[i]] = def_pos[d]
            it["generation"] = {"text": texts[j], "assignment": assignment, "failure": parsed.failure,
                                "accuracy": al.accuracy(assignment) if assignment is not None else 0.0}
    for it in items:
        it.pop("prompt")
    return items


def evaluate_choose(data, scorer, config: ChooseConfig = ChooseConfig(), pos: str = "both", limit: int | None = None,
                    out: str | Path | None = None, progress: bool = True, groups_per_unit: int = 16) -> dict:
    """Ask ``scorer`` every CoDA21 group as one matching question; returns the result dict."""
    config.validate()
    check_scorer(scorer, config)
    pos_list = ("n", "v") if pos == "both" else (pos,)
    groups, problems = [], []
    for p in pos_list:
        chosen = data.by_pos(p)
        for g in chosen[:limit] if limit is not None else chosen:
            try:
                for c in g.candidates:
                    replace_target(c.context, c.word, BLANK)
                groups.append(g)
            except ValueError as err:
                problems.append({"group": g.id, "reason": str(err)})
    if not groups:
        raise DataError("no CoDA21 groups to evaluate; check --data, --pos and --limit")
    started = time.time()
    run_config = {"benchmark": "coda21", "config": config.record(), "scorer": scorer.describe(),
                  "groups": [g.id for g in groups], "data": data.source}
    units = [(f"{chunk[0].id}..{chunk[-1].id}", chunk)
             for chunk in (groups[i:i + groups_per_unit] for i in range(0, len(groups), groups_per_unit))]
    records = run_units(units, lambda chunk: score_items(scorer, build_items(chunk, config, scorer.tokenizer), config),
                        out, run_config, f"CoDA21 choose {scorer.name}", progress)
    metrics = {key: summarise([r for r in records if key == "both" or r["pos"] == key])
               for key in list(pos_list) + ["both"]}
    result = finish_result(scorer=scorer, items=groups, unit="group", result={
        "benchmark": "coda21", "task": "context-definition alignment (ask to choose)",
        "model": scorer.describe(), "config": {**config.record(), "pos": pos, "limit": limit, "data": data.source},
        "metrics": metrics, "skipped": problems, "instances": records})
    result["timing"] = {"seconds": round(time.time() - started, 2), "scorer_stats": dict(scorer.stats)}
    return result


def summarise(records: Sequence[dict]) -> dict:
    asked = [r for r in records if "skipped" not in r]
    out: dict = {"n": len(asked), "skipped": len(records) - len(asked),
                 "random_baseline": al.random_baseline([len(r["shown"]) for r in asked]) if asked else None}
    lik = [r["likelihood"] for r in asked if "likelihood" in r]
    if lik:
        out["likelihood"] = {"accuracy": float(np.mean([x["accuracy"] for x in lik])), "n": len(lik),
                             "agreement": agreement(asked, "likelihood", "assignment"),
                             "ci": reading_intervals(asked, "likelihood", {"accuracy": lambda x: x["accuracy"]})}
    if any("generation" in r for r in asked):
        out["generation"] = dict(generation_summary(asked, "accuracy"),
                                 agreement=agreement(asked, "generation", "assignment"),
                                 ci=reading_intervals(asked, "generation", {
                                     "accuracy": lambda x: x["accuracy"], "valid": lambda x: float(x["failure"] is None)}))
    if asked:
        out["ci"] = mean_intervals({"random_baseline": item_means(asked, lambda r: 1.0 / len(r["shown"]))})
    return out


def format_choose(result: dict) -> str:
    from lexprobe.reporting import format_table

    rows = []
    for key, m in result["metrics"].items():
        lik, gen = m.get("likelihood", {}), m.get("generation", {})
        rows.append([key, m["n"], lik.get("accuracy"), gen.get("accuracy"), gen.get("valid"),
                     m["random_baseline"], m["skipped"]])
    c = result["config"]
    title = (f"CoDA21, ask to choose ({c['template']['name']} template{', chat' if c['chat'] else ''}, "
             f"<= {c['max_candidates']} pairs, {c['permutations']} order(s)): alignment accuracy")
    return format_table(["pos", "asked", "label accuracy", "generated accuracy", "parsed", "random", "skipped"],
                        rows, title=title)
