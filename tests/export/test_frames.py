"""Result files as a pandas DataFrame (``lexprobe.export.frames.results_frame``), and docs/interop.md's snippets."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.errors import LexprobeError
from tests.export.helpers import write_small_coda, write_small_wdlmpro
from tests.optional import needs_package

DOC = Path(__file__).resolve().parents[2] / "docs" / "interop.md"


@pytest.fixture(scope="module")
def result_files(tmp_path_factory):
    """Two result files as the doc names them: WDLMPro (random scorer) and CoDA21 (random scorer)."""
    folder = tmp_path_factory.mktemp("results")
    data = write_small_wdlmpro(folder / "small.jsonl"), write_small_coda(folder / "small.json")
    out = folder / "wdlmpro.json", folder / "coda21.json"
    for benchmark, source, result in zip(("wdlmpro", "coda21"), data, out):
        assert main([benchmark, "eval", "--data", str(source), "--model", "random", "--out", str(result)]) == 0
    return out


@pytest.fixture()
def results(result_files, monkeypatch):
    monkeypatch.chdir(result_files[0].parent)  # the doc's snippets name the files without a folder
    return result_files


def test_one_row_per_record_with_where_it_comes_from(results):
    needs_package("pandas")
    from lexprobe.export.frames import results_frame

    wdlmpro, coda = results
    frame = results_frame(wdlmpro, coda)
    a, b = json.loads(wdlmpro.read_text()), json.loads(coda.read_text())
    assert len(frame) == len(a["instances"]) + len(b["instances"])
    assert list(frame.columns[:5]) == ["file", "benchmark", "model", "method", "recipe"]
    assert frame["benchmark"].tolist() == ["wdlmpro"] * len(a["instances"]) + ["coda21"] * len(b["instances"])
    assert set(frame["model"]) == {"random"}
    mine = frame[frame["benchmark"] == "wdlmpro"]
    assert mine["gold_rank"].tolist() == [r["gold_rank"] for r in a["instances"]]
    # the result's own figures, recomputed from the frame: P@1 per task, alignment accuracy over groups
    for task in ("w2d", "d2w"):
        rows = mine[mine["task"] == task]
        assert (rows["gold_rank"] == 1).mean() == pytest.approx(a["metrics"][task]["all"]["p_at_1"])
        assert rows["rank_score"].mean() == pytest.approx(a["metrics"][task]["all"]["rank_score"])
    groups = frame[frame["benchmark"] == "coda21"]
    assert groups["accuracy"].mean() == pytest.approx(b["metrics"]["alignment"]["all"]["accuracy"])
    assert groups["scores"].iloc[0] == b["instances"][0]["scores"]  # lists stay lists


def test_a_damaged_file_is_one_error(results, tmp_path):
    needs_package("pandas")
    from lexprobe.export.frames import results_frame

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(results[0].read_text()), "metrics": "oops"}))
    with pytest.raises(LexprobeError):
        results_frame(bad)
    with pytest.raises(LexprobeError, match="at least one"):
        results_frame()


def test_the_docs_python_snippets_run(results):
    """Every ```python block of docs/interop.md that reads result files runs as written (on wdlmpro.json and
    coda21.json); a snippet that no longer works fails here."""
    needs_package("pandas")
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    snippets = [b for b in blocks if "wdlmpro.json" in b]
    assert len(snippets) >= 2
    for code in snippets:
        scope: dict = {}
        exec(compile(code, str(DOC), "exec"), scope)  # noqa: S102 - the documentation's own example
        frame = scope["frame"]
        assert len(frame) > 0 and "gold_rank" in frame.columns


def test_a_script_reads_results_with_the_one_import_of_lexprobe_api(results):
    """A fresh interpreter (a user's script) gets ``results_frame`` from ``lexprobe.api``, which registers the
    benchmarks the reading needs; before, the documented import was ``lexprobe.export.frames`` and the call failed
    with "no benchmark is registered in this process" outside a process that had imported ``lexprobe.api``."""
    import os
    import subprocess
    import sys

    needs_package("pandas")
    code = ("from lexprobe.api import results_frame\n"
            "frame = results_frame('wdlmpro.json', 'coda21.json')\n"
            "print(sorted(set(frame.benchmark)), len(frame))\n")
    env = {**os.environ, "PYTHONPATH": str(DOC.parents[1])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("['coda21', 'wdlmpro']")
