"""The random rows of the report's "Models by method" table: under each model's rows, one per baseline of
its results, told apart when two would read alike (another item set, another --max-candidates), one row
where its results share the baseline (a likelihood run and a choose run showing every candidate). Expected figures are hand-computed from the two groups of
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


def _summary(folder, names, tmp_path):
    """[(model column, method column, W2D P@1, D2W P@1)] of the summary table, in table order."""
    out = tmp_path / "report"
    assert main(["report", *[str(folder / n) for n in names], "--out", str(out)]) == 0
    table = read_page((out / "index.html").read_text()).tables[SUMMARY]
    head = [c[0] for c in table[0]]
    w2d, d2w = head.index("W2D P@1 (%)"), head.index("D2W P@1 (%)")

    def value(cell):
        return float(cell[1]["data-value"]) if "data-value" in cell[1] else None

    return [(row[0][0], row[1][0], value(row[w2d]), value(row[d2w])) for row in table[1:]]


def _models_and_their_random_rows(rows):
    """{model: {random row label: (W2D, D2W)}}: each Random row belongs to the model rows above it."""
    out: dict = {}
    model = None
    for name, method, w2d, d2w in rows:
        if name == "Random":
            assert model is not None, "a Random row before any model's rows"
            assert method not in out[model], f"two Random rows alike for {model}: {method}"
            out[model][method] = (w2d, d2w)
        else:
            if name != model:
                assert name not in out, f"the rows of {name} are not together"
            model = name
            out.setdefault(model, {})
    return out


def _same(got: dict, expected: dict) -> None:
    """{model: {label: (W2D, D2W)}} equal: the same models and labels, the figures to rounding."""
    assert {m: sorted(rows) for m, rows in got.items()} == {m: sorted(rows) for m, rows in expected.items()}
    for model, rows in expected.items():
        for label, figures in rows.items():
            assert got[model][label] == pytest.approx(figures), (model, label)


def test_each_model_has_its_random_rows_after_its_rows(runs, tiny_llama, tmp_path):
    """#34: a Random row sits under the model whose items it is of, never pooled over several models' files;
    a model's runs on the same items share a row of each kind (a likelihood run and a choose run that showed
    every candidate: the same figures, asked two ways, one row each kind)."""
    rows = _summary(runs, ["rand.json", "choose4.json", "lik.json"], tmp_path)
    by_model = _models_and_their_random_rows(rows)
    _same(by_model, {
        "random": {"all candidates": (ALL_CANDIDATES, ALL_CANDIDATES)},  # the random scorer's own items
        str(tiny_llama): {"all candidates": (ALL_CANDIDATES, ALL_CANDIDATES),
                          "options shown (choose)": (ALL_CANDIDATES, ALL_CANDIDATES)},
    })
    assert [r[0] for r in rows][-1] == "Random"  # the last model's random rows close the table


def test_baselines_of_other_items_or_options_are_told_apart(runs, tiny_llama, tmp_path):
    by_model = _models_and_their_random_rows(
        _summary(runs, ["rand.json", "choose4.json", "lik.json", "rand-1.json", "choose2.json"], tmp_path))
    (target,) = {i["target"] for i in json.loads((runs / "rand-1.json").read_text())["instances"]}
    one = {"dog.n.01": 1 / 4, "oak.n.01": 1 / 3}[target]
    _same(by_model, {
        "random": {"all candidates: items of rand.json": (ALL_CANDIDATES, ALL_CANDIDATES),
                   "all candidates: items of rand-1.json": (one, one)},
        str(tiny_llama): {
            "all candidates": (ALL_CANDIDATES, ALL_CANDIDATES),  # one of its kind for this model: no files named
            "options shown (choose): ≤4 options, items of choose4.json": (ALL_CANDIDATES, ALL_CANDIDATES),
            "options shown (choose): ≤2 options, items of choose2.json": (1 / 2, 1 / 2),  # 2 of each group's shown
        },
    })
