"""The published WSD systems beside a model (benchmarks/wsd/systems.py): on the real release, each system's F1 on
exactly a run's instances and the paired comparison; a result without the release is the result it was; answer
files of one's own, strict; a choose run's readings; the report's tables and figure; `lexprobe run`'s part."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.data.wsd import load_wsd
from lexprobe.data.wsd_hard import release_answers
from lexprobe.metrics.wsd import macro_f1, score
from tests.data.test_wsd import write_pair
from tests.data.test_wsd_hard import RELEASE_SCRIPTS, hard_data, with_hard  # noqa: F401  (fixtures)


def _eval(tmp_path, *args, name="r.json") -> dict:
    out = tmp_path / name
    assert main(["wsd", "eval", "--model", "random", *args, "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_a_sample_of_all_puts_each_system_on_the_same_instances_with_a_paired_comparison(with_hard, tmp_path, capsys):
    result = _eval(tmp_path, "--limit", "50")
    shown = capsys.readouterr().out
    section = result["systems"]
    ids = [r["id"] for r in result["instances"]]
    assert section["n"] == len(ids) == 250 and section["absent"] == [] and not section["macro"]
    gold = {r["id"]: r["gold"] for r in result["instances"]}
    model = {r["id"]: float(r.get("correct", 0.0)) for r in result["instances"]}
    release = {row.name: row for row in release_answers(load_wsd("ALL"))[0]}
    assert list(section["systems"]) == list(release)  # the eight, in the order of their published F1
    for name, row in section["systems"].items():
        answers = {i: release[name].answers[i] for i in ids if i in release[name].answers}
        assert row["metrics"]["all"]["n"] == 250
        assert row["metrics"]["all"]["f1"] == pytest.approx(score(gold, answers).f1)
        assert {s: row["metrics"][s]["n"] for s in result["metrics"]["wsd"]} == {
            s: result["metrics"]["wsd"][s]["n"] for s in result["metrics"]["wsd"]}
        paired = row["paired"]["model"]["all"]
        theirs = [float(bool(set(answers.get(i, ())) & set(gold[i]))) for i in ids]
        assert paired["n"] == 250 and paired["test"] == "McNemar exact"
        assert paired["difference"] == pytest.approx(sum(model.values()) / 250 - sum(theirs) / 250)
        assert paired["ci"][0] <= paired["difference"] <= paired["ci"][1]
        assert {"MFS", "LFS", "senseval2", "N"} <= set(row["paired"]["model"])
        mfs, lfs = row["breakdowns"]["first_sense"]["MFS"]["n"], row["breakdowns"]["first_sense"]["LFS"]["n"]
        assert mfs + lfs == 250 and name in shown
    assert "among the published systems: random on ALL (250 instances)" in shown


def test_on_42d_the_systems_micro_and_macro_f1_are_the_release_scripts(with_hard, tmp_path):
    result = _eval(tmp_path, "--data", "42D")
    section = result["systems"]
    assert section["macro"] and section["n"] == 370 and result["dataset"]["name"] == "42D"
    measured = {name: (round(100 * row["metrics"]["all"]["f1"], 2), round(100 * row["macro_f1"]["all"], 2))
                for name, row in section["systems"].items()}
    assert measured == RELEASE_SCRIPTS["42D"]
    assert [a["name"] for a in section["absent"]] == ["LMMS"]
    gold = {r["id"]: r["gold"] for r in result["instances"]}
    predicted = {r["id"]: (r["predicted"],) for r in result["instances"] if r.get("predicted")}
    assert section["models"]["model"]["macro_f1"]["all"] == pytest.approx(macro_f1(gold, predicted), abs=1e-6)
    assert set(section["baselines"]) == {"first_sense"}  # no SemCor in this data directory: no MFS baseline


@pytest.fixture(scope="module")
def framework_only(shared_data, tmp_path_factory) -> Path:
    import os

    if not (shared_data / "wsd-raganato").is_dir():
        pytest.skip("the WSD framework is not in the shared data")
    root = tmp_path_factory.mktemp("framework-only")
    previous = os.environ.get("LEXPROBE_DATA")
    os.environ["LEXPROBE_DATA"] = str(root)
    try:
        assert main(["data", "import", "wsd", str(shared_data / "wsd-raganato")]) == 0
    finally:
        os.environ.pop("LEXPROBE_DATA") if previous is None else os.environ.update(LEXPROBE_DATA=previous)
    return root


def test_without_the_release_a_result_is_what_it_was_and_one_line_says_why(framework_only, hard_data, tmp_path,
                                                                           monkeypatch, capsys):
    monkeypatch.setenv("LEXPROBE_DATA", str(framework_only))
    capsys.readouterr()
    alone = _eval(tmp_path, "--limit", "3", name="alone.json")
    # the notice, its wrapped lines read as one
    err = [" ".join(n.split()) for n in re.findall(r"^lexprobe: .*(?:\n[ \t]+\S.*)*", capsys.readouterr().err, flags=re.M)
           if "published systems" in n]
    assert "systems" not in alone and len(err) == 1 and "lexprobe data fetch wsd-hard" in err[0]
    monkeypatch.setenv("LEXPROBE_DATA", str(hard_data))
    beside = _eval(tmp_path, "--limit", "3", name="beside.json")
    assert beside["systems"]["n"] == 15
    for key in set(alone) | set(beside):
        if key not in ("systems", "run", "timing", "key_file"):
            assert alone.get(key) == beside.get(key), key
    assert alone["run"]["job"] == beside["run"]["job"]  # the same job: the systems change no resume key


# --- answer files of one's own ----------------------------------------------------------------------------------------

@pytest.fixture()
def mini(tmp_path) -> Path:
    return write_pair(tmp_path / "data", name="mini")


def test_an_answer_file_of_ones_own_is_a_row_and_its_unanswered_instances_are_counted(mini, tmp_path, capsys):
    mine = tmp_path / "my-system.key.txt"
    mine.write_text("d000.s000.t000\tart%1:09:00::\nd000.s001.t000 run%2:38:04::\n")  # two of five, one right
    result = _eval(tmp_path, "--data", str(mini), "--answers", str(mine))
    row = result["systems"]["systems"]["my-system"]
    assert row["answered"] == 2 and row["unanswered"] == 3 and not row["release"]
    figures = row["metrics"]["all"]
    assert figures["precision"] == 0.5 and figures["recall"] == 0.2 and figures["f1"] == pytest.approx(2 / 7)
    assert row["files"][0]["file"] == str(mine) and len(row["files"][0]["sha256"]) == 64
    assert "my-system answers 2 of the 5 instances: the others count in R, not in P" in " ".join(
        capsys.readouterr().out.split())
    assert "answers" not in result["config"]  # recorded in the section, not in the config (its key is unchanged)


@pytest.mark.parametrize("line, message", [
    ("d000.s000.t001", "has no sense key"),
    ("d000.s000.t000 art%1:06:00::", "given twice"),
    ("d000.s000.t002 peculiar", "is not a WordNet sense key"),
    ("d009.s000.t000 art%1:09:00::", "is not an instance of the set"),
])
def test_a_bad_answer_file_is_one_line_naming_the_file_and_line(mini, tmp_path, capsys, line, message):
    bad = tmp_path / "bad.key.txt"
    bad.write_text(f"d000.s000.t000 art%1:09:00::\n{line}\n")
    code = main(["wsd", "eval", "--model", "random", "--data", str(mini), "--answers", str(bad), "--out",
                 str(tmp_path / "r.json")])
    err = [e for e in capsys.readouterr().err.splitlines() if e.strip()]
    assert code == 2 and len(err) == 1 and f"{bad}:2:" in err[0] and message in err[0], err
    assert not (tmp_path / "r.json").exists()


def test_choose_readings_are_each_paired_with_the_systems(mini, tmp_path):
    from lexprobe.benchmarks.wsd import results as res
    from lexprobe.benchmarks.wsd.config import WsdChooseOptions, WsdConfig
    from lexprobe.core.evaluate import evaluate
    from tests.standins.generation import GenerateOnly

    mine = tmp_path / "other.txt"
    mine.write_text("".join(f"{i} {k}\n" for i, k in [("d000.s000.t000", "art%1:09:00::"),
                                                       ("d000.s001.t000", "run%2:38:00::"),
                                                       ("d000.s001.t001", "quickly%4:02:00::")]))
    config = WsdConfig(data=str(mini), method="choose", answers=(str(mine),),
                       choose=WsdChooseOptions(reading="generation"))
    result = evaluate("wsd", GenerateOnly(), config, tmp_path / "c.json", progress=False)
    section = result["systems"]
    assert list(section["systems"]) == ["other"] and "generation" in section["systems"]["other"]["paired"]
    assert section["models"]["generation"]["breakdowns"]["first_sense"]
    assert "among the published systems" in res.format_result(result)


def test_the_report_shows_the_systems_tables_and_figure(with_hard, tmp_path):
    _eval(tmp_path, "--limit", "5")
    assert main(["report", str(tmp_path / "r.json"), "--out", str(tmp_path / "rep")]) == 0
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert "among the published systems" in page and "by part of speech, number of senses and MFS/LFS" in page
    assert list((tmp_path / "rep").rglob("*-systems.png"))


def test_runs_wsd_part_prints_the_systems_rows(with_hard, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--only", "wsd", "--no-llm", "--no-fetch", "--sample", "2", "--out-dir", str(out)]) == 0
    assert "among the published systems" in capsys.readouterr().out
    assert json.loads((out / "wsd.json").read_text())["systems"]["n"] == 10


def test_on_harden_every_system_scores_0_and_the_release_files_skipped_lines_are_in_the_result(with_hard, tmp_path):
    result = _eval(tmp_path, "--data", "hardEN")
    rows = result["systems"]["systems"]
    assert len(rows) == 7 and all(r["metrics"]["all"]["f1"] == 0.0 and r["macro_f1"]["all"] == 0.0
                                  for r in rows.values())
    files = {(name, f["set"]): f for name, r in rows.items() for f in r["files"]}
    assert files[("GlossBERT", "ALLamended")]["outside_the_set"] == 23 and files[("ARES", "42D")]["lines"] == 370
    model = result["metrics"]["wsd"]["all"]["recall"]
    assert rows["BEM"]["paired"]["model"]["all"]["difference"] == pytest.approx(model)


def test_an_export_of_a_release_set_carries_its_licence_and_reads_back_as_the_set(with_hard, tmp_path):
    export = tmp_path / "export"
    assert main(["export", "hf", "wsd", "--data", "42D", "--limit", "5", "--out", str(export)]) == 0
    card = (export / "README.md").read_text(encoding="utf-8")
    assert "CC BY-NC 4.0" in card and "wsd-hard-benchmark" in card
    again = _eval(tmp_path, "--data", str(export / "42D"), name="again.json")
    assert {r["set"] for r in again["instances"]} == {"42D"} and again["systems"]["n"] == 5


def test_a_damaged_systems_section_is_one_line_when_read_back():
    from lexprobe.benchmarks.wsd import results as res
    from lexprobe.errors import DataError

    assert res.read_systems({"metrics": {}}) is None
    with pytest.raises(DataError, match="systems") as err:
        res.read_systems({"_path": "r.json", "systems": {"n": "many", "systems": {"X": {"answered": "all"}}}})
    assert "\n" not in str(err.value) and "r.json" in str(err.value)
