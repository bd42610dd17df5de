"""WDLMPro asked as multiple choice: W2D (word -> which definition) and D2W (definition -> which word).

Each (group, task, permutation) is one prompt: the shown candidates (the gold one always among them) in a
seeded order, read as one right option among k (``prompting.choice``). A resume unit is one target (both
tasks, every order); the run loop is ``prompting.method.ChooseMethod``.
"""

from __future__ import annotations

from typing import Sequence

from lexprobe.benchmarks.wdlmpro.config import TASK_CHOICES, WDLMProConfig
from lexprobe.core.requests import Prompt
from lexprobe.metrics.ranking import random_expectation
from lexprobe.prompting.choice import presented, prompts
from lexprobe.prompting.choose import item_means
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


def item_prompt(group, task: str, order: Sequence[int], t: Template, chat: bool) -> Prompt:
    if task == "w2d":
        question = w2d_question(t, group.word, [group.candidates[i].definition for i in order])
    else:
        question = d2w_question(t, group.definition, [group.candidates[i].word for i in order])
    return build_prompt(t, question, chat)


def build_items(groups, config: WDLMProConfig, template: Template) -> list[dict]:
    """The asked items of ``groups``: every task of ``--task``, in every option order of ``config.choose``."""
    options, items = config.choose, []
    for g in groups:
        shown = sample_candidates(len(g.candidates), options.max_candidates, config.seed, g.target, keep=0)
        for task in TASK_CHOICES[config.task]:
            for p, r, order in presented(shown, options, config.seed, f"{task}:{g.target}"):
                item = {"item": f"{task}:{g.target}", "task": task, "target": g.target, "pos": g.pos,
                        "word": g.word, "permutation": p, "n_candidates": len(g.candidates), "order": order,
                        "gold_position": order.index(0),
                        "definition": g.definition,  # the report's failure pages show the texts
                        "options": [g.candidates[i].definition if task == "w2d" else g.candidates[i].word
                                    for i in order],
                        "prompt": item_prompt(g, task, order, template, options.chat)}
                if options.cyclic:
                    item["rotation"] = r
                items.append(item)
    return items


def prompts_per_group(group, config: WDLMProConfig) -> int:
    shown = min(len(group.candidates), config.choose.max_candidates)
    return len(TASK_CHOICES[config.task]) * prompts(shown, config.choose)


def scores(reading: str) -> dict:
    """A reading's scores of one answer: P@1, and the rank score where the labels were ranked (likelihood)."""
    return {"p_at_1": _correct, **({"rank_score": _rank_score} if reading.startswith("likelihood") else {})}


def _correct(block: dict) -> float:
    return float(block["correct"])


def _rank_score(block: dict) -> float:
    return block["rank_score"]


def random_figures(asked: list[dict]) -> dict:
    """Chance on the asked records: P@1 = mean 1/options shown, RS = 0.5; intervals over items."""
    figures = {k: v for k, v in random_expectation([len(r["order"]) for r in asked]).items() if k != "n"}
    figures["ci"] = mean_intervals({"p_at_1": item_means(asked, lambda r: 1.0 / len(r["order"])),
                                    "rank_score": item_means(asked, lambda r: 0.5)})
    return {**figures, "n": len(asked)}
