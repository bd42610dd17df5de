"""A fourth benchmark, added by this module and one registry line (issue #16's acceptance test).

"Toy": each item is a word with a few definitions, the first one right; the model picks the
definition closest to the word (sentence embeddings) or at random. It uses the contract
only: metadata, a typed config, a recipe, one method, the generic ``run_units``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypedDict

import numpy as np

from lexprobe.benchmarks.base import Benchmark, BenchmarkMeta, Method, Unit, option
from lexprobe.distributed import run_units
from lexprobe.scorers.capabilities import RandomScores, SentenceEmbeddings, strategy
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
    method: str = option("likelihood", "how the model is asked", choices=("likelihood",))
    recipe: str = option("paper", "the only recipe", choices=("paper",))
    limit: int | None = option(None, "first N items", type=int)
    seed: int = option(0, "seed of the random scorer", type=int)


@dataclass(frozen=True)
class ToyRecipe:
    name: str


def _random(scorer, items):
    return [scorer.scores(f"toy:{w}", len(ds)) for w, ds in items]


def _cosine(scorer, items):
    out = []
    for w, ds in items:
        v = np.asarray(scorer.encode([w] + ds))
        out.append(v[1:] @ v[0])
    return out


class Pick(Method):
    name = "likelihood"
    requires = (RandomScores, SentenceEmbeddings)
    strategies: ClassVar[dict] = {RandomScores: _random, SentenceEmbeddings: _cosine}

    def run(self, job):
        items = job.items
        score = strategy(self.strategies, job.scorer, "toy")

        def compute(indices):
            scores = score(job.scorer, [items[i] for i in indices])
            return [{"word": items[i][0], "pick": int(np.argmax(s)), "k": len(s),
                     "correct": float(np.argmax(s) == 0)} for i, s in zip(indices, scores)]

        records = run_units([w for w, _ in items], compute, [len(ds) for _, ds in items], step=2,
                            log_base=job.log_base, log_key=job.key(items), record=ToyRecord)
        if records is None:
            return None
        acc = [r["correct"] for r in records]
        from lexprobe.stats.bootstrap import mean_intervals

        chance = [1.0 / r["k"] for r in records]
        return {"_items": items, "tasks": ["pick"], "instances": records,
                "metrics": {"pick": {"all": {"accuracy": float(np.mean(acc)), "n": len(acc),
                                             "ci": mean_intervals({"accuracy": acc})}}},
                "baselines": {"random": {"pick": {"all": {"accuracy": float(np.mean(chance)), "n": len(acc),
                                                          "ci": mean_intervals({"accuracy": chance})}}}},
                "counts": {"skipped_items": 0}}


class Toy(Benchmark):
    meta = BenchmarkMeta(name="toy", title="Toy", help="toy: pick a word's definition", unit="item",
                         tasks=("pick",), main_score="accuracy", unit_metrics=(("accuracy", "accuracy"),))
    Config = ToyConfig
    recipes: ClassVar[dict] = {"paper": ToyRecipe("paper")}
    methods: ClassVar[dict] = {"likelihood": Pick()}

    def load_items(self, config):
        return ITEMS[: config.limit] if config.limit else list(ITEMS)

    def upgrade(self, legacy):
        return legacy  # the method returns schema-2 sections

    def unit_values(self, result):
        return [Unit(r["word"], "pick", "all", {"accuracy": r["correct"]}) for r in result["instances"]]

    def tables(self, results):
        table = Table("toy", "Toy: pick the definition", ["Model", "accuracy (%)"])
        for r in results:
            table.rows.append([r["model"]["name"], cell(r["metrics"]["pick"]["all"], "accuracy")])
        return [table]

    def format_result(self, result):
        return f"toy accuracy {result['metrics']['pick']['all']['accuracy']:.3f}"

    def default_run(self, out_dir, part):
        from lexprobe.benchmarks.evaluate import evaluate
        from lexprobe.models import load_scorer

        self.likelihood_only(part)
        result = evaluate(self, load_scorer(part.model), ToyConfig(limit=part.sample), out_dir / f"{part.stem('toy')}.json")
        return {"metrics": result["metrics"]}
