"""All-words WSD's exports: the Hugging Face folder (read by `datasets`, round trip through `lexprobe wsd eval
--data EXPORT`) and the lm-eval tasks, whose accuracy is lexprobe's F1 with `--reduce sum` instance by instance."""

from __future__ import annotations

import json

import pytest

from lexprobe.cli import main
from tests.data.test_wsd import write_pair
from tests.export.helpers import lm_eval_scores, run_lm_eval
from tests.export.test_hf import same_result
from tests.optional import needs_package


@pytest.fixture()
def mini(tmp_path):
    return write_pair(tmp_path / "data", name="mini")


def _eval(data, out, *more) -> dict:
    assert main(["wsd", "eval", "--data", str(data), "--out", str(out), *map(str, more)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("model", ["random", "tiny_gpt2"])
def test_the_hf_export_round_trips_and_datasets_reads_it(mini, tmp_path, model, request):
    datasets = needs_package("datasets")
    from lexprobe.data.wsd import ROWS

    export = tmp_path / "export"
    assert main(["export", "hf", "wsd", "--data", str(mini), "--out", str(export)]) == 0
    rows = datasets.load_dataset(str(export), split="test")
    assert [r["id"] for r in rows] == ["d000.s000.t000", "d000.s000.t001", "d000.s000.t002", "d000.s001.t000",
                                       "d000.s001.t001"]
    assert rows[2]["gold"] == ["peculiar%5:00:00:specific:00", "peculiar%5:00:00:characteristic:00"]
    assert rows[1]["candidates"][0]["key"] == "change_ringing%1:04:00::"
    assert rows.features == datasets.Features.from_arrow_schema(ROWS.schema())
    model = request.getfixturevalue(model) if model != "random" else model
    original = _eval(mini, tmp_path / "original.json", "--model", model)
    again = _eval(export, tmp_path / "again.json", "--model", model)
    same_result(original, again)


def test_the_lm_eval_task_is_lexprobes_summed_likelihood(mini, tmp_path, tiny_gpt2):
    """lm-eval's `acc` per instance and over the set = lexprobe's credit and F1 with `--reduce sum`; its
    log-likelihoods = lexprobe's summed scores of the candidates' definitions."""
    needs_package("lm_eval")
    from lexprobe.models import load_scorer

    folder = tmp_path / "lm-eval"
    assert main(["export", "lm-eval", "wsd", "--data", str(mini), "--out", str(folder)]) == 0
    ours = _eval(mini, tmp_path / "sum.json", "--model", tiny_gpt2, "--reduce", "sum")
    scorer = load_scorer(str(tiny_gpt2), kind="causal")
    theirs, samples, _ = run_lm_eval(folder, ["lexprobe_wsd_mini"], scorer)
    by_id = samples["lexprobe_wsd_mini"]
    assert len(by_id) == len(ours["instances"]) == 5
    for record in ours["instances"]:
        sample = by_id[record["id"]]
        assert sample["acc"] == record["correct"]
        if "scores" in record:  # an instance with one sense: lexprobe answers without scoring
            assert lm_eval_scores(sample) == pytest.approx(record["scores"], abs=1e-4)
    assert theirs["lexprobe_wsd_mini"]["acc,none"] == pytest.approx(ours["metrics"]["wsd"]["all"]["f1"], abs=1e-12)
