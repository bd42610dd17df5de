"""An export's ``--pos`` is its benchmark's ``eval --pos``, read through the one declaration in the benchmark's
``Config`` (``ExportOptions.pos_of``): ``export hf wsd --pos A`` exports what ``wsd eval --pos A`` scores, and what
``eval`` refuses the export refuses, in one line, before any data is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.data.test_wsd import write_pair
from tests.export.helpers import write_small_coda, write_small_wdlmpro
from tests.robustness import run_cli


def one_line(code: int, err: str) -> str:
    assert code == 2 and err.count("\n") == 0 and err.startswith("lexprobe: error:"), (code, err)
    return err


def exported_rows(out: Path) -> list[dict]:
    import pyarrow.parquet as pq

    return [r for part in sorted(out.rglob("test.parquet")) for r in pq.read_table(part).to_pylist()]


@pytest.mark.parametrize("pos", [["A"], ["R"], ["N", "V"], ["V", "A", "R"]])
def test_the_wsd_export_takes_what_wsd_eval_takes(pos, tmp_path):
    """``export hf wsd --pos A`` was refused (its choices were n, v, both) and ``--pos both`` exported A and R too."""
    data = write_pair(tmp_path / "data", name="mini")
    out = tmp_path / "export"
    assert main(["export", "hf", "wsd", "--data", str(data), "--pos", *pos, "--out", str(out)]) == 0
    rows = exported_rows(out)
    assert rows and {r["pos"] for r in rows} == set(pos)
    assert main(["wsd", "eval", "--model", "random", "--data", str(data), "--pos", *pos,
                 "--out", str(tmp_path / "r.json")]) == 0
    scored = json.loads((tmp_path / "r.json").read_text())["instances"]
    assert [r["id"] for r in rows] == [r["id"] for r in scored]
    assert f"--pos {' '.join(pos)}" in (out / "README.md").read_text()  # the card's command says it


@pytest.mark.parametrize("benchmark, pos, says", [
    ("wsd", "both", "unknown --pos 'both' for wsd; use N, V, A, R"),
    ("wsd", "n", "unknown --pos 'n' for wsd; use N, V, A, R"),
    ("wdlmpro", "A", "unknown --pos 'A' for wdlmpro; use n, v, both"),
    ("coda21", "N", "unknown --pos 'N' for coda21; use n, v, both"),
])
def test_what_eval_refuses_the_export_refuses_before_reading_data(benchmark, pos, says, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(f"lexprobe.benchmarks.{benchmark}.export.select", lambda *_: pytest.fail("the data was read"))
    eval_code, _ = run_cli([benchmark, "eval", "--pos", pos, "--model", "random", "--out", tmp_path / "r.json"], capsys)
    assert eval_code == 2  # eval refuses it too (argparse)
    for command in ("hf", "lm-eval"):
        err = one_line(*run_cli(["export", command, benchmark, "--pos", pos, "--out", tmp_path / command], capsys))
        assert says in err, err
        assert not (tmp_path / command).exists()


def test_one_value_for_a_benchmark_whose_eval_takes_one(tmp_path, capsys):
    data = write_small_wdlmpro(tmp_path / "small.jsonl")
    err = one_line(*run_cli(["export", "hf", "wdlmpro", "--data", data, "--pos", "n", "v", "--out", tmp_path / "x"],
                            capsys))
    assert "--pos of wdlmpro takes one value" in err


@pytest.mark.parametrize("benchmark, write, pos, kept", [
    ("wdlmpro", write_small_wdlmpro, "v", {"v"}), ("coda21", write_small_coda, "n", {"n"})])
def test_wdlmpro_and_coda21_keep_their_own_pos(benchmark, write, pos, kept, tmp_path):
    data = write(tmp_path / ("small.jsonl" if benchmark == "wdlmpro" else "small.json"))
    out = tmp_path / "export"
    assert main(["export", "hf", benchmark, "--data", str(data), "--pos", pos, "--out", str(out)]) == 0
    assert {r["pos"] for r in exported_rows(out)} == kept


def test_lm_eval_of_several_benchmarks_names_the_one_that_refuses(tmp_path, capsys):
    err = one_line(*run_cli(["export", "lm-eval", "--pos", "n", "--out", tmp_path / "x"], capsys))
    assert "for wsd" in err and "name the benchmarks" in err
