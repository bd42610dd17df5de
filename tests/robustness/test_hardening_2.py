"""Issue #19 (first half): one test per defect, each failing on the code before the fix.

Items here: 1 (an output overwrites an input), 13 (a full disk under results and resume
logs), 16 (``--device mps|meta``), 19 (deep nesting, a counts file that is not UTF-8),
21 (duplicate keys, NaN bucket edges, ``--layers ""``). The data directory's items
(3, 10, 11, 13, 16, 24) are in tests/data/test_fetch_hardening.py, the human page's
(5-9, 16, 17, 25) in tests/human/test_server_hardening.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.errors import OutputError
from tests.benchmarks.coda21.helpers import write_small
from tests.human.helpers import wdlmpro_data
from tests.robustness import run_cli
from tests.robustness.disk import full_folder


def digest(path: Path) -> str:
    if path.is_dir():
        return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes()
                                       for p in sorted(path.rglob("*")) if p.is_file())).hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- 1. an output never overwrites an input ------------------------------------------------------

@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Two small CoDA21 result files (random scorer, two seeds)."""
    folder = tmp_path_factory.mktemp("results")
    data = write_small(folder / "coda.json")
    for seed in (0, 1):
        assert main(["coda", "eval", "--data", str(data), "--model", "random", "--seed", str(seed),
                     "--out", str(folder / f"r{seed}.json")]) == 0
    return folder


def _cases(tmp: Path, results: Path):
    """(argv, the input that must survive) for every command that reads and writes."""
    coda = write_small(tmp / "coda.json")
    groups = wdlmpro_data(tmp)
    r0 = tmp / "r0.json"
    shutil.copyfile(results / "r0.json", r0)
    shutil.copyfile(results / "r1.json", tmp / "r1.json")
    human_dir = tmp / "human"
    human_dir.mkdir()
    shutil.copyfile(groups, human_dir / "human_w2d.jsonl")
    model = tmp / "model"
    model.mkdir()
    (model / "config.json").write_text('{"model_type": "bert"}')
    prepcorp = tmp / "pdep" / "pdep_test.conllu"
    prepcorp.parent.mkdir()
    prepcorp.write_text("not really sqlite\n")
    report_dir = tmp / "report-in"
    report_dir.mkdir()
    shutil.copyfile(results / "r0.json", report_dir / "r0.json")
    return {
        "coda sample-human": (["coda", "sample-human", "--data", coda, "--out", coda, "--size", "1"], coda),
        "coda eval": (["coda", "eval", "--data", coda, "--out", coda, "--model", "random"], coda),
        "coda heatmap": (["coda", "heatmap", "--result", r0, "--group", "0", "--out", r0], r0),
        "coda build": (["coda", "build", "--semcor", coda, "--out", coda, "--context-model", "first"], coda),
        "wdlmpro eval": (["wdlmpro", "eval", "--data", groups, "--out", groups, "--model", "random"], groups),
        "wdlmpro eval --plot": (["wdlmpro", "eval", "--data", groups, "--out", tmp / "w.json", "--plot", groups,
                                 "--model", "random"], groups),
        "wdlmpro plot": (["wdlmpro", "plot", "--result", r0, "--out", r0], r0),
        "wdlmpro sample-human": (["wdlmpro", "sample-human", "--data", human_dir / "human_w2d.jsonl", "--out",
                                  human_dir, "--n", "1"], human_dir / "human_w2d.jsonl"),
        "senserank eval": (["senserank", "eval", "--corpus", "pdep", "--path", prepcorp, "--out", prepcorp,
                            "--model", "random"], prepcorp),
        "senserank finetune": (["senserank", "finetune", "--model", model, "--out", model, "--instances", "100"],
                               model),
        "senserank finetune (file in model)": (["senserank", "finetune", "--model", model, "--out",
                                                model / "config.json", "--instances", "100"], model),
        "senserank pdep-convert": (["senserank", "pdep-convert", "--prepcorp", prepcorp, "--out", prepcorp.parent],
                                   prepcorp),
        "report": (["report", report_dir, "--out", report_dir], report_dir),
        "compare": (["compare", r0, tmp / "r1.json", "--json", r0], r0),
        "human score": (["human", "score", "--db", coda, "--out", coda], coda),
        "human serve": (["human", "serve", "--benchmark", "coda21", "--data", coda, "--db", coda, "--port", "0"],
                        coda),
    }


