"""scripts/compare_revisions.py: the result-file comparison it reports (the timing is printed, not tested)."""

from __future__ import annotations

from scripts.compare_revisions import differences


def test_differences_name_each_differing_path():
    before = {"metrics": {"w2d": {"p_at_1": 0.5, "n": 4}}, "instances": [{"id": "a", "rank": 1}], "only": 1}
    after = {"metrics": {"w2d": {"p_at_1": 0.5 + 1e-13, "n": 5}}, "instances": [{"id": "a", "rank": 2}]}
    assert differences(before, after) == ["/instances[0]/rank", "/metrics/w2d/n", "/only"]
    assert differences([1, 2], [1, 2, 3]) == [" (length 2 vs 3)"]
    assert differences(before, before) == []
    assert differences({"x": 0.1}, {"x": 0.1 + 1e-6}) == ["/x"]
