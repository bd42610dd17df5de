import math

import numpy as np
import pytest

from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup
from lexprobe.cache import partial_path
from lexprobe.errors import DataError
from lexprobe.scorers.base import Scorer
from tests.benchmarks.wdlmpro.helpers import evaluate_groups


class ScriptedScorer(Scorer):
    """Returns fixed scores per (task, target); counts calls to check resuming."""

    def __init__(self, table, fail_on=None):
        super().__init__("scripted")
        self.kind = "random"
        self.table = table
        self.fail_on = fail_on
        self.calls = []

    def random_scores(self, requests, progress=False):
        out = []
        for r in requests:
            _, task, target = r.key.split(":")
            self.calls.append((task, target))
            if target == self.fail_on:
                raise KeyboardInterrupt
            out.append(np.asarray(self.table[(task, target)], dtype=float))
        return out


def _group(name, pos, n):
    cands = tuple(Candidate(f"{name}{i}.{pos}.01" if i else f"{name}.{pos}.01", f"{name}{i}", f"def {i}") for i in range(n))
    return SynsetGroup(cands[0].synset, pos, cands[0].word, cands)


GROUPS = [_group("a", "n", 5), _group("b", "n", 4), _group("c", "v", 3)]
TABLE = {
    ("w2d", "a.n.01"): [0.9, 0.1, 0.2, 0.3, 0.4],  # rank 1
    ("w2d", "b.n.01"): [0.5, 0.6, 0.5, 0.1],  # rank 3 (tie counts against gold)
    ("w2d", "c.v.01"): [0.2, 0.3, 0.1],  # rank 2
    ("d2w", "a.n.01"): [0.1, 0.2, 0.3, 0.4, 0.5],  # rank 5
    ("d2w", "b.n.01"): [0.9, 0.0, 0.0, 0.0],  # rank 1
    ("d2w", "c.v.01"): [0.9, 0.3, 0.1],  # rank 1
}


def test_metrics_hand_computed():
    r = evaluate_groups(ScriptedScorer(TABLE), GROUPS)
    w2d = r["metrics"]["w2d"]
    assert w2d["n"] == {"p_at_1": 0.5, "rank_score": pytest.approx((1 + 1 / 3) / 2), "n": 2,
                        # two targets (RS 1 and 1/3): the bootstrap interval spans both
                        "ci": {"p_at_1": [0.0, 1.0], "rank_score": [0.333333, 1.0]}}
    assert w2d["v"]["rank_score"] == pytest.approx(0.5)
    assert w2d["all"]["p_at_1"] == pytest.approx(1 / 3)
    assert w2d["all"]["rank_score"] == pytest.approx((1 + 1 / 3 + 0.5) / 3)
    d2w = r["metrics"]["d2w"]
    assert d2w["all"]["p_at_1"] == pytest.approx(2 / 3)
    assert d2w["n"]["rank_score"] == pytest.approx(0.5)
    base = r["baselines"]["random"]["w2d"]["all"]
    assert base["p_at_1"] == pytest.approx((1 / 5 + 1 / 4 + 1 / 3) / 3)
    assert base["rank_score"] == 0.5
    inst = {(i["task"], i["target"]): i for i in r["instances"]}
    assert inst[("w2d", "b.n.01")]["gold_rank"] == 3
    assert inst[("w2d", "b.n.01")]["predicted"] == "b1.n.01"
    assert inst[("d2w", "a.n.01")]["predicted"] == "a4.n.01"
    assert set(r) >= {"schema_version", "benchmark", "tasks", "model", "config", "metrics", "baselines", "breakdowns", "instances"}


def test_breakdowns_use_attributes():
    attrs = {"a.n.01": "rare", "b.n.01": "frequent", "c.v.01": "rare"}
    fn = lambda chunk: [{"frequency_band": attrs[g.target], "depth_band": "3–5"} for g in chunk]  # noqa: E731
    r = evaluate_groups(ScriptedScorer(TABLE), GROUPS, task="w2d", attributes=fn)
    freq = r["breakdowns"]["w2d"]["frequency"]["n"]
    assert list(freq) == ["rare", "frequent"]
    assert freq["rare"]["p_at_1"] == 1.0 and freq["frequent"]["p_at_1"] == 0.0
    assert freq["frequent"]["random_p_at_1"] == pytest.approx(1 / 4)
    assert r["breakdowns"]["w2d"]["depth"]["v"]["3–5"]["n"] == 1


def test_interrupted_run_resumes_without_rescoring(tmp_path):
    out = tmp_path / "res.json"
    scorer = ScriptedScorer(TABLE, fail_on="c.v.01")
    with pytest.raises(KeyboardInterrupt):
        evaluate_groups(scorer, GROUPS, out=out, chunk_size=1)
    assert partial_path(out).exists()  # the first two chunks are kept
    again = ScriptedScorer(TABLE)
    r = evaluate_groups(again, GROUPS, out=out, chunk_size=1)
    assert {t for _, t in again.calls} == {"c.v.01"}
    assert r["metrics"] == evaluate_groups(ScriptedScorer(TABLE), GROUPS)["metrics"]


def test_empty_input_is_an_error():
    with pytest.raises(DataError, match="no WDLMPro groups"):
        evaluate_groups(ScriptedScorer(TABLE), [])


def test_the_likelihood_method_returns_records_that_every_figure_comes_from():
    r = evaluate_groups(ScriptedScorer(TABLE), GROUPS, task="w2d")
    # every figure from the per-target records: metrics, the random baseline and the POS breakdown agree
    assert r["metrics"]["w2d"]["all"]["n"] == r["baselines"]["random"]["w2d"]["all"]["n"] == 3
    assert r["breakdowns"]["w2d"]["pos"]["v"]["v"]["p_at_1"] == r["metrics"]["w2d"]["v"]["p_at_1"] == 0.0
    assert r["breakdowns"]["w2d"]["pos"]["n"]["n"]["random_p_at_1"] == r["baselines"]["random"]["w2d"]["n"]["p_at_1"]
