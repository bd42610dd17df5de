"""Issue #29: the report says what its numbers mean: flags (at chance by the interval, few answers parsed,
position bias), readable labels, the queries a bucket table leaves out, what a failure is."""

from __future__ import annotations

from lexprobe.report.html import to_html
from lexprobe.tables import Cell, Table, Text, baseline_label, biased, flag_notes, parse_rate, vs_random


def test_a_figure_is_at_chance_when_its_interval_reaches_the_baseline():
    assert vs_random(Cell(0.080, [0.03, 0.14]), 0.124).flags == ("chance",)  # SmolLM2 W2D: 8.0 vs random 12.4
    assert vs_random(Cell(0.30, [0.13, 0.40]), 0.124).flags == ()  # its interval clears the baseline
    assert vs_random(Cell(0.30, [0.12, 0.40]), Cell(0.124)).flags == ("chance",)  # the lower bound below it
    assert vs_random(Cell(0.10), {"p_at_1": 0.124}, "p_at_1").flags == ("chance",)  # no interval: the value
    assert vs_random(Cell(None), 0.1).flags == () and vs_random(Cell(0.5, [0.4, 0.6]), None).flags == ()


def test_parse_rate_and_position_bias_thresholds():
    assert parse_rate(Cell(0.0)).flags == ("parse",) and parse_rate(Cell(0.49)).flags == ("parse",)
    assert parse_rate(Cell(0.5)).flags == ()
    assert biased({"most_chosen_share": 0.96, "gold_share_there": 0.12})  # option 1 in 96% of answers
    assert not biased({"most_chosen_share": 0.96, "gold_share_there": 0.9})  # gold is mostly there: no bias
    assert not biased({"most_chosen_share": 0.45, "gold_share_there": 0.1})


def test_flags_are_marked_and_explained_under_the_table():
    t = Table("x", "T", ["Model", "P@1"], [["m", vs_random(Cell(0.08, [0.03, 0.14]), 0.124)]])
    out = to_html(t)
    assert "class='num flag flag-chance'" in out and "title='at chance" in out
    assert "flagnote-chance" in out and len(flag_notes(t)) == 1
    assert "<div class='tablebox'>" in out  # wide tables scroll in their own box


def test_baseline_rows_on_other_items_name_the_files_not_a_digest():
    a = {"_path": "/r/a.json", "run": {"items_digest": "16700378" + "0" * 56}}
    b = {"_path": "/r/b.json", "run": {"items_digest": "99" * 32}}
    assert baseline_label("Random (expected)", a, [a]) == "Random (expected)"
    label = baseline_label("Random (expected)", a, [a, b])
    assert isinstance(label, Text) and label.text() == "Random (expected), on the items of a.json"
    assert "[items" not in label.text() and a["run"]["items_digest"] in label.tip
    html = to_html(Table("x", "T", ["Model"], [[label]]))
    assert f"title='items digest {a['run']['items_digest']}" in html


def _bucketed(single: int):
    slices = {"l<500 r<0.25": {"n": 73}, "l<500 0.25<=r<1": {"n": 426}, "l>=500 r<0.25": {"n": 0},
              "all": {"n": 633}}
    return {"tasks": ["semcor"], "metrics": {"semcor": slices}, "counts": {"single_sense_queries": single}}


def test_the_bucket_table_says_which_queries_it_leaves_out():
    from lexprobe.benchmarks.senserank.tables import outside_buckets

    note = outside_buckets(_bucketed(134))
    assert "499 of the 633 queries" in note and "134 with r = 1" in note
    assert "100 outside the bucket edges" in outside_buckets(_bucketed(34))
    full = _bucketed(0)
    full["metrics"]["semcor"]["all"]["n"] = 499
    assert outside_buckets(full) == ""


def test_sense_ranking_failures_are_rankings_no_better_than_chance():
    from lexprobe.benchmarks.senserank.benchmark import SENSERANK
    from lexprobe.benchmarks.senserank.results import failure_rows

    base = {"lemma": "bank", "pos": "n", "label": "bank%1:14:00::", "top": ["a", "b"], "n_relevant": 8,
            "n_candidates": 10, "context": "the [bank] of the river"}
    result = {"tasks": ["semcor"], "model": {"name": "m"}, "instances": [
        dict(base, id="q1", ap=0.88, hits="0111111"),  # nearest neighbour wrong, the ranking still good
        dict(base, id="q2", ap=0.55, hits="1000000"),  # first right, but below R/N = 0.8: no better than chance
    ]}
    rows = {r["item"].split("(")[-1].rstrip(")"): r for r in failure_rows(result)}
    assert rows["q1"]["ok"] and not rows["q2"]["ok"]
    assert "the [bank] of the river" in rows["q2"]["item"] and rows["q2"]["score"] == "55.0 (80.0)"  # in % (#34 item 5)
    assert "no better than chance" in SENSERANK.presentation.failure_note


def test_the_bundled_semcor_sample_is_recorded_as_a_sample(tmp_path):
    from lexprobe.benchmarks.coda21.benchmark import CodaConfig
    from lexprobe.core.registry import get
    from lexprobe.benchmarks.senserank.config import SenseConfig
    from lexprobe.data.semcor import sample_archive

    sense = get("senserank").items.dataset(SenseConfig(corpus="semcor", path=str(sample_archive())))
    assert sense["sample"] is True and sense["get"] == "lexprobe data fetch semcor"
    other = tmp_path / "semcor.tar.gz"
    other.write_bytes(b"")
    assert get("senserank").items.dataset(SenseConfig(corpus="semcor", path=str(other)))["sample"] is False
    assert get("coda21").items.dataset(CodaConfig(data=str(tmp_path / "coda21-small-clean-hard.json")))["sample"] is True
    assert get("coda21").items.dataset(CodaConfig(data="clean-hard")) == {"name": "CoDA21 clean-hard", "sample": False}
