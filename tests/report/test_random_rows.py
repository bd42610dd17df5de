"""The random rows of the report's "Models by method" table: one per baseline, told apart when
two would read alike (another item set, another --max-candidates), one row where results share
the baseline (a random result and a likelihood run on the same items). Expected figures are hand-computed from the two groups of
tests/human/helpers.py: dog (4 candidates) and oak (3)."""

import json

import pytest

from lexprobe.cli import main
from tests.human.helpers import wdlmpro_data
from tests.report.htmltables import read_page

SUMMARY = "Models by method (the table template of docs/llm.md)"
ALL_CANDIDATES = (1 / 4 + 1 / 3) / 2  # the expected P@1 of a random pick among all candidates, per group


@pytest.fixture(scope="module")
def runs(tmp_path_factory, tiny_llama):
    folder = tmp_path_factory.mktemp("random-rows")
    data = str(wdlmpro_data(folder))
    llama = ["--model", str(tiny_llama), "--device", "cpu"]
    commands = {
        "rand.json": ["--model", "random"],
        "rand-1.json": ["--model", "random", "--limit", "1"],  # one of the two groups: another item set
        "lik.json": llama,
        "choose4.json": llama + ["--method", "choose", "--max-candidates", "4"],  # every candidate shown
        "choose2.json": llama + ["--method", "choose", "--max-candidates", "2"],
    }
    for name, args in commands.items():
        assert main(["wdlmpro", "eval", "--data", data, *args, "--out", str(folder / name)]) == 0
    return folder


def _random_rows(folder, names, tmp_path):
    out = tmp_path / "report"
    assert main(["report", *[str(folder / n) for n in names], "--out", str(out)]) == 0
    table = read_page((out / "index.html").read_text()).tables[SUMMARY]
    head = [c[0] for c in table[0]]
    w2d, d2w = head.index("W2D P@1 (%)"), head.index("D2W P@1 (%)")
    return {row[1][0]: (float(row[w2d][1]["data-value"]), float(row[d2w][1]["data-value"]))
            for row in table[1:] if row[0][0] == "Random"}, [row[1][0] for row in table[1:] if row[0][0] == "Random"]


def test_one_baseline_is_one_row(runs, tmp_path):
    """A random result and a likelihood run on the same items: one "all candidates" row (it was two
    alike), beside the choose run's (which showed every candidate: the same figures, asked another way)."""
    rows, labels = _random_rows(runs, ["rand.json", "choose4.json", "lik.json"], tmp_path)
    assert labels == ["all candidates", "options shown (choose)"]
    assert rows == pytest.approx({"all candidates": (ALL_CANDIDATES, ALL_CANDIDATES),
                                  "options shown (choose)": (ALL_CANDIDATES, ALL_CANDIDATES)})


def test_baselines_of_other_items_or_options_are_told_apart(runs, tmp_path):
    rows, labels = _random_rows(runs, ["rand.json", "choose4.json", "lik.json", "rand-1.json", "choose2.json"],
                                tmp_path)
    assert len(labels) == len(set(labels)) == 4
    (target,) = {i["target"] for i in json.loads((runs / "rand-1.json").read_text())["instances"]}
    one = {"dog.n.01": 1 / 4, "oak.n.01": 1 / 3}[target]
    assert rows == pytest.approx({
        "all candidates: items of rand.json, lik.json": (ALL_CANDIDATES, ALL_CANDIDATES),
        "options shown (choose): ≤4 options, items of choose4.json": (ALL_CANDIDATES, ALL_CANDIDATES),
        "all candidates: items of rand-1.json": (one, one),
        "options shown (choose): ≤2 options, items of choose2.json": (1 / 2, 1 / 2),  # 2 of each group's shown
    })
