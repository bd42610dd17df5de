"""Issue #26, D8, D9, D10, D13, D18, D19, D24, D25, D26, D30: what lexprobe reads back and what it loads.

Each test fails on the code before the fix (e7e1264): hand-edited result files (``"run": "oops"``,
``ci`` values that are not numbers, ``rank_score: "abc"``) were tracebacks in ``report`` and
``compare``; a resume-log line with a 5000-digit integer was a ValueError traceback and a line of the
wrong shape a TypeError after the whole computation; a GGUF missing a tensor was converted with
random weights; missing encoder weights were random for ``--kind token``/``embedding`` and blamed on
"the head" for masked LMs; CoDA21 ``--method ask`` reported a tie-broken accuracy when " Yes" and
" No" share their first token; ``--max-new-tokens`` was not counted in the fit check; an interrupted
Gemma assembly was blamed on the package; a damaged de-quantised GGUF cache was blamed on the model
and never rebuilt; a full disk while copying WordNet named the source; ``--template letters`` with
more than 26 options was refused only after the model loaded.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lexprobe.cli import main


def run_cli(argv, capsys):
    """(exit code, stderr) of ``lexprobe argv``; parser errors count as exit code 2."""
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:
        code = stop.code
    return code, capsys.readouterr().err.strip()


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl

    folder = tmp_path_factory.mktemp("wdl9")
    write_jsonl(build_groups("v", targets=["crawl.v.01", "creep.v.01", "slither.v.01", "wriggle.v.01"]),
                folder / "v.jsonl")
    return folder


@pytest.fixture(scope="module")
def two_results(datasets, tmp_path_factory):
    """Two valid WDLMPro results (random scorer, two seeds)."""
    folder = tmp_path_factory.mktemp("results9")
    for seed in (0, 1):
        assert main(["wdlmpro", "eval", "--model", "random", "--data", str(datasets / "v.jsonl"), "--seed", str(seed),
                     "--out", str(folder / f"r{seed}.json")]) == 0
    return folder / "r0.json", folder / "r1.json"


# --- D18: every value read back from a result file is checked, in one line --------------------------

def _edited(path: Path, tmp_path: Path, edit) -> Path:
    result = json.loads(path.read_text())
    edit(result)
    out = tmp_path / f"edited-{path.name}"
    out.write_text(json.dumps(result))
    return out


EDITS = {
    "run": (lambda r: r.__setitem__("run", "oops"), "run is not an object"),
    "ci-text": (lambda r: r["metrics"]["w2d"]["all"]["ci"].__setitem__("p_at_1", ["x", 1]), "metrics.w2d.all.ci"),
    "ci-three": (lambda r: r["metrics"]["w2d"]["all"]["ci"].__setitem__("p_at_1", [0.1, 0.2, 0.3]),
                 "metrics.w2d.all.ci"),
    "rank_score": (lambda r: r["instances"][0].__setitem__("rank_score", "abc"), "rank_score is not a number"),
    "intervals": (lambda r: r.__setitem__("intervals", [1]), "intervals is not an object"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("command", ["compare", "report"])
def test_D18_a_hand_edited_result_is_one_line_in_report_and_compare(two_results, tmp_path, capsys, edit, command):
    change, named = EDITS[edit]
    bad = _edited(two_results[0], tmp_path, change)
    argv = (["compare", bad, two_results[1]] if command == "compare"
            else ["report", bad, "--out", tmp_path / "rep"])
    code, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert bad.name in err and named in err, err


def test_D18_result_files_of_schema_1_still_load(tmp_path):
    """The checker reads upgraded files too: a schema-1 WDLMPro result (before the contract) loads."""
    from lexprobe.result_schema import load

    old = {"benchmark": "wdlmpro", "model": "random", "task": ["w2d"], "config": {"protocol": "paper"},
           "metrics": {"w2d": {"all": {"p_at_1": 0.5, "rank_score": 0.7, "n": 2,
                                       "ci": {"p_at_1": [0.0, 1.0], "rank_score": [0.4, 1.0]}}}},
           "random_baseline": {"w2d": {"all": {"p_at_1": 0.25, "n": 2}}}, "run": {"seed": 0},
           "instances": [{"task": "w2d", "target": "a.v.01", "pos": "v", "gold_rank": 1, "rank_score": 1.0},
                         {"task": "w2d", "target": "b.v.01", "pos": "v", "gold_rank": 3, "rank_score": 0.4}]}
    (tmp_path / "old.json").write_text(json.dumps(old))
    result = load(tmp_path / "old.json")
    assert result["schema_version"] == 2 and result["metrics"]["w2d"]["all"]["n"] == 2


# --- D19: a resume-log line of any content is a cut or invalid line, its unit recomputed --------------

def _interrupted_log(datasets, tmp_path, capsys, monkeypatch) -> tuple[list, Path]:
    import lexprobe.benchmarks.wdlmpro.evaluate as ev

    argv = ["wdlmpro", "eval", "--model", "random", "--data", datasets / "v.jsonl", "--chunk-size", "1",
            "--no-instances"]
    assert run_cli(argv + ["--out", tmp_path / "full.json"], capsys)[0] == 0
    real, calls = ev.instance_records, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C after two finished units
        return real(*args, **kwargs)

    monkeypatch.setattr(ev, "instance_records", interrupted)
    assert run_cli(argv + ["--out", tmp_path / "r.json"], capsys)[0] == 130
    monkeypatch.setattr(ev, "instance_records", real)
    return argv, tmp_path / "r.json.partial.jsonl"


@pytest.mark.parametrize("damage", ["huge-integer", "wrong-shape", "record-of-wrong-type"])
def test_D19_an_invalid_resume_log_line_is_reported_and_its_unit_recomputed(datasets, tmp_path, capsys,
                                                                           monkeypatch, damage):
    argv, log = _interrupted_log(datasets, tmp_path, capsys, monkeypatch)
    lines = log.read_text().splitlines()
    assert len(lines) == 3  # the header and two units
    unit = json.loads(lines[2])["id"]
    if damage == "huge-integer":  # json.loads raises a plain ValueError past Python's int digit limit
        lines[2] = '{"id": ' + json.dumps(unit) + ', "record": ' + "1" * 5000 + "}"
    elif damage == "wrong-shape":
        lines[2] = json.dumps({"id": unit, "record": 1})
    else:  # a list of records whose fields have the wrong types
        lines[2] = json.dumps({"id": unit, "record": [{"task": "w2d", "target": 5, "pos": "v", "gold_rank": "x"}]})
    log.write_text("\n".join(lines) + "\n")
    code, err = run_cli(argv + ["--out", tmp_path / "r.json"], capsys)
    assert code == 0, err
    assert "invalid line" in err and "computed again" in err, err
    full, resumed = (json.loads((tmp_path / n).read_text()) for n in ("full.json", "r.json"))
    assert full["metrics"] == resumed["metrics"]


def test_D19_a_header_with_a_huge_integer_is_set_aside(tmp_path):
    from lexprobe.cache import ResumeLog

    path = tmp_path / "r.partial.jsonl"
    path.write_text('{"format": ' + "9" * 5000 + "}\n")
    notices: list[str] = []
    log = ResumeLog(path, {"k": 1}, notice=notices.append)
    assert log.load() == {}
    log.close()
    assert notices and "set aside" in notices[0]
