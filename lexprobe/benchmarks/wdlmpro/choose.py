"""WDLMPro asked as multiple choice: W2D (word -> which definition) and D2W (definition -> which word).

Each (group, task, permutation) is one prompt: the shown candidates (the gold one always among them) in a
seeded order, read as one right option among k (``prompting.choice``). A resume unit is one target (both
tasks, every order); the run loop is ``prompting.method.ChooseMethod``.
"""

from __future__ import annotations

from typing import Sequence

from lexprobe.benchmarks.wdlmpro import results, tables
from lexprobe.benchmarks.wdlmpro.config import TASK_CHOICES, WDLMProConfig
from lexprobe.core.contract import default_slices
from lexprobe.metrics.ranking import random_expectation
from lexprobe.prompting.choice import presented, prompts, score_choices
from lexprobe.prompting.choose import SHOWN_ITEM, item_means
from lexprobe.prompting.method import ChooseMethod
from lexprobe.prompting.options import sample_candidates
from lexprobe.prompting.readings import choose_presentation
from lexprobe.prompting.templates import Template, build_prompt, option_labels, option_lines
from lexprobe.stats.bootstrap import mean_intervals


def question(t: Template, task: str, asked: str, options: Sequence[str]) -> str:
    """W2D: which of the ``options`` (definitions) fits the word ``asked``; D2W: which word has the definition."""
    labels = option_labels(len(options), t.labels)
    return getattr(t, task).format(**{"word" if task == "w2d" else "definition": asked}, n=len(options),
                                   options=option_lines(t, labels, options))


def build_items(groups, config: WDLMProConfig, template: Template) -> list[dict]:
    """The asked items of ``groups``: every task of ``--task``, in every option order of ``config.choose``."""
    options, items = config.choose, []
    for g in groups:
        shown = sample_candidates(len(g.candidates), options.max_candidates, config.seed, g.target, keep=0)
        for task in TASK_CHOICES[config.task]:
            for p, r, order in presented(shown, options, config.seed, f"{task}:{g.target}"):
                texts = [g.candidates[i].definition if task == "w2d" else g.candidates[i].word for i in order]
                asked = question(template, task, g.word if task == "w2d" else g.definition, texts)
                item = {"item": f"{task}:{g.target}", "task": task, "target": g.target, "pos": g.pos,
                        "word": g.word, "permutation": p, "n_candidates": len(g.candidates), "order": order,
                        "gold_position": order.index(0),
                        "definition": g.definition,  # the report's failure pages show the texts
                        "options": texts, "prompt": build_prompt(template, asked, options.chat)}
                if options.cyclic:
                    item["rotation"] = r
                items.append(item)
    return items


class Choose(ChooseMethod):
    """The candidates as a multiple-choice question; a unit is a target (both tasks, every option order),
    answered by one option."""

    unit_field, answer_key, item_spec = "target", "choice", SHOWN_ITEM
    own_slices = staticmethod(default_slices)  # (the likelihood's leave out targets the recipe dropped)
    presentation = choose_presentation(tables.choose_tables, results.choose_rows)

    def units(self, job):
        return [(g.target, g) for g in job.items.groups]

    def prompts(self, job, unit):
        shown = min(len(unit.candidates), job.config.choose.max_candidates)
        return len(TASK_CHOICES[job.config.task]) * prompts(shown, job.config.choose)

    def items(self, job, units, template):
        return build_items(units, job.config, template)

    def score(self, job, engine, items, template):
        return score_choices(engine, items, job.config.choose, template)

    def key_items(self, job, units):
        return {"groups": super().key_items(job, units), "tasks": self.tasks(job)}

    def tasks(self, job):
        return list(TASK_CHOICES[job.config.task])

    def scores(self, reading):
        """A reading's scores of one answer: P@1, and the rank score where the labels were ranked (likelihood)."""
        return {"p_at_1": _correct, **({"rank_score": _rank_score} if reading.startswith("likelihood") else {})}

    def gold_positions(self, record):
        return [record["gold_position"]]

    def random(self, asked):
        """Chance on the asked records: P@1 = mean 1/options shown, RS = 0.5; intervals over items."""
        figures = {k: v for k, v in random_expectation([len(r["order"]) for r in asked]).items() if k != "n"}
        figures["ci"] = mean_intervals({"p_at_1": item_means(asked, lambda r: 1.0 / len(r["order"])),
                                        "rank_score": item_means(asked, lambda r: 0.5)})
        return {**figures, "n": len(asked)}


def _correct(block: dict) -> float:
    return float(block["correct"])


def _rank_score(block: dict) -> float:
    return block["rank_score"]
