"""Records in, sections out (#28): ``contract.sections`` builds metrics, baselines and intervals from the
per-unit values a method returns; checked against figures computed by hand."""

from __future__ import annotations

import dataclasses

import pytest

from lexprobe.core.contract import Records, Unit, sections
from tests.toy_benchmark import TOY


def _values(result):
    return [Unit(r["word"], "pick", r["pos"], {"accuracy": r["correct"], "rank": r.get("rank")})
            for r in result["instances"]]


#: the toy with a part of speech per record and a metric some units lack
SLICED = dataclasses.replace(TOY, results=dataclasses.replace(TOY.results, unit_values=_values))


RECORDS = [{"word": "a", "pos": "n", "correct": 1.0, "k": 2, "rank": 1.0},
           {"word": "b", "pos": "n", "correct": 0.0, "k": 4, "rank": 0.5},
           {"word": "c", "pos": "v", "correct": 1.0, "k": 4}]


def test_metrics_are_means_per_slice_with_n_and_intervals():
    s = sections(SLICED, Records(RECORDS, counts={"skipped_items": 0}), "likelihood", {})
    m = s["metrics"]["pick"]
    assert list(m) == ["n", "v", "all"]
    assert m["all"]["accuracy"] == pytest.approx(2 / 3) and m["all"]["n"] == 3
    assert m["n"]["accuracy"] == 0.5 and m["n"]["n"] == 2 and m["v"]["accuracy"] == 1.0
    assert m["all"]["rank"] == 0.75  # the mean over the units that have it (c has none)
    assert "rank" not in m["all"]["ci"]  # ... and no interval, since one unit lacks it
    assert m["v"]["ci"]["accuracy"] == [1.0, 1.0]  # a constant column: exactly its value
    lo, hi = m["all"]["ci"]["accuracy"]
    assert 0.0 <= lo <= 2 / 3 <= hi <= 1.0
    assert s["counts"] == {"skipped_items": 0} and s["instances"] is RECORDS and s["tasks"] == ["pick"]


def test_the_random_baseline_is_aggregated_like_the_model():
    s = sections(TOY, Records([{"word": "a", "correct": 1.0, "k": 2}, {"word": "b", "correct": 0.0, "k": 4}]),
                       "likelihood", {})
    assert s["baselines"]["random"]["pick"]["all"]["accuracy"] == pytest.approx((1 / 2 + 1 / 4) / 2)
    assert s["baselines"]["random"]["pick"]["all"]["n"] == 2
    assert s["metrics"]["pick"]["all"]["accuracy"] == 0.5


def test_a_slice_with_no_value_gives_none_not_a_number():
    s = sections(SLICED, Records([{"word": "a", "pos": "n", "correct": None, "k": 2}]), "likelihood", {})
    assert s["metrics"]["pick"]["all"]["accuracy"] is None and s["metrics"]["pick"]["all"]["ci"] == {}
