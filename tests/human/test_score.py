import pytest

from lexprobe.core.human_score import POOLED, results_for
from tests.human.helpers import item_set


def test_wdlmpro_scores_are_p_at_1_per_task(tmp_path):
    s = item_set(tmp_path, "wdlmpro")
    items = {it["id"]: it for it in s["items"]}
    wrong = lambda i: next(o["label"] for o in items[i]["options"] if o["label"] != items[i]["answer"])  # noqa: E731
    answers = {
        "ann": {"w2d/1": items["w2d/1"]["answer"], "w2d/2": wrong("w2d/2"), "d2w/1": items["d2w/1"]["answer"],
                "d2w/2": items["d2w/2"]["answer"]},
        "bob": {"w2d/1": wrong("w2d/1")},
    }
    res = results_for(s, answers)
    assert set(res) == {f"{t}-{p}" for t in ("w2d", "d2w") for p in ("ann", "bob", POOLED)}
    ann = res["w2d-ann"]
    assert ann["model"] == {"name": "human:ann", "kind": "human"}
    assert ann["tasks"] == ["w2d"] and set(ann["metrics"]) == {"w2d"} and ann["method"] == "human"
    assert ann["metrics"]["w2d"]["all"] == {"p_at_1": 0.5, "rank_score": None, "n": 2,
                                            "ci": {"p_at_1": [0.0, 1.0]}}
    assert res["d2w-ann"]["metrics"]["d2w"]["all"]["p_at_1"] == 1.0
    assert res["d2w-ann"]["metrics"]["d2w"]["all"]["ci"] == {"p_at_1": [1.0, 1.0]}
    assert ann["config"]["complete"] is True and res["w2d-bob"]["config"]["complete"] is False
    assert res["d2w-bob"]["metrics"]["d2w"]["all"]["n"] == 0
    # random P@1 is the mean of 1/L: groups of 4 and 3 candidates
    assert ann["baselines"]["random"]["w2d"]["all"]["p_at_1"] == pytest.approx((1 / 4 + 1 / 3) / 2)
    pooled = res[f"w2d-{POOLED}"]["metrics"]["w2d"]["all"]
    assert pooled["p_at_1"] == pytest.approx(1 / 3) and pooled["n"] == 3
    rec = next(r for r in ann["instances"] if not r["correct"])
    assert rec["gold_rank"] is None and rec["predicted"] != rec["target"]
    assert ann["run"]["model_kind"] == "human" and ann["run"]["items_digest"] == s["digests"]["w2d"]
    assert (ann["run"]["method"], ann["run"]["recipe"]) == ("human", ann["recipe"]) and "protocol" not in ann["config"]


def test_coda_scores_are_alignment_accuracy(tmp_path):
    s = item_set(tmp_path, "coda21", subset=2)
    g = next(it for it in s["items"] if "dust.n.01" in it["synsets"])  # k = 3
    other = next(it for it in s["items"] if it is not g)  # k = 2
    gold = g["answer"]
    swapped = [gold[1], gold[0], gold[2]]  # contexts 0 and 1 swapped: 1 of 3 right
    res = results_for(s, {"ann": {g["id"]: swapped, other["id"]: other["answer"]}})["ann"]
    assert res["run"]["items_digest"] == s["digests"]["alignment"] and res["intervals"]["unit"] == "group"
    rec = next(r for r in res["instances"] if r["id"] == g["id"])
    assert rec["assignment"] == [1, 0, 2]
    assert rec["accuracy"] == pytest.approx(1 / 3)
    m = res["metrics"]["alignment"]
    assert m["n"]["accuracy"] == pytest.approx((1 / 3 + 1) / 2)
    assert m["all"]["accuracy"] == pytest.approx((1 / 3 + 1) / 2)
    assert res["baselines"]["random"]["alignment"]["all"]["accuracy"] == pytest.approx((1 / 3 + 1 / 2) / 2)
