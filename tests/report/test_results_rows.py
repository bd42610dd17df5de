"""scripts/results_rows.py: the rows of docs/results.md are the result files' own figures."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import results_markdown  # noqa: E402
import results_rows  # noqa: E402


@pytest.fixture()
def folder(tmp_path, result_files):
    for name in ("wdlmpro-random", "coda21-random", "senserank-layer-1"):
        shutil.copy(result_files[name], tmp_path / f"{name}.json")
    (tmp_path / "notes.json").write_text("{}")  # not a result: skipped, the rest kept
    return tmp_path


def test_rows_copy_each_metric_interval_and_baseline(folder):
    rows = {r["file"]: r for r in results_rows.collect(folder)}
    assert set(rows) == {"wdlmpro-random.json", "coda21-random.json", "senserank-layer-1.json"}
    for name, row in rows.items():
        raw = json.loads((folder / name).read_text())
        assert row["command"] == raw["run"]["command"] and row["revision"] == raw["run"]["model_revision"]
        for s in row["slices"]:
            m = raw["metrics"][s["task"]][s["pos"]]
            assert s["n"] == m["n"] and s["ci"] == m["ci"]
            assert s["metrics"] == {k: v for k, v in m.items() if k not in ("n", "ci")}
            rnd = raw["baselines"]["random"][s["task"]][s["pos"]]
            assert s["random"] == {k: v for k, v in rnd.items() if k not in ("n", "ci")}


def test_markdown_prints_the_figures_x100_with_intervals(folder):
    rows = results_rows.collect(folder)
    coda = next(r for r in rows if r["benchmark"] == "coda21")
    s = next(s for s in coda["slices"] if s["pos"] == "n")
    lo, hi = s["ci"]["accuracy"]
    cell = f"{100 * s['metrics']['accuracy']:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
    assert cell in results_markdown.coda21(rows)
    wdl = next(r for r in rows if r["benchmark"] == "wdlmpro")
    w = next(s for s in wdl["slices"] if (s["task"], s["pos"]) == ("w2d", "v"))
    assert f"{100 * w['metrics']['p_at_1']:.1f} [" in results_markdown.wdlmpro(rows)
