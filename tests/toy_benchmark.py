"""A fourth benchmark, added by this module and one registry line (issue #16's acceptance test).

"Toy": each item is a word with a few definitions, the first one right; the model picks the
definition closest to the word (sentence embeddings) or at random. It uses the contract
only: metadata, a typed config, a recipe, one method, the generic ``run_units``; and the
declarations the generic modules read instead of naming benchmarks (issue #28, point 5): its
``lexprobe run`` samples and causal-LM part (``run=RunParts(...)``), human items
(``human=HumanItems(kind, item_set, results)``) and a choose method: a template
field (``template_fields``) and ``PickByAsking``, the generic ``prompting.method.ChooseMethod`` told
what a toy question is. The benchmark is ``TOY``: its parts, each a few functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypedDict

import numpy as np

from lexprobe.core.contract import (
    Benchmark,
    BenchmarkMeta,
    HumanItems,
    Items,
    LLMPart,
    Method,
    Presentation,
    Records,
    Results,
    RunParts,
    SummaryColumn,
    Unit,
    likelihood_only,
    main_scores,
)
from lexprobe.core.options import nested, option  # nested: the choose options as a group
from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import Embed, RandomScores
from lexprobe.distributed import run_units
from lexprobe.prompting.choose_cli import ChooseOptions
from lexprobe.prompting.method import ChooseMethod
from lexprobe.prompting.templates import TemplateField
from lexprobe.tables import Table, cell

ITEMS = [
    ("dog", ["a domesticated animal that barks", "a piece of furniture", "a large body of water"]),
    ("cat", ["a small domesticated feline", "a musical instrument", "a kind of bread"]),
    ("lamp", ["a device that gives light", "a farm animal", "a sweet fruit"]),
    ("run", ["move fast on foot", "sleep deeply", "write a letter"]),
]


class ToyRecord(TypedDict):
    """A unit's record in the resume log (``run_units`` takes every method's record shape)."""

    word: str
    pick: int
    k: int
    correct: float


@dataclass(frozen=True)
class ToyConfig:
    method: str = option("likelihood", "how the model is asked", choices=("likelihood", "choose"))
    recipe: str = option("paper", "the only recipe", choices=("paper",))
    limit: int | None = option(None, "first N items", type=int)
    seed: int = option(0, "seed of the random scorer and of the choose options", type=int)
    choose: ChooseOptions = nested(ChooseOptions, "ask-to-choose prompting (--method choose)", method="choose")


@dataclass(frozen=True)
class ToyRecipe:
    name: str


def _scores(engine, items):
    """Each item's definitions scored: seeded random scores, else cosines of the word's and definitions' embeddings."""
    if engine.serves(RandomScores):
        return engine([RandomScores(f"toy:{w}", len(ds)) for w, ds in items])
    out = []
    for w, ds in items:
        v = np.asarray(engine([Embed(t) for t in [w, *ds]]))
        out.append(v[1:] @ v[0])
    return out


class Pick(Method):
    name = "likelihood"
    requests = ((RandomScores,), (Embed,))

    def run(self, job):
        items, engine = job.items, Engine(job.scorer)

        def compute(indices):
            scores = _scores(engine, [items[i] for i in indices])
            return [{"word": items[i][0], "pick": int(np.argmax(s)), "k": len(s),
                     "correct": float(np.argmax(s) == 0)} for i, s in zip(indices, scores)]

        records = run_units([w for w, _ in items], compute, [len(ds) for _, ds in items], step=2,
                            log_base=job.log_base, log_key=job.key(items), record=ToyRecord)
        return None if records is None else Records(records, items=items, counts={"skipped_items": 0})


class AskToPick(ChooseMethod):
    """The definitions as a multiple-choice question to a causal LM: a unit is a word (every option order)."""

    unit_field, answer_key = "word", "choice"

    def units(self, job):
        return [(word, (word, definitions)) for word, definitions in job.items]

    def prompts(self, job, unit):
        from lexprobe.prompting.choice import prompts

        return prompts(min(len(unit[1]), job.config.choose.max_candidates), job.config.choose)

    def items(self, job, units, t):
        from lexprobe.prompting.choice import presented
        from lexprobe.prompting.options import sample_candidates
        from lexprobe.prompting.templates import build_prompt, option_labels, option_lines

        options, seed, items = job.config.choose, job.config.seed, []
        for word, definitions in units:
            shown = sample_candidates(len(definitions), options.max_candidates, seed, word, keep=0)
            for p, r, order in presented(shown, options, seed, word):
                texts = [definitions[i] for i in order]
                question = t.toy.format(word=word, options=option_lines(t, option_labels(len(order), t.labels), texts))
                items.append({"item": word, "word": word, "permutation": p, "order": order, "options": texts,
                              "gold_position": order.index(0), **({"rotation": r} if options.cyclic else {}),
                              "prompt": build_prompt(t, question, options.chat)})
        return items

    def score(self, job, engine, items, template):
        from lexprobe.prompting.choice import score_choices

        return score_choices(engine, items, job.config.choose, template)

    def scores(self, reading):
        return {"accuracy": lambda answer: float(answer["correct"])}

    def gold_positions(self, record):
        return [record["gold_position"]]

    def random(self, asked):
        from lexprobe.prompting.choose import item_means
        from lexprobe.stats.bootstrap import mean_intervals

        chance = [1.0 / len(r["order"]) for r in asked]
        return {"accuracy": float(np.mean(chance)) if chance else None, "n": len(asked),
                "ci": mean_intervals({"accuracy": item_means(asked, lambda r: 1.0 / len(r["order"]))})}


