"""People's results go through ``report`` and ``compare`` beside a model run on the same items."""

import json

from lexprobe.benchmarks.wdlmpro.human import sample_human
from lexprobe.core.human_score import results_for
from lexprobe.report.build import write_report
from lexprobe.report.compare import compare_files
from lexprobe.reporting import write_json
from lexprobe.scorers.random import RandomScorer
from tests.benchmarks.wdlmpro.helpers import evaluate_groups
from tests.human.helpers import GROUPS, item_set


def test_a_person_and_a_model_on_the_same_w2d_items_compare_and_report(tmp_path):
    s = item_set(tmp_path, "wdlmpro")
    items = [it for it in s["items"] if it["task"] == "w2d"]
    answers = {"ann": {it["id"]: it["answer"] for it in items}}  # ann is always right
    human = write_json(tmp_path / "human.json", results_for(s, answers)["w2d-ann"])
    # the model on the people's W2D subset (what `wdlmpro sample-human` writes as human_w2d.jsonl)
    groups = sample_human(GROUPS, n=2, max_candidates=10, seed=0)["w2d"]["groups"]
    model = tmp_path / "model.json"
    evaluate_groups(RandomScorer(0), groups, out=model, task="w2d")
    assert json.loads(model.read_text())["run"]["items_digest"] == s["digests"]["w2d"]

    cmp = compare_files(human, model)
    (row,) = [r for r in cmp["rows"] if r["pos"] == "all"]  # P@1 only: a choice gives no rank score
    assert row["metric"] == "P@1" and row["n"] == 2 and row["a"] == 1.0 and row["test"] == "McNemar exact"
    report = write_report([human, model], tmp_path / "report")
    html = report.read_text() if report.is_file() else (report / "index.html").read_text()
    assert "human:ann" in html
