"""`--method` not given: every benchmark's `eval` asks the first of its methods (in declared order) that the model
serves, read from the model's files before anything loads (`wsd eval --model all-MiniLM-L6-v2` was refused for
the likelihood method, which needs continuations, while `wdlmpro eval` and `lexprobe run` took the same model);
`evaluate` with no config does the same for the scorer it is given."""

from __future__ import annotations

import json

import pytest

from lexprobe.cli import main
from lexprobe.core.contract import served_method
from lexprobe.core.registry import get
from lexprobe.models import prepare_model


@pytest.mark.parametrize("model, bench, expected", [
    ("minilm_path", "wsd", "embedding"), ("minilm_path", "wdlmpro", "likelihood"),
    ("minilm_path", "coda21", "likelihood"), ("tiny_gpt2", "wsd", "likelihood"), ("tiny_bert", "wsd", "embedding"),
    ("random", "wsd", "likelihood"), ("tiny_gpt2", "coda21", "likelihood")])
def test_the_first_method_the_model_serves_is_chosen_from_its_files(model, bench, expected, request, monkeypatch):
    import lexprobe.models as models

    reference = "random" if model == "random" else str(request.getfixturevalue(model))
    monkeypatch.setattr(models, "load_transformers", lambda *a, **k: pytest.fail("weights loaded"))
    assert served_method(get(bench), prepare_model(reference).serves) == expected


def test_a_model_known_only_once_it_loads_keeps_the_declared_default():
    served = prepare_model("http://127.0.0.1:9/v1").serves
    assert served("causal") is None and served_method(get("wsd"), served) is None


def test_wsd_eval_takes_minilm_without_method(imported_data, minilm_path, tmp_path, capsys):
    out = tmp_path / "minilm.json"
    assert main(["wsd", "eval", "--model", "all-MiniLM-L6-v2", "--limit", "2", "--out", str(out)]) == 0, \
        capsys.readouterr().err
    result = json.loads(out.read_text())
    assert result["method"] == "embedding" and "--method embedding" in result["run"]["reproduce"]


def test_eval_help_says_the_default_method_follows_the_model(capsys):
    with pytest.raises(SystemExit):
        main(["wsd", "eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: the first of likelihood, embedding, choose that the model serves" in text


def test_evaluate_without_a_config_asks_what_the_scorer_serves(imported_data, minilm_path):
    from lexprobe.api import evaluate, load_scorer
    from lexprobe.benchmarks.wsd.config import WsdConfig
    from lexprobe.benchmarks.wsd.items import load_items

    items = load_items(WsdConfig(limit=1))
    result = evaluate("wsd", load_scorer(str(minilm_path), prefer="token"), items=items)
    assert result is not None and result["method"] == "embedding"
