"""`lexprobe wdlmpro eval` end to end on a small dataset file, and its error messages."""

import json

import pytest

from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl
from lexprobe.cli import main


@pytest.fixture(scope="module")
def small_dataset(tmp_path_factory):
    groups = build_groups("v", targets=["beckon.v.01", "wink.v.01"]) + build_groups("n", targets=["crooning.n.01"])
    path = tmp_path_factory.mktemp("data") / "small.jsonl"
    write_jsonl(groups, path)
    return path


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_gpt2"])
def test_eval_writes_result_file(fixture, request, small_dataset, tmp_path, capsys):
    out = tmp_path / "res.json"
    model = str(request.getfixturevalue(fixture))
    code = main(["wdlmpro", "eval", "--model", model, "--data", str(small_dataset), "--out", str(out)])
    assert code == 0
    result = json.loads(out.read_text())
    assert result["benchmark"] == "wdlmpro"
    assert result["metrics"]["w2d"]["all"]["n"] == 3
    assert len(result["instances"]) == 6
    first = result["instances"][0]
    assert {"target", "pos", "n_candidates", "gold_rank", "predicted"} <= set(first)
    assert "Random (expected)" in capsys.readouterr().out
    assert not (tmp_path / "res.json.partial.jsonl").exists()


def test_random_model_and_task_selection(small_dataset, tmp_path):
    out = tmp_path / "r.json"
    assert main(["wdlmpro", "eval", "--model", "random", "--task", "d2w", "--pos", "v",
                 "--data", str(small_dataset), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert list(result["metrics"]) == ["d2w"]
    assert result["metrics"]["d2w"]["all"]["n"] == 2


def test_missing_data_file_is_one_line(tmp_path, capsys):
    code = main(["wdlmpro", "eval", "--model", "random", "--data", str(tmp_path / "nope.jsonl"),
                 "--out", str(tmp_path / "o.json")])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.startswith("lexprobe: error:") and "\n" not in err and "nope.jsonl" in err


def test_malformed_data_file(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"target": "x"\n')
    assert main(["wdlmpro", "eval", "--model", "random", "--data", str(bad), "--out", str(tmp_path / "o.json")]) == 2
    assert "bad.jsonl" in capsys.readouterr().err


def test_unknown_model(small_dataset, tmp_path, capsys):
    code = main(["wdlmpro", "eval", "--model", str(tmp_path / "no-model"), "--data", str(small_dataset),
                 "--out", str(tmp_path / "o.json")])
    assert code == 2
    assert "cannot load model" in capsys.readouterr().err


def test_eval_draws_breakdown_plot_and_plot_command(small_dataset, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["wdlmpro", "eval", "--model", "random", "--data", str(small_dataset), "--out", str(out)]) == 0
    png = tmp_path / "r.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = tmp_path / "again.png"
    assert main(["wdlmpro", "plot", "--result", str(out), "--out", str(again)]) == 0
    assert again.stat().st_size > 1000
    bad = tmp_path / "other.json"
    bad.write_text('{"benchmark": "coda21"}')
    capsys.readouterr()
    assert main(["wdlmpro", "plot", "--result", str(bad), "--out", str(tmp_path / "x.png")]) == 2
    assert "not a lexprobe result file" in capsys.readouterr().err
