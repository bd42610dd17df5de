"""Issue #19: item 12's second half (``--permutations`` bounded by the items' distinct orders).

Written to fail on the code before it: ``--permutations 100000`` was accepted and ran.
"""

from __future__ import annotations

import pytest

from tests.human.helpers import wdlmpro_data
from tests.robustness.test_hardening_3 import run_cli


class ModelLoaded(Exception):
    pass


# --- 12. choose --permutations bounded by the largest item's distinct option orders -------------

@pytest.mark.parametrize("bench,most,too_many", [
    ("wdlmpro", 24, 25),  # largest group: 4 candidates -> 4! orders
    ("coda", 36, 37),     # largest group: 3 pairs, contexts and definitions each ordered -> (3!)^2
])
def test_12_permutations_beyond_the_distinct_orders_are_refused_before_the_model(bench, most, too_many, tmp_path,
                                                                               capsys, monkeypatch):
    from lexprobe import cli_common
    from tests.benchmarks.coda21.helpers import write_small

    def load(*a, **k):
        raise ModelLoaded

    monkeypatch.setattr(cli_common, "scorer_from_args", load)
    data = wdlmpro_data(tmp_path) if bench == "wdlmpro" else write_small(tmp_path / "coda.json")
    argv = [bench, "eval", "--data", data, "--model", "random", "--method", "choose", "--out", tmp_path / "r.json"]
    for huge in (too_many, 100000):
        code, err = run_cli(argv + ["--permutations", huge], capsys)
        assert code == 2 and err.count("\n") == 0, err
        assert f"--permutations {huge}" in err and f"{most} distinct option orders" in err
    assert not (tmp_path / "r.json").exists()
    with pytest.raises(ModelLoaded):  # the largest allowed value passes the check and reaches the model load
        run_cli(argv + ["--permutations", most], capsys)
