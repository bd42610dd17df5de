"""Same sense or not: an English word in two sentences (24 hand-written pairs, half to fit a threshold on).

The whole benchmark: a config (the pair task type's options and a data file), a reader of the file into the task
type's items, and the question it asks. Everything else — methods, the run loop, results, tables, the exports —
is the pair task type's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from lexprobe.core.contract import Items
from lexprobe.core.exports import Source
from lexprobe.core.options import option
from lexprobe.errors import DataError
from lexprobe.tasks import pair

DATA = Path(__file__).with_name("pairs.jsonl")


@dataclass(frozen=True)
class SameSenseConfig(pair.PairOptions):
    data: str = option(str(DATA), "a JSONL file of pairs (id, lemma, pos, sentence1/2, start1/2, end1/2, same, "
                                  "split)", input=True, key=False)
    split: str = option("test", "the split scored", choices=("train", "test"))
    fit_on: str = option("train", "the split the threshold is fitted on", choices=("train", "test"))


def load(config: SameSenseConfig) -> pair.PairItems:
    exported = pair.read_export(config.data, "samesense")  # a folder `lexprobe export hf samesense` wrote
    if exported is not None:
        return exported
    rows = [json.loads(line) for line in Path(config.data).read_text(encoding="utf-8").splitlines() if line.strip()]
    if config.fit_on == config.split:
        raise DataError(f"--fit-on {config.fit_on} is the split scored: fit the threshold on the other one")

    def item(r: dict) -> pair.PairItem:
        return pair.PairItem(r["id"], pair.Target(r["sentence1"], r["start1"], r["end1"]),
                             pair.Target(r["sentence2"], r["start2"], r["end2"]), r["same"], r["lemma"], r["pos"])

    scored = [item(r) for r in rows if r["split"] == config.split][: config.limit]
    return pair.PairItems(scored, {config.fit_on: [item(r) for r in rows if r["split"] == config.fit_on]})


def question(p: pair.PairItem) -> str:
    return (f"Sentence 1: {p.first.text}\nSentence 2: {p.second.text}\nQuestion: Is the word "
            f"'{p.first.word}' used with the same meaning in both sentences?\nAnswer:")


SAMESENSE = pair.benchmark("samesense", "Same sense", "an English word in two sentences: the same sense or not",
                           SameSenseConfig, Items(load=load), pair.PairPhrasing(question),
                           sources=[Source("lexprobe's test pairs", "MIT", "lexprobe tests/samesense", "1",
                                           hub_licence="mit")])
