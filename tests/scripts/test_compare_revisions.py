"""scripts/compare_revisions.py: the result-file comparison it reports (the timing is printed, not tested)."""

from __future__ import annotations

from scripts.compare_revisions import compared, differences


def test_differences_name_each_differing_path():
    before = {"metrics": {"w2d": {"p_at_1": 0.5, "n": 4}}, "instances": [{"id": "a", "rank": 1}], "only": 1}
    after = {"metrics": {"w2d": {"p_at_1": 0.5 + 1e-13, "n": 5}}, "instances": [{"id": "a", "rank": 2}]}
    assert differences(before, after) == ["/instances[0]/rank", "/metrics/w2d/n", "/only"]
    assert differences([1, 2], [1, 2, 3]) == [" (length 2 vs 3)"]
    assert differences(before, before) == []
    assert differences({"x": 0.1}, {"x": 0.1 + 1e-6}) == ["/x"]


def test_the_run_record_is_compared_by_its_job_only():
    """The run record's time, command and revision differ between any two runs; its ``job`` (the resume key's
    digest) does not, and a refactor that lost it (sense ranking once skipped its key on a run without a log, so
    ``run.job`` became null) must show."""
    a = {"metrics": {"x": 1}, "run": {"job": "abc", "created": "t1", "commit": "r1"}, "timing": {"seconds": 3}}
    b = {"metrics": {"x": 1}, "run": {"job": "abc", "created": "t2", "commit": "r2"}, "timing": {"seconds": 4}}
    assert differences(compared(a), compared(b)) == []
    assert differences(compared(a), compared({**b, "run": {**b["run"], "job": None}})) == ["/run.job"]
