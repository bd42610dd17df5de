"""CoDA21 asked as a matching question: k numbered contexts (target hidden), k lettered definitions.

Each (group, permutation) is one prompt, contexts and definitions each in their own seeded order. Likelihood
reading: for context row c, the log-probability of every definition letter after the prompt and `` c:``, a
k x k matrix aligned as ``coda eval`` aligns (same tie-break order). Generation readings: the greedy answer
``1: B, 2: A, ...`` parsed strictly and leniently; an invalid answer scores 0 for the group. ``--debias cyclic``
also lists the definitions in their other k - 1 cyclic orders and aligns the averaged, mapped-back letter
probabilities (``likelihood_cyclic``). The run loop is the generic ``prompting.method.ChooseMethod``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from lexprobe.benchmarks.coda21.config import CodaConfig
from lexprobe.benchmarks.coda21.dataset import replace_target
from lexprobe.benchmarks.coda21.results import ChooseGroupItem, choose_rows
from lexprobe.benchmarks.coda21.tables import choose_tables
from lexprobe.metrics import alignment as al
from lexprobe.prompting.choice import presented, prompts
from lexprobe.prompting.choose import ask, item_means
from lexprobe.prompting.choose_cli import ChooseOptions
from lexprobe.prompting.debias import debiased_items
from lexprobe.prompting.method import ChooseMethod
from lexprobe.prompting.options import option_order, sample_candidates
from lexprobe.prompting.parse import parse_matching, parse_matching_lenient
from lexprobe.prompting.readings import choose_presentation
from lexprobe.prompting.templates import BLANK, Template, build_prompt, option_labels, option_lines
from lexprobe.stats.bootstrap import mean_intervals


def coda_question(t: Template, contexts: Sequence[str], definitions: Sequence[str]) -> str:
    k = len(contexts)
    return t.coda.format(
        contexts=option_lines(t, option_labels(k, "numbers"), contexts),
        definitions=option_lines(t, option_labels(k, "letters"), definitions), k=k,
    )


def build_items(groups, config: CodaConfig, template: Template) -> list[dict]:
    """The asked items of ``groups``, in every option order of ``config.choose``."""
    options, seed, items = config.choose, config.seed, []
    for g in groups:
        shown = sample_candidates(g.k, options.max_candidates, seed, g.id, keep=None)
        blanked = {i: replace_target(g.candidates[i].context, g.candidates[i].word, BLANK) for i in shown}
        for p, r, def_order in presented(shown, options, seed, g.id, "definitions"):
            ctx_order = option_order(shown, seed, g.id, p, "contexts")
            contexts = [blanked[i] for i in ctx_order]
            definitions = [g.candidates[i].definition for i in def_order]
            prompt = build_prompt(template, coda_question(template, contexts, definitions), options.chat)
            item = {"item": g.id, "id": g.id, "pos": g.pos, "k": g.k, "permutation": p, "shown": shown,
                    "context_order": ctx_order, "definition_order": def_order, "prompt": prompt,
                    # the shown pairs' texts (shown order), for the report's failure pages
                    "contexts": [blanked[i] for i in shown],
                    "definitions": [g.candidates[i].definition for i in shown]}
            if options.cyclic:
                item["rotation"] = r
            items.append(item)
    return items


def score_items(engine, items: list[dict], options: ChooseOptions, t: Template) -> list[dict]:
    sizes = [len(it["shown"]) for it in items]
    runnable, logps, texts = ask(  # row c of an item: its prompt + " c:", then each definition letter
        engine, items, options, t.answer, [[" " + x for x in option_labels(m, "letters")] for m in sizes],
        [6 * m + 8 for m in sizes],  # the answer's tokens: "12: C, " is at most ~6 tokens per pair
        rows=[[t.coda_row.format(context=c + 1) for c in range(m)] for m in sizes])
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
            assignment = al.align(matrix, "optimal", order).tolist()
            it["likelihood"] = {"label_logprobs": np.round(matrix, 6).tolist(), "assignment": assignment,
                                "accuracy": al.accuracy(assignment),
                                "positions": [int(x) for x in np.argmax(logps[j], axis=1)]}
        if texts is not None and texts[j] is not None:
            it["generation"] = dict(_generated(parse_matching(texts[j], m), ctx_pos, def_pos), text=texts[j])
            it["generation_lenient"] = _generated(parse_matching_lenient(texts[j], m), ctx_pos, def_pos)
    if logps is not None and options.cyclic:
        _debias(runnable, logps)
    for it in items:
        it.pop("prompt")
    return items


def _generated(parsed, ctx_pos: list[int], def_pos: list[int]) -> dict:
    """A parsed matching in shown indices; ``positions``: the letter read for each presented row, if any."""
    m = len(ctx_pos)
    assignment = None
    if parsed.ok:
        assignment = [0] * m
        for i, d in enumerate(parsed.answer):
            assignment[ctx_pos[i]] = def_pos[d]
    positions: list[int | None] = [None] * m
    for c, d in parsed.pairs:
        if 0 <= c < m and 0 <= d < m and positions[c] is None:
            positions[c] = d
    return {"assignment": assignment, "failure": parsed.failure,
            "accuracy": al.accuracy(assignment) if assignment is not None else 0.0, "positions": positions}


def _debias(items: list[dict], logps) -> None:
    """``likelihood_cyclic`` on each first-order record: each row's letter probabilities mapped back to the
    definitions and averaged over the definitions' cyclic orders, then aligned."""
    for first, shown, probs in debiased_items(items, logps, "definition_order", lambda first: first["shown"]):
        matrix = np.empty_like(probs)
        matrix[[shown.index(c) for c in first["context_order"]]] = probs  # presented rows -> shown order
        assignment = al.align(np.log(matrix), "optimal",
                              al.tie_break_order(f"{first['id']}:{first['permutation']}", len(shown))).tolist()
        first["likelihood_cyclic"] = {"probabilities": np.round(matrix, 6).tolist(),
                                      "assignment": assignment, "accuracy": al.accuracy(assignment)}


