"""One question, one right option: choose items with their gold option's position, asked and read.

WDLMPro's W2D and D2W and the toy benchmark ask the same kind of question (k options, one right): a
benchmark builds its items (``presented`` gives each permutation's option orders) and reads them with
``score_choices``. Ties in label likelihood follow ``lexprobe.metrics.ranking``: never in the model's favour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lexprobe.metrics.ranking import gold_rank, predicted_index, rank_score
from lexprobe.prompting.choose import ask
from lexprobe.prompting.debias import debiased_items, rotations
from lexprobe.prompting.options import option_order
from lexprobe.prompting.parse import parse_choice, parse_choice_lenient
from lexprobe.prompting.templates import Template, option_labels

if TYPE_CHECKING:
    from lexprobe.asking.engine import Engine
    from lexprobe.prompting.choose_cli import ChooseOptions

ANSWER_TOKENS = 8  # "12" and a little room: the first line is all that is read


def presented(shown: list[int], options: ChooseOptions, seed: int, key: str,
              what: str = "options") -> list[tuple[int, int, list[int]]]:
    """(permutation, cyclic order, presented candidates) of one question: a seeded order of ``shown`` per
    permutation (``options.option_order``'s ``what``: CoDA21 orders its definitions apart from its contexts)
    and, with ``--debias cyclic``, its other cyclic orders (0 is the permutation's own)."""
    out = []
    for p in range(options.permutations):
        base = option_order(shown, seed, key, p, what)
        out += [(p, r, order) for r, order in enumerate(rotations(base) if options.cyclic else [base])]
    return out


def prompts(shown: int, options: ChooseOptions) -> int:
    """Prompts one question with ``shown`` options asks."""
    return options.permutations * (shown if options.cyclic else 1)


def score_choices(engine: Engine, items: list[dict], options: ChooseOptions, template: Template) -> list[dict]:
    """``items`` answered in place (and returned), their prompts dropped: each reading's block, or ``skipped``
    (``choose.ask``). An item: ``item``, ``permutation``, ``rotation``, ``order`` (candidates as presented),
    ``gold_position``, ``options`` (their texts, for the lenient parser) and ``prompt``."""
    labels = [[" " + lab for lab in option_labels(len(it["order"]), template.labels)] for it in items]
    runnable, logps, texts = ask(engine, items, options, template.answer, labels, [ANSWER_TOKENS] * len(items))
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
            strict = parse_choice(texts[j], n, template.labels)
            lenient = parse_choice_lenient(texts[j], it["options"], template.labels)
            it["generation"] = dict(_generated(it, strict), text=texts[j])
            it["generation_lenient"] = _generated(it, lenient)
    if logps is not None and options.cyclic:
        _debias(runnable, logps)
    for it in items:
        it.pop("prompt")
    return items


def _generated(item: dict, parsed) -> dict:
    return {"choice": item["order"][parsed.answer] if parsed.ok else None, "failure": parsed.failure,
            "correct": parsed.ok and parsed.answer == item["gold_position"], "positions": [parsed.answer]}


def _debias(items: list[dict], logps) -> None:
    """``likelihood_cyclic`` on each first-order record: option probabilities averaged over its cyclic orders."""
    for first, shown, probs in debiased_items(items, logps, "order", lambda first: sorted(first["order"])):
        gold = shown.index(first["order"][first["gold_position"]])  # the gold candidate (WSD's: any gold sense)
        logp = np.log(probs)
        pick, k = predicted_index(logp, gold=gold), gold_rank(logp, gold=gold)
        first["likelihood_cyclic"] = {"probabilities": np.round(probs, 6).tolist(), "options": shown,
                                      "choice": shown[pick], "correct": pick == gold, "gold_rank": k,
                                      "rank_score": rank_score(len(shown), k)}
