"""The ``authors`` recipe for CoDA21: each choice differs from the paper's where it should."""

import itertools

import numpy as np
import pytest

from lexprobe.benchmarks.coda21.dataset import load_coda
from lexprobe.benchmarks.coda21.config import CodaConfig
from lexprobe.core.options import check_declared
from lexprobe.benchmarks.coda21.likelihood import context_without_target, prompt
from lexprobe.errors import LexprobeError
from lexprobe.metrics.alignment import exhaustive_alignment, first_best_alignment
from tests.benchmarks.coda21.helpers import MatrixScorer, evaluate, write_small


def test_substring_replacement_under_authors():
    ctx = "the party was about art"
    assert prompt(ctx, "art", "n") == "the party was about bkatuhla Definition of bkatuhla is"
    assert prompt(ctx, "art", "n", recipe="authors") == \
        "the pbkatuhlay was about bkatuhla Definition of bkatuhla is"
    assert context_without_target(ctx, "art", "authors") == "the py was about "
    assert context_without_target(ctx, "art") == "the party was about"


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_first_best_equals_enumeration_with_ties(k):
    rng = np.random.default_rng(k)
    for _ in range(30):
        scores = rng.integers(0, 3, size=(k, k)).astype(float)  # many exact ties
        assert first_best_alignment(scores).tolist() == exhaustive_alignment(scores).tolist()
    # the first permutation in itertools order wins a constant matrix
    assert first_best_alignment(np.zeros((k, k))).tolist() == list(next(itertools.permutations(range(k))))


def test_ties_favour_gold_only_under_authors(tmp_path):
    data = load_coda(write_small(tmp_path / "small.json"))
    flat = {g.id: np.zeros((g.k, g.k)) for g in data.groups}  # a scorer that cannot tell anything apart
    paper = evaluate(data, MatrixScorer(flat))
    authors = evaluate(data, MatrixScorer(flat), recipe="authors")
    # the released enumeration keeps the first permutation, the identity: all "right"
    assert authors["metrics"]["alignment"]["all"]["accuracy"] == 1.0
    assert authors["config"]["recipe"] == "authors" and paper["config"]["recipe"] == "paper"
    # lexprobe's default breaks ties in a fixed pseudo-random order: no free credit
    assert paper["metrics"]["alignment"]["all"]["accuracy"] < 1.0
    with pytest.raises(LexprobeError, match="--recipe"):
        check_declared(CodaConfig(recipe="choose"))