def blankable(data, config: CodaConfig) -> tuple[list, list[dict]]:
    """The groups of the run (``select_groups``) whose contexts can hide their target, and the skipped units of
    those that cannot (listed in the result)."""
    from lexprobe.benchmarks.coda21.likelihood import select_groups

    groups, problems = [], []
    for g in select_groups(data, config):
        try:
            for c in g.candidates:
                replace_target(c.context, c.word, BLANK)
            groups.append(g)
        except ValueError as err:
            problems.append({"unit": g.id, "reason": str(err)})
    return groups, problems


class Choose(ChooseMethod):
    """The group as one matching question; a unit is a group whose contexts can hide their target (the others
    are skipped and listed), answered by an alignment."""

    unit_field, answer_key = "id", "assignment"
    item_spec = ChooseGroupItem
    presentation = choose_presentation(choose_tables, choose_rows)

    def units(self, job):
        return [(g.id, g) for g in blankable(job.items, job.config)[0]]

    def skipped(self, job):
        return blankable(job.items, job.config)[1]

    def prompts(self, job, unit):
        return prompts(min(unit.k, job.config.choose.max_candidates), job.config.choose)

    def items(self, job, units, template):
        return build_items(units, job.config, template)

    def score(self, job, engine, items, template):
        return score_items(engine, items, job.config.choose, template)

    def scores(self, reading: str) -> dict:
        """A reading's score of one answer: its alignment's accuracy (an invalid generated matching: 0)."""
        return {"accuracy": lambda block: block["accuracy"]}

    def gold_positions(self, record: dict) -> list[int]:
        """Per presented context row, the presented position of its own definition."""
        return [record["definition_order"].index(c) for c in record["context_order"]]

    def random(self, asked: list[dict]) -> dict:
        """Chance on the asked records: a random alignment of k pairs gets 1/k right; intervals over groups."""
        ci = mean_intervals({"accuracy": item_means(asked, lambda r: 1.0 / len(r["shown"]))})
        return {"accuracy": al.random_baseline([len(r["shown"]) for r in asked]), "n": len(asked), "ci": ci}
