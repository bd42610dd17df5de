"""Issue #33 D2-D4 and item 4, issue #34 item 9: every path a command reads is an input no output may overwrite
or lie inside, every output is written without following a link, no two outputs of one command are one file,
and a re-run never silently replaces another run's result.

Fail on the code before the change: ``test_D2_*`` (``--tokenizer`` and a scorer's own inputs were not inputs:
``--out TOK/tokenizer.json`` replaced the tokenizer), ``test_D3_*`` (report, ``--plot``, ``compare --json``,
``sample-human``'s key file wrote through links into their targets), ``test_D4_*`` (``--plot P --out P`` ran and
wrote one over the other), ``test_rerun_*`` (another run's result, or a file that is none, was replaced without
a word).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lexprobe.errors import OutputError
from tests.human.helpers import wdlmpro_data
from tests.robustness import run_cli


def _never(what):
    def fail(*a, **k):
        pytest.fail(f"{what} ran although the paths were refused")
    return fail


def _one_line(code: int, err: str) -> str:
    assert code == 2 and err.count("\n") == 0 and err.startswith("lexprobe: error:"), err
    return err


@pytest.fixture(scope="module")
def wresult(tmp_path_factory) -> Path:
    """A small WDLMPro result (random scorer, likelihood: it has a breakdown plot and an items page)."""
    from lexprobe.cli import main

    folder = tmp_path_factory.mktemp("wresult")
    out = folder / "w.json"
    assert main(["wdlmpro", "eval", "--data", str(wdlmpro_data(folder)), "--model", "random", "--out", str(out)]) == 0
    return out


def _planted(tmp_path: Path) -> Path:
    notes = tmp_path / "notes.txt"
    notes.write_text("precious notes\n")
    return notes


# --- D2: --tokenizer and a scorer's own inputs are inputs -------------------------------------------------

def test_D2_an_output_inside_the_tokenizer_folder_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    tok = tmp_path / "tok"
    tok.mkdir()
    (tok / "tokenizer.json").write_text('{"added_tokens": []}')
    monkeypatch.setattr("lexprobe.core.cli_common.scorer_from_args", _never("the model load"))
    for out in (tok / "tokenizer.json", tok / "r.json"):
        err = _one_line(*run_cli(["wdlmpro", "eval", "--model", "random", "--tokenizer", tok, "--data",
                                  wdlmpro_data(tmp_path), "--out", out], capsys))
        assert "--tokenizer" in err and ("is the input" in err or "inside the input" in err), err
    assert (tok / "tokenizer.json").read_text() == '{"added_tokens": []}' and not (tok / "r.json").exists()


def test_D2_a_tokenizer_file_given_as_out_is_refused(tmp_path, capsys):
    tok = tmp_path / "tokenizer.json"
    tok.write_text('{"added_tokens": []}')
    err = _one_line(*run_cli(["wdlmpro", "eval", "--model", "random", "--tokenizer", tok, "--data",
                              wdlmpro_data(tmp_path), "--out", tok], capsys))
    assert "is the input --tokenizer" in err and tok.read_text() == '{"added_tokens": []}'


@pytest.mark.parametrize("where", ["inside the folder", "the file itself", "through a link"])
def test_D2_a_scorers_declared_inputs_are_guarded_by_evaluate(where, tmp_path, monkeypatch):
    """``scorer.input_paths`` (what an endpoint scorer reads locally: the served model's folder, its tokenizer):
    ``evaluate`` refuses an output inside such a folder or equal to such a file, before any unit."""
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.models import load_scorer

    root = tmp_path / "served-model"
    root.mkdir()
    (root / "tokenizer.json").write_text("{}")
    scorer = load_scorer("random")
    if where == "inside the folder":
        scorer.input_paths = {"the served model's folder": root}
        out = root / "r.json"
    else:
        scorer.input_paths = {"--tokenizer": root / "tokenizer.json"}
        out = root / "tokenizer.json"
        if where == "through a link":
            out = tmp_path / "alias.json"
            out.symlink_to(root / "tokenizer.json")
    monkeypatch.setattr("lexprobe.benchmarks.wdlmpro.likelihood.instance_records", _never("scoring"))
    with pytest.raises(OutputError, match="input"):
        evaluate("wdlmpro", scorer, WDLMProConfig(data=str(wdlmpro_data(tmp_path))), out)
    assert (root / "tokenizer.json").read_text() == "{}" and sorted(p.name for p in root.iterdir()) == ["tokenizer.json"]


# --- D3: outputs are written without following links ---------------------------------------------------

def test_D3_the_report_replaces_links_in_its_folder_and_never_writes_through_them(wresult, tmp_path, capsys):
    notes = _planted(tmp_path)
    rep = tmp_path / "rep"
    rep.mkdir()
    for name in ("index.html", "tables.md", "tables.tex", "wdlmpro.html"):
        (rep / name).symlink_to(notes)
    code, err = run_cli(["report", wresult, "--out", rep, "--overwrite"], capsys)  # a report's files: replaced
    assert code == 0, err
    assert notes.read_text() == "precious notes\n"
    for name in ("index.html", "tables.md", "tables.tex", "wdlmpro.html"):
        assert not (rep / name).is_symlink() and (rep / name).stat().st_size > 0, name
    assert "<html" in (rep / "index.html").read_text().lower()


def test_D3_a_figures_folder_that_is_a_link_is_refused(wresult, tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.png").write_bytes(b"mine")
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "figures").symlink_to(elsewhere, target_is_directory=True)
    err = _one_line(*run_cli(["report", wresult, "--out", rep], capsys))
    assert "figures" in err and "link" in err
    assert [p.name for p in elsewhere.iterdir()] == ["keep.png"]


@pytest.mark.parametrize("writer", ["eval --plot", "compare --json", "wdlmpro sample-human (answer key)",
                                    "eval --out (with --overwrite)"])
def test_D3_other_writers_replace_a_link_and_keep_its_target(writer, wresult, tmp_path, capsys):
    notes = _planted(tmp_path)
    data = wdlmpro_data(tmp_path)
    if writer == "eval --plot":  # a file at --plot is another file a run replaces only with --overwrite
        link = tmp_path / "p.png"
        argv = ["wdlmpro", "eval", "--model", "random", "--data", data, "--out", tmp_path / "r.json", "--plot", link,
                "--overwrite"]
    elif writer == "compare --json":
        link = tmp_path / "cmp.json"
        argv = ["compare", wresult, wresult, "--json", link]
    elif writer == "eval --out (with --overwrite)":
        link = tmp_path / "r.json"
        argv = ["wdlmpro", "eval", "--model", "random", "--data", data, "--out", link, "--overwrite"]
    else:
        folder = tmp_path / "human"
        folder.mkdir()
        link = folder / "human_answer_key.txt"
        argv = ["wdlmpro", "sample-human", "--data", data, "--out", folder, "--n", "1"]
    link.symlink_to(notes)
    code, err = run_cli(argv, capsys)
    assert code == 0, err
    assert notes.read_text() == "precious notes\n"
    assert link.is_file() and not link.is_symlink() and link.stat().st_size > 0


def test_D3_write_atomic_replaces_a_link_and_leaves_nothing_on_failure(tmp_path):
    from lexprobe.outputs import write_atomic

    notes = _planted(tmp_path)
    out = tmp_path / "out.txt"
    out.symlink_to(notes)
    write_atomic(out, "new")
    assert out.read_text() == "new" and not out.is_symlink() and notes.read_text() == "precious notes\n"

    def failing(f):
        f.write(b"half")
        raise RuntimeError("the writer failed")

    with pytest.raises(RuntimeError):
        write_atomic(out, failing)
    assert out.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "out.txt"]


# --- D4: no two outputs of one command are one file ---------------------------------------------------

@pytest.mark.parametrize("case", ["same name", "through a linked folder", "senserank's plot"])
def test_D4_two_outputs_naming_one_file_are_refused_before_any_work(case, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("lexprobe.core.cli_common.scorer_from_args", _never("the model load"))
    out = tmp_path / "x.png"
    if case == "senserank's plot":
        argv = ["senserank", "eval", "--model", "random", "--out", out]  # its plot is --out with .png
    else:
        plot = out
        if case == "through a linked folder":
            (tmp_path / "same-folder").symlink_to(tmp_path, target_is_directory=True)
            plot = tmp_path / "same-folder" / "x.png"
        argv = ["wdlmpro", "eval", "--model", "random", "--limit", "1", "--out", out, "--plot", plot]
    code, err = run_cli(argv, capsys)
    if case == "senserank's plot":  # (after the one notice that the bundled SemCor sample stands in)
        err = err.splitlines()[-1]
    err = _one_line(code, err)
    assert "same file" in err and "--out" in err, err
    assert not out.exists()


def test_D4_two_names_linked_to_one_file_are_two_outputs_and_neither_is_lost(tmp_path, capsys):
    """``--plot`` a link to ``--out``'s file: each is written by a rename, so the link is replaced by the figure
    and the result stays (no refusal needed: nothing can be overwritten)."""
    out, plot = tmp_path / "r.json", tmp_path / "alias.png"
    out.write_text("{}")
    plot.symlink_to(out)
    code, err = run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path), "--out", out,
                         "--plot", plot, "--overwrite"], capsys)
    assert code == 0, err
    assert json.loads(out.read_text())["benchmark"] == "wdlmpro"
    assert not plot.is_symlink() and plot.read_bytes()[:4] == b"\x89PNG"


def test_D4_the_api_refuses_two_outputs_naming_one_file(tmp_path):
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.models import load_scorer

    out = tmp_path / "x.png"
    with pytest.raises(OutputError, match="same file"):
        evaluate("wdlmpro", load_scorer("random"), WDLMProConfig(data=str(wdlmpro_data(tmp_path)), plot=str(out)),
                 out)


# --- #34 item 9: a re-run never silently replaces another run's result ---------------------------------

def test_rerun_of_the_same_job_rewrites_its_own_result(tmp_path, capsys):
    data, out = wdlmpro_data(tmp_path), tmp_path / "r.json"
    argv = ["wdlmpro", "eval", "--model", "random", "--data", data, "--out", out]
    assert run_cli(argv, capsys)[0] == 0
    first = json.loads(out.read_text())
    code, err = run_cli(argv, capsys)
    assert code == 0, err
    again = json.loads(out.read_text())
    assert again["run"]["job"] == first["run"]["job"] and len(first["run"]["job"]) == 64
    assert again["metrics"] == first["metrics"]


@pytest.mark.parametrize("change", ["--seed", "--data"])
def test_rerun_with_another_job_is_refused_naming_overwrite(change, tmp_path, capsys, monkeypatch):
    data, out = wdlmpro_data(tmp_path), tmp_path / "r.json"
    assert run_cli(["wdlmpro", "eval", "--model", "random", "--data", data, "--out", out], capsys)[0] == 0
    before = out.read_bytes()
    if change == "--data":
        other = tmp_path / "other"
        other.mkdir()
        rows = data.read_text().splitlines()
        (other / "groups.jsonl").write_text(rows[0] + "\n")
        argv = ["wdlmpro", "eval", "--model", "random", "--data", other / "groups.jsonl", "--out", out]
    else:
        argv = ["wdlmpro", "eval", "--model", "random", "--seed", "7", "--data", data, "--out", out]
    import lexprobe.benchmarks.wdlmpro.likelihood as likelihood

    real = likelihood.instance_records
    monkeypatch.setattr(likelihood, "instance_records", _never("scoring"))
    err = _one_line(*run_cli(argv, capsys))
    assert "--overwrite" in err and str(out) in err and "another run" in err
    assert out.read_bytes() == before and not Path(f"{out}.partial.jsonl").exists()
    monkeypatch.setattr(likelihood, "instance_records", real)
    code, err = run_cli(argv + ["--overwrite"], capsys)
    assert code == 0, err
    assert out.read_bytes() != before


@pytest.mark.parametrize("existing", ["not a result", "another benchmark's result"])
def test_rerun_onto_a_file_that_surely_differs_is_refused_before_the_model_loads(existing, tmp_path, capsys,
                                                                                 monkeypatch):
    out = tmp_path / "r.json"
    if existing == "not a result":
        out.write_text('{"my": "notes"}')
    else:
        out.write_text(json.dumps({"benchmark": "coda21", "metrics": {}, "method": "likelihood", "recipe": "paper"}))
    before = out.read_bytes()
    monkeypatch.setattr("lexprobe.core.cli_common.scorer_from_args", _never("the model load"))
    err = _one_line(*run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path),
                              "--out", out], capsys))
    assert "--overwrite" in err and out.read_bytes() == before


def test_the_api_refuses_another_jobs_result_unless_told_to_overwrite(tmp_path):
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.models import load_scorer

    data, out = str(wdlmpro_data(tmp_path)), tmp_path / "r.json"
    evaluate("wdlmpro", load_scorer("random"), WDLMProConfig(data=data), out, progress=False)
    evaluate("wdlmpro", load_scorer("random"), WDLMProConfig(data=data), out, progress=False)  # the same job
    with pytest.raises(OutputError, match="--overwrite"):
        evaluate("wdlmpro", load_scorer("random", seed=3), WDLMProConfig(data=data, seed=3), out, progress=False)
    result = evaluate("wdlmpro", load_scorer("random", seed=3), WDLMProConfig(data=data, seed=3), out,
                      progress=False, overwrite=True)
    assert result is not None and json.loads(out.read_text())["run"]["job"] == result["run"]["job"]


def test_run_replaces_only_its_own_results_without_overwrite(tmp_path, capsys):
    """``lexprobe run`` into an existing --out-dir: the same rule per result file (a part whose file holds another
    run's result is reported and skipped, exit 1; ``--overwrite`` replaces it)."""
    out_dir = tmp_path / "results"
    argv = ["run", "--model", "random", "--only", "wdlmpro", "--no-fetch", "--out-dir", out_dir]
    assert run_cli(argv + ["--sample", "2"], capsys)[0] == 0
    before = (out_dir / "wdlmpro.json").read_bytes()
    assert run_cli(argv + ["--sample", "2"], capsys)[0] == 0  # the same job: rewritten
    code, err = run_cli(argv + ["--sample", "1"], capsys)
    assert code == 1 and "--overwrite" in err and "wdlmpro.json" in err, err
    assert json.loads((out_dir / "wdlmpro.json").read_bytes())["run"]["job"] == json.loads(before)["run"]["job"]
    assert run_cli(argv + ["--sample", "1", "--overwrite"], capsys)[0] == 0
    assert json.loads((out_dir / "wdlmpro.json").read_bytes())["run"]["job"] != json.loads(before)["run"]["job"]


def test_no_lock_or_temporary_file_is_left_beside_a_result(tmp_path, capsys):
    """Locks are removed while still held, temporary files renamed or removed: only the result and its plot."""
    out = tmp_path / "r.json"
    assert run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path), "--out", out],
                   capsys)[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["groups.jsonl", "r.json", "r.png"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert os.stat(out).st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_D3_a_folder_where_a_report_file_goes_is_one_line(wresult, tmp_path, capsys):
    rep = tmp_path / "rep"
    (rep / "tables.md").mkdir(parents=True)
    (rep / "tables.md" / "mine.txt").write_text("kept")
    err = _one_line(*run_cli(["report", wresult, "--out", rep, "--overwrite"], capsys))  # even when told to replace
    assert "tables.md is a folder" in err and (rep / "tables.md" / "mine.txt").read_text() == "kept"


def test_D3_the_answer_database_is_never_written_through_a_link(tmp_path):
    """``human serve --db LINK``: SQLite would write the link's target (an empty file it would take as a new
    database); refused in one line, the target untouched."""
    from lexprobe.errors import LexprobeError
    from lexprobe.human.store import AnswerStore

    target = tmp_path / "elsewhere.sqlite"
    target.write_bytes(b"")
    (tmp_path / "answers.sqlite").symlink_to(target)
    with pytest.raises(LexprobeError, match="symbolic link"):
        AnswerStore(tmp_path / "answers.sqlite")
    assert target.read_bytes() == b"" and not (tmp_path / "answers.sqlite.lock").exists()