def load_items(config):
    return ITEMS[: config.limit] if config.limit else list(ITEMS)


def unit_values(result):
    return [Unit(r["word"], "pick", "all", {"accuracy": r["correct"]}) for r in result["instances"]]


def baseline_values(result):
    return {"random": [Unit(r["word"], "pick", "all", {"accuracy": 1.0 / r["k"]}) for r in result["instances"]]}


def tables(results):
    table = Table("toy", "Toy: pick the definition", ["Model", "accuracy (%)"])
    for r in results:
        table.rows.append([r["model"]["name"], cell(r["metrics"]["pick"]["all"], "accuracy")])
    return [table]


def default_run(out_dir, part):
    from lexprobe.core.evaluate import evaluate
    from lexprobe.models import load_scorer

    likelihood_only(TOY, part)
    result = evaluate(TOY, load_scorer(part.model), ToyConfig(limit=part.sample), out_dir / f"{part.stem('toy')}.json")
    return {"metrics": result["metrics"]}


def human_item_set(args):
    from lexprobe.core.human_items import groups_digest, make_item_set

    items = []
    for n, (word, definitions) in enumerate(ITEMS):
        order = [(n + i) % len(definitions) for i in range(len(definitions))]  # the right one moves about
        options = [{"label": chr(ord("A") + i), "text": definitions[j], "synset": f"{word}.{j}"}
                   for i, j in enumerate(order)]
        items.append({"id": f"pick/{word}", "kind": "choice", "task": "pick", "pos": "all",
                      "prompt": f"Which definition fits {word}?", "options": options,
                      "answer": options[order.index(0)]["label"], "target": word, "word": word})
    return make_item_set("toy", "all", 0, items, {"pick": groups_digest([w for w, _ in ITEMS])})


def human_results(bench, item_set, answers):
    """A person's answers scored as a model's run (``core.human_score.person_result``): a record per answer."""
    from lexprobe.core.human_score import person_result, who

    def record(item, answer):
        return {"word": item["word"], "k": len(item["options"]), "correct": float(answer == item["answer"])}

    return {person: person_result(bench, item_set, answers, person, "pick", record, {}) for person in who(answers)}


class PickByAsking(AskToPick):
    """Its own console line: each reading's accuracy."""

    presentation = Presentation(format_result=lambda result: "toy accuracy " + ", ".join(
        f"{k}: {v:.3f}" for k, v in main_scores(TOY, result).items()))


TOY = Benchmark(
    meta=BenchmarkMeta(name="toy", title="Toy", help="toy: pick a word's definition", unit="item",
                       tasks=("pick",), main_score="accuracy", unit_metrics=(("accuracy", "accuracy"),),
                       summary=(SummaryColumn("Toy acc. (%)"),)),  # the report's "Models by method": main_score
    Config=ToyConfig,
    items=Items(load=load_items),
    methods={"likelihood": Pick(), "choose": PickByAsking()},
    recipes={"paper": ToyRecipe("paper")},
    results=Results(unit_values=unit_values, baseline_values=baseline_values),
    presentation=Presentation(
        tables=tables, format_result=lambda result: f"toy accuracy {result['metrics']['pick']['all']['accuracy']:.3f}"),
    # what ``lexprobe run``, ``lexprobe human`` and the choose templates read (no generic module names "toy")
    run=RunParts(default_run, {"quick": 3, "full": None}, (LLMPart("likelihood", False, {"quick": 2, "full": 4}),)),
    human=HumanItems("choice", human_item_set, human_results),
    template_fields={
        "toy": TemplateField(frozenset({"word", "options"}), required=frozenset({"word", "options"}),
                             texts={"default": "Which definition fits {word}?\n{options}",
                                    "letters": "Question: which definition fits {word}?\n{options}"})},
)
