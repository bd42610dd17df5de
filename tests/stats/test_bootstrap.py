import numpy as np
import pytest
from scipy import stats as sps

from lexprobe.stats import bootstrap as B


def test_constant_values_give_a_point_interval():
    assert B.mean_interval([0.25] * 7) == [0.25, 0.25]


def test_two_units_hand_computed():
    # resampled means of {0, 1} are 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4:
    # the 2.5th and 97.5th percentiles are 0 and 1
    assert B.mean_interval([0.0, 1.0]) == [0.0, 1.0]
    # and of one unit: that unit
    assert B.mean_interval([0.7]) == [0.7, 0.7]


def test_no_units_and_missing_values():
    assert B.mean_interval([]) is None
    out = B.mean_intervals({"p_at_1": [1, 0, 1], "rank_score": [1.0, None, 0.5]})
    assert set(out) == {"p_at_1"}


def test_resampled_means_equal_plain_indexing(monkeypatch):
    values = np.random.default_rng(3).random((37, 2))
    monkeypatch.setattr(B, "_MAX_CELLS", 10**9)  # one batch, so the draws are the plain ones
    got = B.resampled_means(values, resamples=50, seed=11)
    idx = np.random.default_rng(11).integers(0, 37, size=(50, 37))
    np.testing.assert_allclose(got, values[idx].mean(axis=1), rtol=1e-12)


def test_batched_resampling_is_seeded_and_deterministic(monkeypatch):
    values = np.random.default_rng(4).random(500)
    monkeypatch.setattr(B, "_MAX_CELLS", 1000)  # many small batches
    a = B.mean_interval(values, seed=5)
    b = B.mean_interval(values, seed=5)
    assert a == b and a[0] < values.mean() < a[1]


def test_agrees_with_scipy_percentile_bootstrap():
    rng = np.random.default_rng(0)
    for values in (rng.random(200), (rng.random(300) < 0.3).astype(float)):
        ours = B.mean_interval(values, resamples=20000, seed=1)
        ref = sps.bootstrap((values,), np.mean, n_resamples=20000, method="percentile",
                            confidence_level=0.95, rng=np.random.default_rng(2)).confidence_interval
        assert ours[0] == pytest.approx(ref.low, abs=0.004)
        assert ours[1] == pytest.approx(ref.high, abs=0.004)


def test_metrics_share_resamples():
    # a metric that is another one plus a constant gets the same interval shifted
    x = np.random.default_rng(2).random(60)
    out = B.mean_intervals({"a": x, "b": x + 1.0})
    assert out["b"][0] == pytest.approx(out["a"][0] + 1, abs=1e-6)
    assert out["b"][1] == pytest.approx(out["a"][1] + 1, abs=1e-6)
