"""A run plan for one model (`lexprobe run --model X --methods ... | --plan FILE.yaml`): every benchmark and method in
one command, checked before any work, estimated first; and what the main job shares between its parts (one model
load per model and kind; a model that cannot be loaded said once)."""

from __future__ import annotations

import json

import pytest

from lexprobe.cli import build_parser, main, run
from lexprobe.core.options import config_from_args
from lexprobe.errors import LexprobeError


def _plan(argv):
    return run.plan(config_from_args(run.Run, build_parser(["run"]).parse_args(["run", *argv])))


def _shape(parts):
    return [(name, p.method, p.chat, p.sample, dict(p.config)) for name, p in parts]


def test_methods_all_asks_every_method_each_benchmark_has_that_the_model_serves(minilm_path, tiny_gpt2, capsys):
    parts, skipped = _plan(["--model", "all-MiniLM-L6-v2", "--methods", "all", "--sample", "3"])
    assert _shape(parts) == [("wdlmpro", "likelihood", False, 3, {}), ("coda21", "likelihood", False, 3, {}),
                             ("senserank", "similarity", False, 3, {}), ("wsd", "embedding", False, 3, {}),
                             ("wic", "embedding", False, 3, {})]
    assert {(s["benchmark"], s["method"]) for s in skipped} == {
        ("wdlmpro", "choose"), ("coda21", "ask"), ("coda21", "choose"), ("wsd", "likelihood"), ("wsd", "choose"),
        ("wic", "ask"), ("wic", "choose")}
    assert "wsd likelihood: all-MiniLM-L6-v2 does not serve what it asks" in capsys.readouterr().err
    parts, skipped = _plan(["--model", str(tiny_gpt2), "--methods", "all", "--chat", "--only", "wdlmpro", "wsd"])
    assert [(n, p.method, p.chat) for n, p in parts] == [
        ("wdlmpro", "likelihood", False), ("wdlmpro", "choose", True), ("wsd", "likelihood", False),
        ("wsd", "embedding", False), ("wsd", "choose", True)] and skipped == []
    assert len({p.stem(n) for n, p in parts}) == len(parts)  # every part its own result file
    assert [p.sample for _, p in parts] == [30, 30, 20, 20, 20]  # the quick samples, each benchmark's


def test_a_plan_file_sets_methods_samples_and_options_per_benchmark(tmp_path, tiny_gpt2):
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"model: {tiny_gpt2}\nmethods: [likelihood, embedding]\nsample: 5\noptions: {{layer: 2}}\n"
                    "benchmarks:\n  wdlmpro: {sample: full}\n  senserank: {sample: 400}\n"
                    "  wsd: {}\n")
    parts, _ = _plan(["--plan", str(plan)])
    # `layer` where a part takes it: sense ranking's similarity and WSD's embedding (not WDLMPro, nor likelihood)
    assert [(n, p.method, p.sample, p.full, dict(p.config)) for n, p in parts] == [
        ("wdlmpro", "likelihood", None, True, {}), ("senserank", "similarity", 400, False, {"layer": 2}),
        ("wsd", "likelihood", 5, False, {}), ("wsd", "embedding", 5, False, {"layer": 2})]
    # the flags win over the file
    parts, _ = _plan(["--plan", str(plan), "--methods", "likelihood", "--sample", "2"])
    assert [(n, p.method, p.sample) for n, p in parts] == [("wdlmpro", "likelihood", 2), ("senserank", "similarity", 2),
                                                           ("wsd", "likelihood", 2)]


@pytest.mark.parametrize("text, message", [
    ("modle: x\n", "--plan {}: modle: Extra inputs are not permitted"),
    ("model: x\nsample: 0\n", "--plan {}: sample must be 1 or more, or `full`"),
    ("model: x\nmethods: some\n", "--plan {}: methods"),
    ("model: x\nbenchmarks: {wdlmpro: {options: {nonsense: 1}}}\n", "wdlmpro has no option 'nonsense'"),
    ("model: x\nbenchmarks: {senserank: {options: {layers: '0-99999999'}}}\n", "--layers '0-99999999'"),
    ("model: x\nbenchmarks: {wsd: {methods: [likelihood], options: {layer: 3}}}\n",
     "--layer only apply with --method embedding"),
    ("model: x\noptions: {vector: token}\nbenchmarks: {wdlmpro: {}}\n", "no part of the plan takes vector"),
    ("model: x\nbenchmarks: {pdep: {}}\n", "the plan names pdep"),
    ("model: x\nsample: five\n", "--plan {}: sample must be a whole number of 1 or more, or `full`"),
    ("model: x\nbenchmarks: {wic: {sample: five}}\n", "benchmarks.wic.sample must be a whole number"),
    ("model: x\nbenchmarks: {wic: {methods: [bogus]}}\n",
     "the plan asks wic for the method bogus, which it has not; its methods: embedding, ask, choose"),
    ("model: [x\n", "--plan {}: not YAML at line")])
