"""Issue #33 D13 through the command line: a resume-log line of another job (a ``--recipe authors`` unit appended
to a ``--recipe paper`` log) or a second, different record of one unit is refused with one notice and its unit
computed again; the result equals an uninterrupted run's. Fails on the code before the change (the foreign line
was taken: "resuming: 2 of 2", and the result held the authors recipe's record)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.robustness import run_cli


def three_groups(folder: Path) -> Path:
    """The human tests' two WDLMPro groups and a third: an interrupted run can leave one unit undone."""
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from tests.human.helpers import GROUPS, _group

    extra = _group("rose.n.01", "rose", [("tulip.n.01", "tulip", "a spring bulb"), ("lily.n.01", "lily", "a bulb")])
    return write_jsonl(GROUPS + [extra], folder / "groups.jsonl")


def _interrupted_log(argv, out: Path, monkeypatch, capsys, chunks: int) -> list[str]:
    """Run ``argv`` until ``chunks`` chunks are logged, then Ctrl-C; the log's lines."""
    import lexprobe.benchmarks.wdlmpro.likelihood as likelihood

    real, calls = likelihood.instance_records, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) > chunks:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(likelihood, "instance_records", interrupted)
    assert run_cli(argv, capsys)[0] == 130
    monkeypatch.setattr(likelihood, "instance_records", real)
    return Path(f"{out}.partial.jsonl").read_text().splitlines(keepends=True)


def _scores(path: Path) -> list:
    result = json.loads(path.read_text())
    return [(i["target"], i["task"], i.get("gold_rank"), i.get("scores")) for i in result["instances"]]


@pytest.mark.parametrize("edit", ["another recipe's line", "a second, different record"])
def test_D13_an_edited_log_is_not_used(edit, tmp_path, capsys, monkeypatch):
    data = three_groups(tmp_path)
    out, clean = tmp_path / "r.json", tmp_path / "clean.json"
    paper = ["wdlmpro", "eval", "--model", "random", "--data", data, "--chunk-size", "1", "--recipe", "paper"]
    assert run_cli(paper + ["--out", clean], capsys)[0] == 0  # what an uninterrupted paper run gives
    if edit == "another recipe's line":
        foreign = _interrupted_log(paper[:-1] + ["authors", "--out", out], out, monkeypatch, capsys, chunks=2)[1:]
        Path(f"{out}.partial.jsonl").unlink()
        lines = _interrupted_log(paper + ["--out", out], out, monkeypatch, capsys, chunks=1)
        ours = {json.loads(line)["id"] for line in lines[1:]}
        added = [line for line in foreign if json.loads(line)["id"] not in ours]  # a unit the paper log lacks
    else:
        lines = _interrupted_log(paper + ["--out", out], out, monkeypatch, capsys, chunks=1)
        entry = json.loads(lines[1])
        entry["record"] = json.loads(json.dumps(entry["record"]).replace("1", "2"))  # same unit, edited record
        added = [json.dumps(entry) + "\n"]
        assert added[0] != lines[1]
    assert added
    with open(f"{out}.partial.jsonl", "a") as f:
        f.writelines(added)
    code, err = run_cli(paper + ["--out", out], capsys)
    assert code == 0, err
    notices = [line for line in err.splitlines() if line.startswith("lexprobe: resume log")]
    expected = "written for another job" if edit == "another recipe's line" else "logged twice with different records"
    assert len(notices) == 1 and expected in notices[0], err
    assert _scores(out) == _scores(clean)
