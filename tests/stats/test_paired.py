import numpy as np
import pytest
from scipy import stats as sps

from lexprobe.stats.paired import mcnemar_exact, paired_difference, sign_flip_test


def test_mcnemar_hand_computed():
    # 1 unit right only in A, 5 right only in B, 4 concordant: p = 2 * P(X <= 1), X ~ Bin(6, 1/2)
    a = [1, 0, 0, 0, 0, 0, 1, 1, 0, 0]
    b = [0, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    p, detail = mcnemar_exact(a, b)
    assert detail == {"only_a": 1, "only_b": 5}
    assert p == pytest.approx(2 * (1 + 6) / 64)


def test_mcnemar_no_discordant_pairs():
    assert mcnemar_exact([1, 0, 1], [1, 0, 1])[0] == 1.0


def test_sign_flip_hand_computed():
    # |+-1 +-2 +-3| over the 8 sign patterns: 6 4 2 0 0 2 4 6; observed 6 -> p = 2/8
    assert sign_flip_test([1, 2, 3])[0] == pytest.approx(0.25)
    # zero differences change nothing
    assert sign_flip_test([0, 1, 0, 2, 3, 0])[0] == pytest.approx(0.25)
    assert sign_flip_test([0, 0])[0] == 1.0


def _scipy_paired(a, b, **kw):
    return sps.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis), vectorized=True,
                                permutation_type="samples", alternative="two-sided", **kw).pvalue


def test_sign_flip_exact_equals_scipy():
    rng = np.random.default_rng(7)
    for _ in range(3):
        a = rng.integers(0, 5, 12) / 4
        b = rng.integers(0, 5, 12) / 4
        assert sign_flip_test(a - b)[0] == pytest.approx(_scipy_paired(a, b), abs=1e-12)


def test_sign_flip_monte_carlo_close_to_scipy():
    rng = np.random.default_rng(8)
    a = rng.random(60)
    b = a - 0.05 + rng.normal(0, 0.2, 60)
    ours = sign_flip_test(a - b, permutations=20000, seed=3)[0]
    ref = _scipy_paired(a, b, n_resamples=20000, rng=np.random.default_rng(4))
    assert ours == pytest.approx(ref, abs=0.015)


def test_paired_difference_picks_the_test():
    r = paired_difference([1, 1, 0, 1], [0, 1, 0, 0])
    assert r.test == "McNemar exact" and r.difference == pytest.approx(0.5)
    assert r.p_value == pytest.approx(0.5)  # 2 discordant, both for A: 2 * 1/4
    r = paired_difference([0.5, 1.0, 0.25], [0.25, 0.75, 0.0])
    assert r.test == "paired permutation" and r.ci == [0.25, 0.25]  # every difference is 0.25
    assert r.p_value == pytest.approx(0.25)


def test_paired_bootstrap_interval_agrees_with_scipy():
    rng = np.random.default_rng(9)
    a, b = rng.random(150), rng.random(150)
    r = paired_difference(a, b, resamples=20000, seed=2)
    ref = sps.bootstrap((a - b,), np.mean, n_resamples=20000, method="percentile",
                        rng=np.random.default_rng(5)).confidence_interval
    assert r.ci[0] == pytest.approx(ref.low, abs=0.006) and r.ci[1] == pytest.approx(ref.high, abs=0.006)


def test_several_comparisons_drawn_at_once_equal_each_drawn_alone():
    """``paired_differences`` draws the bootstrap resamples once for every comparison with ``a``: each result is the
    one ``paired_difference`` gives alone (same draws: they depend on the number of units and the seed)."""
    import numpy as np

    from lexprobe.stats.paired import paired_difference, paired_differences

    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 300).astype(float)
    others = [rng.integers(0, 2, 300).astype(float), a.copy(), rng.random(300)]
    together = paired_differences(a, others)
    for b, result in zip(others, together):
        alone = paired_difference(a, b).as_dict()
        mine = result.as_dict()
        assert mine.pop("ci") == pytest.approx(alone.pop("ci"), abs=1e-12) and mine == alone
    assert together[1].ci == [0.0, 0.0] and together[2].test == "paired permutation"
