"""`lexprobe report --out DIR` into a folder that holds a report already: refused in one line without
`--overwrite`, before any result is read, as a result file holding another run's result is (a second
`report --out report/` once replaced an earlier report without a word)."""

from __future__ import annotations

from lexprobe.cli import main


def _result(tmp_path):
    path = tmp_path / "wdl.json"
    data = tmp_path / "groups.jsonl"
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl

    write_jsonl(build_groups("v", targets=["beckon.v.01", "wink.v.01"]), data)
    assert main(["wdlmpro", "eval", "--model", "random", "--data", str(data), "--out", str(path)]) == 0
    return path


def test_a_report_folder_is_not_replaced_without_overwrite(tmp_path, capsys, monkeypatch):
    result = _result(tmp_path)
    out = tmp_path / "report"
    assert main(["report", str(result), "--out", str(out)]) == 0
    before = (out / "index.html").read_bytes()
    capsys.readouterr()

    def no_load(*args, **kwargs):
        raise AssertionError("results read before the --out folder was checked")

    monkeypatch.setattr("lexprobe.report.build.load", no_load)
    assert main(["report", str(result), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a report already (index.html)" in err and "--overwrite" in err, err
    assert (out / "index.html").read_bytes() == before
    monkeypatch.undo()
    assert main(["report", str(result), "--out", str(out), "--overwrite"]) == 0
    # a folder without a report is no report to replace: written as before
    (tmp_path / "empty").mkdir()
    assert main(["report", str(result), "--out", str(tmp_path / "empty")]) == 0
