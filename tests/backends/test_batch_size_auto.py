"""``--batch-size auto`` is resolved once, where the scorer is made (``Scorer.batch_size`` is always an int;
``auto_batch`` asks for the token-budget search), so no command meets the string ``"auto"`` (#26: three
commands were ``int("auto")`` tracebacks: choose's generation batches, the layer sweep's chunks and the
CoDA21 builder's context batches)."""

import json

import pytest

from lexprobe.cli import main
from tests.llm.test_choose import GROUPS


def test_resolve_batch_size_is_the_one_reading_of_auto():
    from lexprobe.scorers.base import resolve_batch_size

    assert resolve_batch_size(None, 32) == (32, False)
    assert resolve_batch_size("auto", 64) == (64, True)
    assert resolve_batch_size(5, 32) == (5, False)
    for bad in (0, -1, True, 2.5, "x"):
        with pytest.raises(ValueError):
            resolve_batch_size(bad, 32)


def test_wdlmpro_choose_with_batch_size_auto(tiny_qwen2, tmp_path):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl

    data = write_jsonl(GROUPS, tmp_path / "groups.jsonl")
    out = tmp_path / "w.json"
    assert main(["wdlmpro", "eval", "--data", str(data), "--model", str(tiny_qwen2), "--out", str(out),
                 "--method", "choose", "--max-candidates", "3", "--max-new-tokens", "2", "--device", "cpu",
                 "--batch-size", "auto"]) == 0
    assert json.loads(out.read_text())["method"] == "choose"


def test_senserank_layers_all_with_batch_size_auto(tiny_bert, tmp_path):
    from lexprobe.data.semcor import sample_archive

    out = tmp_path / "s.json"
    assert main(["senserank", "eval", "--corpus", "semcor", "--path", str(sample_archive()), "--max-instances", "40",
                 "--model", str(tiny_bert), "--device", "cpu", "--layers", "all", "--batch-size", "auto",
                 "--out", str(out)]) == 0
    assert json.loads(out.read_text())["sweep"]["values"]


def test_coda21_build_with_batch_size_auto(tiny_bert, minilm_path, tmp_path):
    from lexprobe.data.semcor import sample_archive

    out = tmp_path / "coda.json"
    assert main(["coda21", "build", "--semcor", str(sample_archive()), "--pos", "n", "--max-groups", "1",
                 "--embed-model", str(minilm_path), "--context-model", str(tiny_bert), "--device", "cpu",
                 "--batch-size", "auto", "--out", str(out)]) == 0
    assert out.exists()