CASES = ["coda sample-human", "coda eval", "coda heatmap", "coda build", "wdlmpro eval", "wdlmpro eval --plot",
         "wdlmpro plot", "wdlmpro sample-human", "senserank eval", "senserank finetune",
         "senserank finetune (file in model)", "senserank pdep-convert", "report", "compare", "human score",
         "human serve"]


@pytest.mark.parametrize("case", CASES)
def test_1_an_output_that_is_an_input_is_refused(case, results, tmp_path, capsys):
    argv, protected = _cases(tmp_path, results)[case]
    before = digest(protected)
    code, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "is the input" in err or "would overwrite" in err or "lies inside the input" in err, err
    assert digest(protected) == before


def test_1_sample_human_over_the_official_file_is_refused(shared_data, tmp_path, capsys):
    """The issue's case: the official clean-easy file replaced by a 3-group sample, `data list` still 'verified'."""
    assert main(["data", "import", "coda21-clean-easy", str(shared_data / "coda21" / "CoDA-clean-easy.json")]) == 0
    from lexprobe.data.registry import data_dir

    official = data_dir() / "coda21" / "CoDA-clean-easy.json"
    before = digest(official)
    code, err = run_cli(["coda", "sample-human", "--data", official, "--out", official, "--size", "3"], capsys)
    assert code == 2 and err.count("\n") == 0 and "inside the data directory" in err
    assert digest(official) == before
    code, err = run_cli(["coda", "eval", "--data", "clean-easy", "--model", "random", "--limit", "1",
                         "--out", data_dir() / "result.json"], capsys)
    assert code == 2 and "inside the data directory" in err
    assert not (data_dir() / "result.json").exists()


def test_1_the_guard_sees_through_links_and_folders(tmp_path, monkeypatch):
    from lexprobe.outputs import check_not_inputs

    data = tmp_path / "data.json"
    data.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(data)
    hard = tmp_path / "hard.json"
    os.link(data, hard)
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    for out, inputs in ((link, {"--data": data}), (hard, {"--data": data}), (model / "config.json", {"--model": model}),
                        (model, {"--model": model})):
        with pytest.raises(OutputError):
            check_not_inputs({"--out": out}, inputs)
    with pytest.raises(OutputError, match="would destroy"):
        check_not_inputs({"--out": tmp_path}, {"--data": data}, writes={"--out": ["data.json"]})
    # a new file inside an input folder is refused too (#33 D2: a folder is read whole, and a model's revision
    # hashes every JSON file in it), unless the input declares that its folder may hold outputs (a report's
    # results folder); then only an existing file there is
    with pytest.raises(OutputError, match="lies inside the input --model"):
        check_not_inputs({"--out": model / "result.json"}, {"--model": model})
    check_not_inputs({"--out": model / "result.json"}, {"--model": model}, open_folders=("--model",))
    with pytest.raises(OutputError, match="would overwrite"):
        check_not_inputs({"--out": model / "config.json"}, {"--model": model}, open_folders=("--model",))
    # a new file beside an input, and names that are no files (models, variants), are fine
    check_not_inputs({"--out": tmp_path / "r.json"}, {"--model": model})
    check_not_inputs({"--out": tmp_path / "r.json"}, {"--data": "clean-easy", "--model": "bert-base-uncased"})
    check_not_inputs({"--out": None}, {"--data": None})


# --- 13. a full disk under results and resume logs -------------------------------------------------

def test_13_a_result_on_a_full_disk_is_one_line_and_loses_nothing(tmp_path, capsys):
    obj = json.loads(write_small(tmp_path / "small.json").read_text())
    obj["n"] = obj["n"] * 10  # a sample of 10 groups: about 7 kB
    coda = tmp_path / "coda.json"
    coda.write_text(json.dumps(obj))
    with full_folder(tmp_path / "disk", free=4096) as disk:
        out = disk / "sample.json"
        out.write_text("an older result\n")  # takes what is left
        code, err = run_cli(["coda", "sample-human", "--data", coda, "--out", out, "--size", "10"], capsys)
        assert code == 2 and err.count("\n") == 0, err
        assert "no space left on the device" in err and "nothing was lost" in err
        assert out.read_text() == "an older result\n"
        assert {p.name for p in disk.iterdir()} - {"filler"} == {"sample.json"}  # no temporary file left


