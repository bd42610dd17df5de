"""Small hand-made CoDA21 data for the tests (official format)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

NOUN_GROUP = {
    "common_ancestor_info": {"relation": "grandparent", "ancestor_name": "material.n.01"},
    "candidates": [
        {"synset_name": "dust.n.01", "definition": "fine powdery material such as dry earth or pollen",
         "contexts": ["his horse kicking up clouds of dust , shouting :"], "words_in_contexts": ["dust"]},
        {"synset_name": "marble.n.01", "definition": "a hard crystalline metamorphic rock that takes a high polish",
         "contexts": ["and had a white marble monument erected on his grave ."], "words_in_contexts": ["marble"]},
        {"synset_name": "feather.n.01", "definition": "the light horny waterproof structure forming the external covering of birds",
         "contexts": ["a striking abundance of feathers in the under region"], "words_in_contexts": ["feathers"]},
    ],
}
NOUN_GROUP_2 = {
    "common_ancestor_info": {"relation": "parent", "ancestor_name": "idea.n.01"},
    "candidates": [
        {"synset_name": "suggestion.n.01", "definition": "an idea that is suggested",
         "contexts": ["This was Madden 's suggestion ; the police chief shook his head"], "words_in_contexts": ["suggestion"]},
        {"synset_name": "concept.n.01", "definition": "an abstract or general idea inferred from specific instances",
         "contexts": ["The concept of apparent temperature is used"], "words_in_contexts": ["concept"]},
    ],
}
VERB_GROUP = {
    "common_ancestor_info": {"relation": "parent", "ancestor_name": "move.v.03"},
    "candidates": [
        {"synset_name": "dance.v.02", "definition": "move in a pattern; usually to musical accompaniment",
         "contexts": ["they danced all night"], "words_in_contexts": ["danced"]},
        {"synset_name": "stir.v.02", "definition": "move very slightly",
         "contexts": ["nothing stirred in the house"], "words_in_contexts": ["stirred"]},
        {"synset_name": "whirl.v.05", "definition": "turn in a twisting or spinning motion",
         "contexts": ["the leaves whirled in the wind"], "words_in_contexts": ["whirled"]},
    ],
}


def small_coda() -> dict:
    return {"canary": "not for training", "n": [NOUN_GROUP, NOUN_GROUP_2], "v": [VERB_GROUP]}


def write_small(path: Path, obj: dict | None = None) -> Path:
    path.write_text(json.dumps(obj if obj is not None else small_coda()), encoding="utf-8")
    return path


class MatrixScorer:
    """A scorer of kind ``random`` whose scores for a group are a given matrix."""

    kind = "random"

    def __init__(self, matrices: dict[str, np.ndarray], fail_after: int | None = None):
        self.matrices = matrices
        self.calls: list[str] = []
        self.fail_after = fail_after

    def describe(self) -> dict:
        return {"name": "matrix", "kind": self.kind}

    def scores(self, key: str, n: int) -> np.ndarray:
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise KeyboardInterrupt
        self.calls.append(key)
        m = np.asarray(self.matrices[key.split(":", 1)[1]], dtype=float)
        assert m.size == n
        return m.ravel()

    def random_scores(self, requests, progress=False):
        """``asking.requests.RandomScores``: the group's given matrix (its key names the group)."""
        return [self.scores(r.key, r.n) for r in requests]


def evaluate(data, scorer, out=None, **options) -> dict | None:
    """CoDA21 on loaded data (``load_coda``) with ``CodaConfig`` options, through the one evaluation sequence."""
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.core.evaluate import evaluate as run

    return run("coda21", scorer, CodaConfig(data=data.source, **options), out, items=data, progress=False)
