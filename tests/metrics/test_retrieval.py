"""Retrieval metrics against values computed by hand (and random AP by enumeration)."""

import itertools
import math

import numpy as np
import pytest

from lexprobe.metrics import retrieval as R


def test_cumulative_hits_pads_short_lists():
    assert R.cumulative_hits([1, 0, 1], k=5).tolist() == [1, 1, 2, 2, 2]


def test_average_precision_by_hand():
    # P@1 = 1, P@3 = 2/3 at the relevant ranks; normalised by min(R=3, k=5) = 3
    assert R.average_precision([1, 0, 1, 0, 0], n_relevant=3, k=5) == pytest.approx((1 + 2 / 3) / 3)
    # fewer relevant than k: normalise by R
    assert R.average_precision([0, 1], n_relevant=1, k=50) == pytest.approx(0.5)
    # more relevant than k: normalise by k
    assert R.average_precision([1, 1], n_relevant=10, k=2) == pytest.approx(1.0)
    assert R.average_precision([0, 0], n_relevant=0) == 0.0


def test_oracle_and_random_hits_by_hand():
    assert R.oracle_hits(3, 5, k=5).tolist() == [1, 2, 3, 3, 3]
    assert R.random_expected_hits(3, 5, k=6) == pytest.approx([0.6, 1.2, 1.8, 2.4, 3.0, 3.0])


def test_random_expected_ap_by_hand_and_by_enumeration():
    # 1/3 * 0.6 * (1 + 1.5/2 + 2/3 + 2.5/4 + 3/5)
    assert R.random_expected_ap(3, 5, k=5) == pytest.approx(0.6 * (1 + 0.75 + 2 / 3 + 0.625 + 0.6) / 3)
    for n, r, k in [(5, 3, 5), (6, 2, 3), (7, 7, 4), (4, 1, 10), (8, 3, 8)]:
        aps = []
        for rel_pos in itertools.combinations(range(n), r):
            hits = [1 if i in rel_pos else 0 for i in range(n)]
            aps.append(R.average_precision(hits[:k], r, k))
        assert R.random_expected_ap(r, n, k) == pytest.approx(np.mean(aps)), (n, r, k)


def test_random_expected_hits_matches_enumeration():
    n, r, k = 6, 2, 4
    tot = np.zeros(k)
    combos = list(itertools.combinations(range(n), r))
    for rel_pos in combos:
        hits = [1 if i in rel_pos else 0 for i in range(n)]
        tot += R.cumulative_hits(hits, k)
    assert R.random_expected_hits(r, n, k) == pytest.approx(tot / len(combos))


def test_pooled_precision_random_and_oracle_by_hand():
    outcomes = [
        R.QueryOutcome(np.array([1, 0, 1]), n_relevant=2, n_candidates=10),
        R.QueryOutcome(np.array([1]), n_relevant=1, n_candidates=1),  # a one-candidate lemma
    ]
    s = R.summarize(outcomes, k=3)
    assert s["queries"] == 2
    assert s["curves"]["model"] == pytest.approx([1.0, 0.5, 0.5])  # (1+1)/2, (1+1)/4, (2+1)/6
    assert s["pooled"] == pytest.approx(2 / 3)
    assert s["curves"]["oracle"] == pytest.approx([1.0, 0.75, 0.5])
    assert s["pooled_oracle"] == pytest.approx(0.75)
    assert s["curves"]["random"] == pytest.approx([0.6, 0.35, 1.6 / 6])
    assert s["pooled_random"] == pytest.approx((0.6 + 0.35 + 1.6 / 6) / 3)
    assert s["map"] == pytest.approx(((1 + 2 / 3) / 2 + 1.0) / 2)


def test_summarize_empty():
    assert R.summarize([], k=50) == {"queries": 0}


def test_buckets_follow_the_original_code():
    assert R.bucket_of(499, 0.2) == "l<500 r<0.25"
    assert R.bucket_of(500, 0.25) == "l>=500 0.25<=r<1"
    assert R.bucket_of(10, 1.0) is None  # single-sense lemmas fall in no r bucket
    assert R.bucket_of(10, 1.0, rarity_edges=(0, 0.25, 1.01)) == "l<500 0.25<=r<1.01"
    assert R.bucket_names() == ["l<500 r<0.25", "l<500 0.25<=r<1", "l>=500 r<0.25", "l>=500 0.25<=r<1"]
    fine = R.parse_edges("0,100,500,inf")
    assert fine == (0, 100, 500, math.inf)
    assert R.bucket_of(150, 0.1, fine) == "100<=l<500 r<0.25"
    with pytest.raises(ValueError):
        R.parse_edges("5,1")
