"""`lexprobe compare`: paired item by item, refuses different items, warns about other differences."""

import json

import numpy as np
import pytest
from scipy.stats import binomtest

from lexprobe.cli import main
from lexprobe.report.compare import compare_files
from lexprobe.report.results import units
from lexprobe.core.result_schema import load as load_result


def _load(path):
    return json.loads(path.read_text())


def test_wdlmpro_paired_by_target(result_files, tmp_path, capsys):
    a, b = result_files["wdlmpro-random"], result_files["wdlmpro-bert"]
    out = tmp_path / "cmp.json"
    assert main(["compare", str(a), str(b), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "McNemar exact" in text and "paired permutation" in text
    cmp = _load(out)
    ra, rb = _load(a), _load(b)
    rows = {(r["task"], r["pos"], r["metric"]): r for r in cmp["rows"]}
    for task in ("w2d", "d2w"):
        for pos in ("n", "v", "all"):
            p1, rs = rows[(task, pos, "P@1")], rows[(task, pos, "RS")]
            assert p1["a"] == pytest.approx(ra["metrics"][task][pos]["p_at_1"])
            assert rs["b"] == pytest.approx(rb["metrics"][task][pos]["rank_score"])
            assert rs["difference"] == pytest.approx(rs["a"] - rs["b"])
            assert p1["n"] == ra["metrics"][task][pos]["n"]
    # McNemar from the instances by hand
    right = {(r["model"]["name"], i["task"], i["target"]): i["gold_rank"] == 1 for r in (ra, rb) for i in r["instances"]}
    keys = [(i["task"], i["target"]) for i in ra["instances"] if i["task"] == "w2d"]
    only_a = sum(right[("random", *k)] and not right[(rb["model"]["name"], *k)] for k in keys)
    only_b = sum(right[(rb["model"]["name"], *k)] and not right[("random", *k)] for k in keys)
    expected = 1.0 if only_a + only_b == 0 else binomtest(only_a, only_a + only_b).pvalue
    assert rows[("w2d", "all", "P@1")]["p_value"] == pytest.approx(expected)
    assert (rows[("w2d", "all", "P@1")]["only_a"], rows[("w2d", "all", "P@1")]["only_b"]) == (only_a, only_b)


def test_units_reproduce_the_result_metrics(result_files):
    for key in ("coda21-gpt2", "senserank-layer1", "wdlmpro-bert"):
        result = load_result(result_files[key])
        us = units(result)
        if result["benchmark"] == "coda21":
            assert np.mean([u.values["accuracy"] for u in us]) == pytest.approx(result["metrics"]["alignment"]["all"]["accuracy"])
        elif result["benchmark"] == "senserank":
            # the paper's pooled figure is the mean over queries of each query's mean_k hits(k)/k
            m = result["metrics"]["synthetic"]["all"]
            assert np.mean([u.values["pooled"] for u in us]) == pytest.approx(m["pooled"])
            assert np.mean([u.values["map"] for u in us]) == pytest.approx(m["map"], abs=1e-5)
        else:
            w2d = [u for u in us if u.task == "w2d"]
            assert np.mean([u.values["p_at_1"] for u in w2d]) == pytest.approx(result["metrics"]["w2d"]["all"]["p_at_1"])


def test_warns_when_runs_differ_in_more_than_the_model(result_files, capsys):
    a, b = result_files["senserank-layer-1"], result_files["senserank-layer1"]
    assert main(["compare", str(a), str(b)]) == 0
    err = capsys.readouterr().err
    assert "warning: the runs differ in more than the model: config layer: -1 vs 1" in err
    # the same model twice with the same settings: nothing to warn about
    assert main(["compare", str(a), str(a)]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "paired permutation" in captured.out


def test_refuses_different_items(result_files, tmp_path, capsys):
    a = result_files["coda21-random"]
    fewer = _load(result_files["coda21-gpt2"])
    fewer["instances"] = fewer["instances"][1:]
    fewer_path = tmp_path / "fewer.json"
    fewer_path.write_text(json.dumps(fewer))
    assert main(["compare", str(a), str(fewer_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "different items: A has 3 groups, B 2; 1 only in A" in err

    changed = _load(result_files["coda21-gpt2"])
    changed["run"]["items_digest"] = "0" * 64
    changed_path = tmp_path / "changed.json"
    changed_path.write_text(json.dumps(changed))
    assert main(["compare", str(a), str(changed_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "different item contents" in err

    assert main(["compare", str(a), str(result_files["wdlmpro-bert"])]) == 2
    assert "same benchmark" in capsys.readouterr().err

    bare = _load(a)
    del bare["instances"]
    bare_path = tmp_path / "bare.json"
    bare_path.write_text(json.dumps(bare))
    assert main(["compare", str(bare_path), str(a)]) == 2
    assert "no per-item records" in capsys.readouterr().err


def test_human_result_compares_like_a_model(result_files, tmp_path):
    human = _load(result_files["wdlmpro-random"])
    human["model"] = {"name": "human:P01", "kind": "human"}
    for inst in human["instances"]:
        inst["rank_score"] = None  # a single choice gives no ranking
    human["run"].update(model="human:P01", model_kind="human", model_revision=None, device=None, dtype=None,
                        batch_size=None)
    path = tmp_path / "human.json"
    path.write_text(json.dumps(human))
    cmp = compare_files(path, result_files["wdlmpro-bert"])
    assert {r["metric"] for r in cmp["rows"]} == {"P@1"}
    assert cmp["warnings"] == []


def test_wdlmpro_runs_of_different_tasks_compare_on_the_common_one(result_files, tmp_path):
    one = _load(result_files["wdlmpro-random"])
    one["instances"] = [i for i in one["instances"] if i["task"] == "d2w"]
    path = tmp_path / "d2w.json"
    path.write_text(json.dumps(one))
    cmp = compare_files(path, result_files["wdlmpro-bert"])
    assert {r["task"] for r in cmp["rows"]} == {"d2w"}
    assert cmp["notes"] == ["compared on the common task(s) d2w (A has d2w, B d2w,w2d)"]


def test_warns_only_about_differences_that_can_change_scores(result_files, tmp_path, capsys):
    """#34 item 9: a batch size, a process count or an option declared not to change scores (not in the resume
    key) is no warning; the recipe is one."""
    base = _load(result_files["wdlmpro-bert"])
    neutral = json.loads(json.dumps(base))
    neutral["run"].update(batch_size=64 if base["run"]["batch_size"] != 64 else 32, processes=4)
    neutral["config"]["counts"] = "/elsewhere/counts.tsv"  # option(key=False): the breakdowns' counts file
    path = tmp_path / "neutral.json"
    path.write_text(json.dumps(neutral))
    assert compare_files(result_files["wdlmpro-bert"], path)["warnings"] == []
    assert main(["compare", str(result_files["wdlmpro-bert"]), str(path)]) == 0
    assert "warning" not in capsys.readouterr().err
    neutral["config"]["pattern_aggregation"] = "best"  # in the resume key: it changes scores
    path.write_text(json.dumps(neutral))
    assert compare_files(result_files["wdlmpro-bert"], path)["warnings"] == ["config pattern_aggregation: mean-prob vs best"]


def _served(result: dict, **backend) -> dict:
    served = json.loads(json.dumps(result))
    served["run"].update(backend={"backend": "openai", "endpoint": "http://gpu:8000/v1", "server": "vllm 0.32.0",
                                  "served_model": "m", **backend}, dtype=None, device=None)
    return served


def test_flags_the_same_weights_through_another_backend_or_precision(result_files, tmp_path, tiny_bert):
    """#34 item 2: an in-process run against an endpoint run of the same weights whose precision is not declared,
    or declared bfloat16, is one warning naming both; two endpoints at the same declared precision are not."""
    local = _load(result_files["wdlmpro-bert"])
    assert local["run"]["dtype"] == "float32" and local["run"]["backend"] is None
    cases = {"undeclared": _served(local, server_reports={"root": str(tiny_bert), "max_model_len": 512},
                                   served_dtype=None),
             "bf16": _served(local, server_reports={"root": str(tiny_bert)}, served_dtype="bfloat16"),
             "f32": _served(local, server_reports={"root": str(tiny_bert)}, served_dtype="float32"),
             "f32-other-url": _served(local, endpoint="http://other:9000/v1", server_reports={"root": str(tiny_bert)},
                                      served_dtype="float32")}
    paths = {}
    for name, result in cases.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(result))
    warned = compare_files(result_files["wdlmpro-bert"], paths["undeclared"])["warnings"]
    assert len(warned) == 1 and warned[0].startswith("the same weights through different backends or precisions")
    assert "A in process, float32" in warned[0] and "served by vllm 0.32.0 at http://gpu:8000/v1" in warned[0]
    assert "served precision not declared (--served-dtype)" in warned[0] and "check-endpoint" in warned[0]
    bf16 = compare_files(result_files["wdlmpro-bert"], paths["bf16"])["warnings"]
    assert len(bf16) == 1 and "B served by vllm 0.32.0 at http://gpu:8000/v1, bfloat16" in bf16[0]
    # in process float32 against a declared float32 server: still two backends (kernels differ), one line
    assert len(compare_files(result_files["wdlmpro-bert"], paths["f32"])["warnings"]) == 1
    assert compare_files(paths["f32"], paths["f32-other-url"])["warnings"] == []
    assert len(compare_files(paths["f32"], paths["bf16"])["warnings"]) == 1


def test_p_values_have_one_format():
    from lexprobe.reporting import format_p

    assert [format_p(p) for p in (1.0, 0.5, 0.03125, 0.0012345, 0.001, 0.00099, 1.234e-5, 0.0)] == \
        ["1", "0.5", "0.0312", "0.00123", "0.001", "9.90e-04", "1.23e-05", "0"]
