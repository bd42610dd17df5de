"""Integration: `lexprobe run` with the real bundled MiniLM on small samples of each benchmark."""

import json

import pytest

from lexprobe.cli import main


def test_run_wdlmpro_with_minilm(minilm_path, tmp_path, capsys):
    code = main(["run", "--no-llm", "--only", "wdlmpro", "--sample", "8", "--out-dir", str(tmp_path)])
    assert code == 0
    result = json.loads((tmp_path / "wdlmpro.json").read_text())
    assert result["model"]["kind"] == "embedding"
    for task in ("w2d", "d2w"):
        m = result["metrics"][task]
        assert m["n"]["n"] == 8 and m["v"]["n"] == 8
    # the seeded sample is fixed, so this is deterministic; chance is 0.5
    assert result["metrics"]["w2d"]["all"]["rank_score"] > 0.6
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["failed"] == []
    out = capsys.readouterr().out
    assert "W2D (match word to definition)" in out
    # the run ends with the report of what it wrote
    assert f"report written to {tmp_path / 'report' / 'index.html'}" in out
    assert "WDLMPro W2D" in (tmp_path / "report" / "index.html").read_text()


def test_run_coda21_on_official_files(minilm_path, shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("LEXPROBE_CODA_DIR", str(shared_data / "coda21"))
    assert main(["run", "--no-llm", "--only", "coda21", "--sample", "4", "--out-dir", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "coda21-clean-hard.json").read_text())
    m = result["metrics"]["alignment"]
    assert m["n"]["n"] == 4 and m["v"]["n"] == 4


def test_run_senserank_on_semcor(minilm_path, imported_data, tmp_path):
    assert main(["run", "--only", "senserank", "--sample", "800", "--out-dir", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "senserank-semcor.json").read_text())
    assert result["metrics"]["semcor"]["all"]["n"] > 0
    assert (tmp_path / "senserank-semcor.png").stat().st_size > 0
    assert json.loads((tmp_path / "summary.json").read_text())["ran_on_samples"] == {}


def test_run_on_a_fresh_machine_without_network(minilm_path, tmp_path, capsys):
    """Empty data directory, no mirror, no network (the tests' proxy is a closed port): the run
    still exits 0, on the bundled SemCor sample, and says so and how to get the full corpus."""
    code = main(["run", "--only", "senserank", "--sample", "100", "--out-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0
    assert "could not fetch semcor: cannot reach github.com" in err
    assert "Ran on sample data" in out and "`lexprobe data fetch semcor`" in out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["failed"] == [] and summary["ran_on_samples"]["senserank"]["get"] == "lexprobe data fetch semcor"
    result = json.loads((tmp_path / "senserank-semcor.json").read_text())
    assert result["config"]["path"].endswith("semcor3.0-sample.tar.xz")
    assert result["metrics"]["semcor"]["all"]["n"] > 0