def test_13_write_json_on_a_full_disk(tmp_path):
    from lexprobe.reporting import write_json

    with full_folder(tmp_path / "disk", free=4096) as disk:
        with pytest.raises(OutputError, match="no space left") as err:
            write_json(disk / "r.json", {"x": "y" * 100_000})
        assert "\n" not in str(err.value)
        assert not [p for p in disk.iterdir() if p.name != "filler"]


def test_13_a_resume_log_on_a_full_disk_keeps_every_finished_unit(tmp_path):
    from lexprobe.cache import ResumeLog

    with full_folder(tmp_path / "disk", free=16384) as disk:
        log = ResumeLog(disk / "r.json.partial.jsonl", {"items": "x"})
        written = 0
        with pytest.raises(OutputError, match="no space left") as err:
            for unit in range(10_000):
                log.append(f"u{unit}", {"scores": [unit] * 50})
                written += 1
        assert "\n" not in str(err.value) and "kept" in str(err.value)
        assert written > 0
        assert log.path.read_bytes().endswith(b"\n")  # cut back to its last whole line
        log.close()
        again = ResumeLog(disk / "r.json.partial.jsonl", {"items": "x"})
        assert sorted(again.load()) == sorted(f"u{u}" for u in range(written))
        again.close()


# --- 16. devices that cannot run a model -------------------------------------------------------------

@pytest.mark.parametrize("device", ["meta", "mps"])
def test_16_an_unusable_device_is_one_line(device, tiny_bert, tmp_path, capsys):
    coda = write_small(tmp_path / "coda.json")
    code, err = run_cli(["coda", "eval", "--data", coda, "--model", tiny_bert, "--device", device,
                         "--out", tmp_path / "r.json"], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert f"device {device}" in err or f"device '{device}'" in err
    assert not (tmp_path / "r.json").exists()


# --- 19. deep nesting and undecodable text ------------------------------------------------------------

def test_19_a_jsonl_line_of_deep_brackets_is_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.jsonl"
    deep.write_text(wdlmpro_data(tmp_path).read_text() + "[" * 100_000 + "]" * 100_000 + "\n")
    code, err = run_cli(["wdlmpro", "stats", "--data", deep, "--no-breakdowns"], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "deep.jsonl:3" in err


def test_19_a_resume_log_line_of_deep_brackets_is_a_cut_line(tmp_path):
    from lexprobe.cache import ResumeLog

    log = ResumeLog(tmp_path / "r.partial.jsonl", {"k": 1})
    log.append("a", 1)
    log.close()
    with open(log.path, "a") as f:
        f.write("[" * 100_000 + "]" * 100_000 + "\n")
    again = ResumeLog(log.path, {"k": 1})
    assert again.load() == {"a": 1}
    again.close()


def test_19_a_counts_file_that_is_not_utf8_is_one_line(tmp_path, capsys):
    counts = tmp_path / "counts.tsv"
    counts.write_bytes("dog\t5\nsch\u00f6n\t3\n".encode("latin-1"))
    code, err = run_cli(["wdlmpro", "stats", "--data", wdlmpro_data(tmp_path), "--counts", counts], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "counts.tsv" in err and "UTF-8" in err


# --- 21. silent acceptance ------------------------------------------------------------------------

def test_21_a_duplicate_key_in_coda21_json_is_refused(tmp_path, capsys):
    coda = write_small(tmp_path / "coda.json")
    text = coda.read_text()
    noun_part = json.dumps(json.loads(text)["n"])
    dup = tmp_path / "dup.json"
    dup.write_text('{"n": ' + noun_part + ', "v": [], "n": []}')  # the last "n" would win: 0 noun groups
    code, err = run_cli(["coda", "stats", dup], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "duplicate key 'n'" in err


@pytest.mark.parametrize("option,value", [("--freq-edges", "0,nan,inf"),
                                          ("--rarity-edges", "nan,1"), ("--layers", "")])
def test_21_meaningless_senserank_options_are_refused(option, value, tmp_path, capsys):
    code, err = run_cli(["senserank", "eval", "--model", "random", option, value, "--out", tmp_path / "r.json"], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert option in err


def test_21_valid_edges_still_parse():
    from lexprobe.metrics.retrieval import parse_edges

    assert parse_edges("0,500,inf") == (0.0, 500.0, float("inf"))
    assert parse_edges("0,0.25,1") == (0.0, 0.25, 1.0)
