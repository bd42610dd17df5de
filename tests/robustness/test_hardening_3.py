"""Issue #19 (second half): the items left after tests/robustness/test_hardening_2.py.

Items here: 12 (``--layers``/``--permutations`` bounded before allocating), 15 (``--template``
checked before the model loads), 17 (``report``/``compare`` on malformed results), 18 (an
output's extension checked before the work), 22, 23 (tables.md escaping), 24 (the lock first).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.human.helpers import wdlmpro_data
from tests.robustness import run_cli


@pytest.fixture(scope="module")
def wresult(tmp_path_factory) -> Path:
    """A small WDLMPro result (random scorer)."""
    folder = tmp_path_factory.mktemp("wresult")
    out = folder / "w.json"
    assert main(["wdlmpro", "eval", "--data", str(wdlmpro_data(folder)), "--model", "random",
                 "--out", str(out)]) == 0
    return out


# --- 17. report / compare on malformed results ------------------------------------------------------

def _no_target(r):
    del r["instances"][0]["target"]


def _string_metric(r):
    r["metrics"]["w2d"]["all"]["p_at_1"] = "high"


def _metrics_oops(r):
    r["metrics"] = "oops"


@pytest.mark.parametrize("command", ["report", "compare"])
@pytest.mark.parametrize("damage", [_no_target, _string_metric, _metrics_oops])
def test_17_a_malformed_result_is_one_line(command, damage, wresult, tmp_path, capsys):
    bad = json.loads(wresult.read_text())
    damage(bad)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "bad.json").write_text(json.dumps(bad))
    argv = (["report", folder, "--out", tmp_path / "html"] if command == "report"
            else ["compare", wresult, folder / "bad.json"])
    code, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "bad.json is not a valid lexprobe result" in err


# --- 18. a figure's extension is checked before the work ----------------------------------------

def test_18_a_plot_that_is_not_an_image_is_refused_before_the_work(tmp_path, capsys, load_items_as):
    load_items_as("wdlmpro", lambda *a, **k: pytest.fail("the data was read before --plot was checked"))
    code, err = run_cli(["wdlmpro", "eval", "--data", wdlmpro_data(tmp_path), "--model", "random",
                         "--out", tmp_path / "r.json", "--plot", tmp_path / "x.json"], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "--plot" in err and "x.json" in err and ".png" in err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("command", ["coda heatmap", "wdlmpro plot"])
def test_18_a_figure_out_that_is_not_an_image_is_one_line(command, wresult, tmp_path, capsys):
    from tests.benchmarks.coda21.helpers import write_small

    if command == "coda heatmap":
        data = write_small(tmp_path / "coda.json")
        assert main(["coda", "eval", "--data", str(data), "--model", "random", "--out", str(tmp_path / "c.json")]) == 0
        argv = ["coda", "heatmap", "--result", tmp_path / "c.json", "--group", "0", "--out", tmp_path / "x.json"]
    else:
        argv = ["wdlmpro", "plot", "--result", wresult, "--out", tmp_path / "x.json"]
    code, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "x.json" in err and "image format" in err
    assert not (tmp_path / "x.json").exists()


# --- 15. --template checked before the model loads ----------------------------------------------

@pytest.mark.parametrize("template,message", [
    ({"w2d": "{word:d} {options}"}, "format spec"),
    ({"w2d": "{word:>99999999999} {options}"}, "format spec"),
    ({"w2d": "Which fits {word}?"}, "lacks placeholder(s) {options}"),
    ({"coda": "{contexts} only"}, "lacks placeholder(s) {definitions}"),
])
@pytest.mark.parametrize("bench", ["wdlmpro", "coda"])
def test_15_a_bad_template_is_refused_before_the_model_loads(bench, template, message, tmp_path, capsys,
                                                            monkeypatch):
    from lexprobe.core import cli_common
    from tests.benchmarks.coda21.helpers import write_small

    monkeypatch.setattr(cli_common, "scorer_from_args",
                        lambda *a, **k: pytest.fail("the model loaded before --template was checked"))
    path = tmp_path / "t.json"
    path.write_text(json.dumps(template))
    data = wdlmpro_data(tmp_path) if bench == "wdlmpro" else write_small(tmp_path / "coda.json")
    code, err = run_cli([bench, "eval", "--data", data, "--model", "random", "--method", "choose",
                         "--template", path, "--out", tmp_path / "r.json"], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert message in err and "t.json" in err


# --- 12. senserank --layers bounded before allocating -------------------------------------------

@pytest.mark.parametrize("layers", ["0-99999999", "-99999999", "0-500,0-500,0-500"])
def test_12_a_layer_list_no_model_has_is_refused_at_once(layers, tmp_path, capsys):
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, err = run_cli(["senserank", "eval", "--model", "random", "--layers", layers, "--out", tmp_path / "r.json"],
                        capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "--layers" in err and "1024" in err
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KB: nothing was expanded


def test_12_a_real_layer_list_still_parses():
    from lexprobe.benchmarks.senserank.config import parse_layers

    assert parse_layers("0,4,8-10,-1") == [0, 4, 8, 9, 10, -1]
    assert parse_layers("all") == "all"


# --- 23. tables.md shows names as text -----------------------------------------------------------

def test_23_tables_md_escapes_model_names_and_data_paths(tmp_path, capsys):
    from tests.benchmarks.coda21.helpers import write_small

    evil = "<img src=x onerror=alert(1)>"
    folder = tmp_path / "in"
    folder.mkdir()
    data = write_small(tmp_path / f"{evil}.json")
    assert main(["coda", "eval", "--data", str(data), "--model", "random", "--out", str(folder / "c.json")]) == 0
    result = json.loads((folder / "c.json").read_text())
    result["model"]["name"] = f"{evil}|[x](javascript:alert(1))"
    (folder / "c.json").write_text(json.dumps(result))
    code, err = run_cli(["report", folder, "--out", tmp_path / "html"], capsys)
    assert code == 0, err
    md = (tmp_path / "html" / "tables.md").read_text()
    assert "&lt;img src=x onerror=alert(1)&gt;" in md  # the name is there, as text
    assert "<img" not in md and "[x](javascript" not in md
    row = next(x for x in md.splitlines() if "onerror" in x and "javascript" in x)
    assert "\\|" in row


# --- 24. the second writer on one --out stops before the data and the model load -----------------

@pytest.mark.parametrize("bench", ["wdlmpro", "coda"])
def test_24_a_second_writer_is_refused_before_the_data_loads(bench, tmp_path, capsys, monkeypatch, load_items_as):
    import fcntl
    import os

    from lexprobe.core.registry import get
    from tests.benchmarks.coda21.helpers import write_small

    data = wdlmpro_data(tmp_path) if bench == "wdlmpro" else write_small(tmp_path / "coda.json")
    out = tmp_path / "r.json"
    load_items_as(bench, lambda *a, **k: pytest.fail("the data loaded although another run writes --out"))
    fd = os.open(tmp_path / "r.json.lock", os.O_RDWR | os.O_CREAT)  # the first writer, still running
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        code, err = run_cli([bench, "eval", "--data", data, "--model", "random", "--out", out], capsys)
    finally:
        os.close(fd)
    assert code == 2 and err.count("\n") == 0, err
    assert "another lexprobe run is writing" in err and "r.json" in err
    monkeypatch.undo()
    code, err = run_cli([bench, "eval", "--data", data, "--model", "random", "--out", out], capsys)
    assert code == 0 and out.exists(), err
    assert not (tmp_path / "r.json.lock").exists()  # released and removed after the run


# --- 13. a full disk under the remaining writers (figures, tables.md) ----------------------------

@pytest.mark.parametrize("command", ["report", "wdlmpro plot"])
def test_13_a_full_disk_under_figures_and_tables_is_one_line(command, wresult, tmp_path, capsys):
    from tests.robustness.disk import full_folder

    before = wresult.read_bytes()
    with full_folder(tmp_path / "disk", free=2048) as disk:
        argv = (["report", wresult, "--out", disk / "html"] if command == "report"
                else ["wdlmpro", "plot", "--result", wresult, "--out", disk / "w.png"])
        code, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "no space left on the device" in err and "nothing computed was lost" in err
    assert wresult.read_bytes() == before


# --- 22. misleading lines ---------------------------------------------------------------------------

def test_22_layers_with_a_model_without_layers_is_one_line(imported_data, tmp_path, capsys):
    code, err = run_cli(["senserank", "eval", "--corpus", "streusle", "--model", "random", "--layers", "0-2",
                         "--limit", "5", "--out", tmp_path / "r.json"], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "--layers" in err and "'random' has no layers" in err and "huggingface" not in err


def test_22_non_wordnet_targets_are_refused_before_the_model_and_name_no_stats_option(tmp_path, capsys,
                                                                                     monkeypatch):
    import re

    from lexprobe.core import cli_common

    monkeypatch.setattr(cli_common, "scorer_from_args",
                        lambda *a, **k: pytest.fail("the model loaded before the targets were checked"))
    data = wdlmpro_data(tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_text(re.sub(r"\b([a-z]+)\.n\.0(\d)", r"zz\1.n.7\2", data.read_text()))
    code, err = run_cli(["wdlmpro", "eval", "--data", other, "--model", "random", "--out", tmp_path / "r.json"],
                        capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "is not a WordNet synset" in err and "`eval` needs WordNet targets" in err


# --- 2. a model folder without its tokenizer files ------------------------------------------------

@pytest.mark.parametrize("bench", ["wdlmpro", "coda", "senserank"])
@pytest.mark.parametrize("model,kind", [("tiny_bert", None), ("tiny_gpt2", None), ("tiny_bert", "embedding")])
def test_2_a_folder_without_tokenizer_files_is_refused_before_scoring(bench, model, kind, request, tmp_path,
                                                                      capsys, monkeypatch, load_items_as):
    import shutil

    from lexprobe.core.registry import get
    from tests.benchmarks.coda21.helpers import write_small

    source = request.getfixturevalue(model)
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copyfile(source / name, bare / name)
    from lexprobe.core import evaluate

    monkeypatch.setattr(evaluate, "evaluate", lambda *a, **k: pytest.fail("scored with a tokenizer of [UNK]s"))
    if bench == "senserank":
        load_items_as(bench, lambda *a, **k: [])
        argv = ["senserank", "eval", "--corpus", "streusle"]
    else:
        argv = [bench, "eval", "--data", wdlmpro_data(tmp_path) if bench == "wdlmpro" else write_small(tmp_path / "c.json")]
    argv += ["--model", bare, "--out", tmp_path / "r.json"] + (["--kind", kind] if kind else [])
    code, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "cannot encode ordinary words" in err and "tokenizer" in err


# --- 20. pickle-only folders ------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["flat", "sentence-transformers module"])
def test_20_a_pickle_only_folder_is_one_line(layout, tiny_bert, tmp_path, capsys):
    import shutil

    import torch
    from safetensors.torch import load_file

    folder = tmp_path / "pickled"
    shutil.copytree(tiny_bert, folder)
    weights = folder
    if layout != "flat":  # the transformer in a module folder, as sentence-transformers saves it
        (folder / "modules.json").write_text(json.dumps([{"idx": 0, "name": "0", "path": "0_Transformer",
                                                          "type": "sentence_transformers.models.Transformer"}]))
        weights = folder / "0_Transformer"
        weights.mkdir()
        for p in tiny_bert.iterdir():
            shutil.copyfile(p, weights / p.name)
    torch.save(load_file(weights / "model.safetensors"), weights / "pytorch_model.bin")
    for p in folder.rglob("model.safetensors"):
        p.unlink()
    code, err = run_cli(["wdlmpro", "eval", "--data", wdlmpro_data(tmp_path), "--model", folder, "--kind",
                         "embedding", "--out", tmp_path / "r.json"], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "pytorch_model.bin holds pickled weights" in err and "safetensors only" in err
    assert not (tmp_path / "r.json").exists()


# --- 19. a GPT-2 sentence encoder without a pad token; a config with dropout NaN ---------------------

def test_19_embedding_kind_on_a_model_without_pad_token_runs(tiny_gpt2, tmp_path, capsys):
    from transformers import AutoTokenizer

    assert AutoTokenizer.from_pretrained(tiny_gpt2).pad_token is None  # the case of the issue
    code, err = run_cli(["wdlmpro", "eval", "--data", wdlmpro_data(tmp_path), "--model", tiny_gpt2, "--kind",
                         "embedding", "--out", tmp_path / "r.json"], capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "r.json").read_text())["metrics"]["w2d"]["all"]["n"] == 2


def test_19_padding_leaves_an_embedding_as_it_was(tiny_gpt2):
    import numpy as np
    import torch

    from lexprobe.scorers.embedding import SentenceEmbeddingScorer

    scorer = SentenceEmbeddingScorer.load("g", str(tiny_gpt2), torch.device("cpu"))
    texts = ["a dog", "a small red bird sings in the house"]
    together = scorer.encode(texts)
    alone = np.stack([scorer.encode([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-5)


@pytest.mark.parametrize("kind", [None, "embedding"])
def test_19_a_config_with_dropout_nan_is_one_line(kind, tiny_bert, tmp_path, capsys):
    import shutil

    folder = tmp_path / "nan"
    shutil.copytree(tiny_bert, folder)
    config = json.loads((folder / "config.json").read_text())
    config["hidden_dropout_prob"] = float("nan")
    (folder / "config.json").write_text(json.dumps(config))
    code, err = run_cli(["wdlmpro", "eval", "--data", wdlmpro_data(tmp_path), "--model", folder,
                         "--out", tmp_path / "r.json"] + (["--kind", kind] if kind else []), capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "hidden_dropout_prob is nan, not a probability in [0, 1]" in err


def test_19_a_result_folder_with_deep_nesting_is_one_line(wresult, tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    text = wresult.read_text()
    (folder / "deep.json").write_text(text[:-1] + ', "extra": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, err = run_cli(["report", folder, "--out", tmp_path / "html"], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "holds no lexprobe result files" in err
