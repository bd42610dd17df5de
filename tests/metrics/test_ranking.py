import math

import pytest

from lexprobe.metrics.ranking import gold_rank, predicted_index, random_expectation, rank_score, summarize


def test_gold_rank_counts_better_candidates():
    assert gold_rank([0.9, 0.1, 0.5]) == 1
    assert gold_rank([0.3, 0.9, 0.5, 0.1]) == 3
    assert gold_rank([0.1, 0.2], gold=1) == 1


def test_ties_count_against_gold():
    # two candidates tie with the gold item: both go above it
    assert gold_rank([0.5, 0.5, 0.5, 0.1]) == 3
    # a constant scorer gets the last rank, never the first
    assert gold_rank([0.0] * 5) == 5
    assert predicted_index([0.5, 0.5, 0.1]) == 1
    assert predicted_index([0.7, 0.5, 0.7, 0.7]) == 2


def test_nan_is_worst():
    assert gold_rank([float("nan"), 0.1, 0.2]) == 3
    assert gold_rank([0.3, float("nan")]) == 1


def test_rank_score_values():
    assert rank_score(5, 1) == 1.0
    assert rank_score(5, 5) == 0.0
    assert rank_score(5, 2) == 0.75
    with pytest.raises(ValueError):
        rank_score(1, 1)


def test_summarize_hand_computed():
    # ranks 1, 3, 2 among 5, 3, 4 candidates: P@1 = 1/3, RS = (1 + 0 + 2/3) / 3
    s = summarize([1, 3, 2], [5, 3, 4])
    assert s["n"] == 3
    assert math.isclose(s["p_at_1"], 1 / 3)
    assert math.isclose(s["rank_score"], (1 + 0 + 2 / 3) / 3)


def test_random_expectation_is_exact():
    r = random_expectation([5, 10, 4])
    assert math.isclose(r["p_at_1"], (1 / 5 + 1 / 10 + 1 / 4) / 3)
    assert r["rank_score"] == 0.5
    assert summarize([], [])["n"] == 0