def test_a_wrong_plan_is_one_line_before_any_work(text, message, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(run, "_prepare_data", lambda *a, **k: pytest.fail("data prepared before the plan was checked"))
    plan = tmp_path / "plan.yaml"
    plan.write_text(text)
    assert main(["run", "--plan", str(plan), "--out-dir", str(tmp_path / "out"), "--no-fetch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message.format(plan) in err, err
    assert not (tmp_path / "out").exists()


def test_plan_flags_need_one_model():
    with pytest.raises(LexprobeError, match="a run plan .* is for one model: pass --model"):
        _plan(["--methods", "all"])
    with pytest.raises(LexprobeError, match="leave out --llm/--no-llm"):
        _plan(["--model", "random", "--layer", "3", "--no-llm"])


def test_a_plan_runs_after_its_estimate_and_resumes_what_the_probe_scored(tiny_llama, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["run", "--model", str(tiny_llama), "--methods", "likelihood", "choose", "--chat", "--only", "wdlmpro",
            "--sample", "2", "--no-fetch", "--out-dir", str(out)]
    assert main([*argv, "--estimate"]) == 0
    printed = capsys.readouterr().out
    assert "=== the estimate: a short probe of each of 2 parts ===" in printed and "the whole job: about" in printed
    table = printed.split("benchmark", 1)[1].splitlines()
    assert any(line.split()[:2] == ["wdlmpro", "likelihood"] for line in table)
    assert not list(out.glob("*.json"))  # --estimate: no result, only what the probe scored (resume logs)
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.index("the whole job: about") < printed.index(f"=== wdlmpro / {tiny_llama} / likelihood ===")
    summary = json.loads((out / "summary.json").read_text())
    assert [(p["benchmark"], p["method"], p["chat"]) for p in summary["parts"]] == [
        ("wdlmpro", "likelihood", False), ("wdlmpro", "choose", True)]
    tag = tiny_llama.name
    result = json.loads((out / f"wdlmpro-{tag}-choose-chat.json").read_text())
    assert result["method"] == "choose" and result["metrics"]["w2d"]["n"]["n"] == 2
    assert "--method choose" in result["run"]["reproduce"] and "--chat" in result["run"]["reproduce"]


def test_a_plans_layers_reach_the_part(tiny_bert, tmp_path):
    out = tmp_path / "out"
    assert main(["run", "--model", str(tiny_bert), "--only", "senserank", "--layers", "0,1", "--sample", "300",
                 "--no-fetch", "--out-dir", str(out)]) == 0
    (path,) = out.glob("senserank-semcor-*.json")
    result = json.loads(path.read_text())
    assert result["config"]["layers"] == "0,1" and "--layers 0,1" in result["run"]["reproduce"]


def test_the_main_job_loads_each_model_once_per_kind(tiny_gpt2, tmp_path, monkeypatch):
    """Two parts of one model (WDLMPro by likelihood and by choose) share one load (it was one per part)."""
    from lexprobe.backends import backend_for

    backend = backend_for(str(tiny_gpt2))
    loads = []
    original = backend.loader
    monkeypatch.setattr(type(backend), "load", lambda self, ref, kind=None, **o: loads.append(o.get("prefer"))
                        or original(ref, kind=kind, **o))
    assert main(["run", "--model", str(tiny_gpt2), "--methods", "likelihood", "choose", "--only", "wdlmpro",
                 "--sample", "2", "--no-fetch", "--out-dir", str(tmp_path / "out")]) == 0
    assert len(loads) == 1, loads


def test_a_shared_scorer_counts_each_parts_work_alone(tiny_gpt2):
    """Within ``shared_loads`` the same model loaded the same way is the same scorer, its counters as loaded; one
    model is kept at a time; outside, every load is its own."""
    from lexprobe.models import load_scorer, shared_loads

    with shared_loads():
        first = load_scorer(str(tiny_gpt2), device="cpu")
        first.count("forward_passes", 3)
        again = load_scorer(str(tiny_gpt2), device="cpu")
        assert again is first and again.stats.get("forward_passes", 0) == 0
        other = load_scorer(str(tiny_gpt2), kind="token", device="cpu")
        assert other is not first and load_scorer(str(tiny_gpt2), device="cpu") is not first  # one at a time
    assert load_scorer(str(tiny_gpt2), device="cpu") is not load_scorer(str(tiny_gpt2), device="cpu")


def test_a_model_that_cannot_be_loaded_is_said_once(imported_data, tmp_path, capsys):
    """An endpoint that does not answer: its error in full once, then one short line per part (it was the whole
    message per part, and WSD's part misread the URL as a local path)."""
    assert main(["run", "--model", "http://127.0.0.1:9/v1", "--only", "wdlmpro", "coda21", "wsd", "--no-fetch",
                 "--out-dir", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.count("127.0.0.1:9/v1/models") == 1, err
    assert err.count("could not be loaded (said above)") == 2 and "local path" not in err
    assert all(len(line) <= 100 for line in err.splitlines() if line.startswith(("lexprobe", "  "))), err
