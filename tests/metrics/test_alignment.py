import itertools
from fractions import Fraction

import numpy as np
import pytest

from lexprobe.metrics import alignment as al


@pytest.mark.parametrize("k", range(1, 9))
def test_hungarian_equals_exhaustive_on_random_matrices(k):
    rng = np.random.default_rng(k)
    for _ in range(20 if k < 8 else 3):
        scores = rng.normal(size=(k, k))  # continuous: the optimum is unique
        hung = al.optimal_alignment(scores)
        exh = al.exhaustive_alignment(scores)
        assert sorted(hung.tolist()) == list(range(k))
        assert hung.tolist() == exh.tolist()
        assert al.alignment_score(scores, hung) == pytest.approx(al.alignment_score(scores, exh))


def test_hungarian_total_matches_exhaustive_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(30):
        scores = rng.integers(0, 3, size=(6, 6)).astype(float)  # many ties
        hung, exh = al.optimal_alignment(scores), al.exhaustive_alignment(scores)
        assert al.alignment_score(scores, hung) == al.alignment_score(scores, exh)


def test_hand_computed_alignment_beats_simple_matching():
    # context 0 likes definition 0 (5) but definition 1 prefers context 0 even more (6);
    # the optimal one-to-one alignment is the identity: 5 + 4 + 9 = 18 > 6 + 1 + ... .
    scores = np.array([[5.0, 6.0, 0.0],
                       [0.0, 4.0, 0.0],
                       [0.0, 0.0, 9.0]])
    assert al.optimal_alignment(scores).tolist() == [0, 1, 2]
    assert al.exhaustive_alignment(scores).tolist() == [0, 1, 2]
    assert al.accuracy([0, 1, 2]) == 1.0
    # simple matching: definition 0 -> context 0, definition 1 -> context 0 (6 > 4), 2 -> 2
    assert al.simple_matching(scores).tolist() == [0, 0, 2]
    assert al.accuracy(al.simple_matching(scores)) == pytest.approx(2 / 3)


def test_accuracy_hand_computed():
    assert al.accuracy([1, 0, 2, 3]) == 0.5
    assert al.accuracy([1, 2, 0]) == 0.0
    assert al.accuracy([]) == 0.0


def test_random_baseline_is_mean_of_one_over_k():
    assert al.random_baseline([5, 10]) == pytest.approx((0.2 + 0.1) / 2)
    assert al.random_baseline([]) == 0.0


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_random_baseline_is_exact_expected_fixed_point_share(k):
    perms = list(itertools.permutations(range(k)))
    mean = sum(Fraction(sum(p[i] == i for i in range(k)), k) for p in perms) / len(perms)
    assert mean == Fraction(1, k)
    assert al.random_baseline([k]) == pytest.approx(float(mean))


def test_exhaustive_limit_and_bad_input():
    with pytest.raises(ValueError, match="limit"):
        al.exhaustive_alignment(np.zeros((4, 4)), max_k=3)
    with pytest.raises(ValueError, match="square"):
        al.optimal_alignment(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        al.optimal_alignment(np.array([[np.nan, 0.0], [0.0, 0.0]]))


def test_tie_rule_first_in_order_and_order_mapping():
    ties = np.zeros((4, 4))
    assert al.exhaustive_alignment(ties).tolist() == [0, 1, 2, 3]
    assert al.simple_matching(ties).tolist() == [0, 0, 0, 0]
    order = np.array([2, 0, 3, 1])
    # with all scores tied, the first permutation of the *reordered* definitions wins
    assert al.align(ties, "exhaustive", order).tolist() == order.tolist()
    assert al.align(ties, "none", order).tolist() == [0, 0, 0, 0]
    # a unique optimum is found whatever the order
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(5, 5))
    want = al.optimal_alignment(scores).tolist()
    for method in ("optimal", "exhaustive"):
        assert al.align(scores, method, al.tie_break_order("n/1", 5)).tolist() == want
    assert al.align(scores, "none", al.tie_break_order("n/1", 5)).tolist() == al.simple_matching(scores).tolist()


def test_tie_break_order_is_deterministic_and_unbiased():
    assert al.tie_break_order("n/7", 8).tolist() == al.tie_break_order("n/7", 8).tolist()
    # constant scores: the accuracy over many groups approaches chance (1/k), not 1
    accs = [al.accuracy(al.align(np.zeros((6, 6)), "optimal", al.tie_break_order(f"g{i}", 6)))
            for i in range(600)]
    assert abs(np.mean(accs) - 1 / 6) < 0.05
