"""Integration: `lexprobe run` with the real bundled MiniLM on small samples of each benchmark."""

import json
from pathlib import Path

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
    part = summary["parts"][0]
    assert 0 < part["cpu_seconds"] <= summary["cpu_seconds"] and summary["samples"] == "quick"
    out = capsys.readouterr().out
    assert "WDLMPro W2D (word to definition): all-MiniLM-L6-v2" in out
    assert "CPU s" in out and "s of CPU" in out and "16 targets per task" in out  # 8 groups per POS
    # the run ends with the report of what it wrote
    assert f"report written to {tmp_path / 'report' / 'index.html'}" in out
    page = (tmp_path / "report" / "index.html").read_text()
    assert "WDLMPro W2D" in page
    # the seeded sample says what it is, in the result and as the report's banner (#29)
    assert result["dataset"]["sample"] is True and "seeded sample of 8 WDLMPro groups" in result["dataset"]["what"]
    assert "Sample, not the paper's full data" in page and "seeded sample of 8 WDLMPro groups" in page


def test_run_coda21_on_official_files(minilm_path, shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("LEXPROBE_CODA_DIR", str(shared_data / "coda21"))
    assert main(["run", "--no-llm", "--only", "coda21", "--sample", "4", "--out-dir", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "coda21-clean-hard.json").read_text())
    m = result["metrics"]["alignment"]
    assert m["n"]["n"] == 4 and m["v"]["n"] == 4


def test_each_run_result_records_the_eval_command_that_scores_its_items(minilm_path, shared_data, tmp_path,
                                                                         monkeypatch, capsys):
    """#34 item 6: `run.reproduce` of every part's result is an `eval` command; run as recorded, it scores the
    same items (the same instance keys and items digest), though run draws its samples itself (WDLMPro: from
    WordNet without building the dataset, `--limit N --draw wordnet`; CoDA21: the first N groups of a file;
    sense ranking: whole lemmas up to N instances). CoDA21 says how many groups the file had and the model
    scored."""
    import shlex

    from lexprobe.report.results import units

    monkeypatch.setenv("LEXPROBE_CODA_DIR", str(shared_data / "coda21"))
    out = tmp_path / "run"
    assert main(["run", "--no-llm", "--no-fetch", "--only", "wdlmpro", "coda21", "--sample", "3", "--out-dir",
                 str(out)]) == 0
    assert main(["run", "--no-llm", "--no-fetch", "--only", "senserank", "--sample", "100", "--out-dir",
                 str(tmp_path / "sense")]) == 0  # a few whole lemmas: 3 instances would rank no query
    printed = capsys.readouterr().out
    assert "CoDA-clean-hard.json: 106 noun and 102 verb groups in the file; all-MiniLM-L6-v2 scored 3 and 3" in printed
    files = sorted(p for folder in (out, tmp_path / "sense") for p in folder.glob("*.json") if p.name != "summary.json")
    assert {p.stem for p in files} >= {"wdlmpro", "coda21-clean-easy", "coda21-clean-hard", "senserank-semcor"}
    for path in files:
        result = json.loads(path.read_text())
        command = result["run"]["reproduce"]
        assert command, path
        argv = shlex.split(command)
        assert argv[:3] == ["lexprobe", result["benchmark"], "eval"] and "--model" in argv, command
        again_path = Path(argv[argv.index("--out") + 1])
        assert again_path != path and again_path.parent == path.parent  # never over the result it reproduces
        assert main(argv[1:]) == 0, command
        again = json.loads(again_path.read_text())
        assert {u.key for u in units(again)} == {u.key for u in units(result)}, command
        assert again["run"]["items_digest"] == result["run"]["items_digest"], command
        assert again["metrics"] == result["metrics"], command  # the same items the same way: the same figures
    wdl = json.loads((out / "wdlmpro.json").read_text())
    assert "--limit 3 --draw wordnet" in wdl["run"]["reproduce"] and wdl["config"]["limit"] == 3


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


def test_a_run_part_that_ranks_no_query_finishes_without_a_plot(minilm_path, tmp_path, capsys):
    """`--sample 2` draws too few instances for any query: the part's result is written, no plot is drawn
    (there is no curve) and the closing line says so; it stopped with a KeyError traceback before."""
    code = main(["run", "--only", "senserank", "--sample", "2", "--no-fetch", "--out-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads((tmp_path / "senserank-semcor.json").read_text())
    assert result["metrics"]["semcor"]["all"].get("n", 0) == 0 and "plot" not in result
    assert not (tmp_path / "senserank-semcor.png").exists() and "was not drawn" not in err
    assert f"wrote {tmp_path / 'senserank-semcor.json'} (no plot: no query was ranked)" in out


def _plan(argv, monkeypatch):
    from lexprobe.cli import run
    from lexprobe.cli import build_parser
    from lexprobe.core.options import config_from_args

    monkeypatch.setattr(run, "resolve_model_path", lambda model: None)  # the plan, whatever is installed
    return run.plan(config_from_args(run.Run, build_parser(["run"]).parse_args(["run", *argv])))[0]


def test_main_job_default_is_the_quick_sample_and_full_is_one_flag_away(monkeypatch):
    """Every method in both (MiniLM on every benchmark, SmolLM2 by likelihood and chat on WDLMPro, CoDA21 and WSD,
    by asking on word-in-context);
    the default's samples are the small ones (5 minutes of CPU on two cores), --full the larger, --sample N
    every part's."""
    from lexprobe.core.registry import get
    from lexprobe.cli.run import LLM

    quick, full, given = (_plan(a, monkeypatch) for a in ([], ["--full"], ["--sample", "3"]))
    shape = [(n, p.model, p.method, p.chat) for n, p in quick]
    assert shape == [(n, p.model, p.method, p.chat) for n, p in full] == [(n, p.model, p.method, p.chat)
                                                                          for n, p in given]
    assert {(n, p.method, p.chat) for n, p in quick if p.model == LLM} == {
        (b, m, c) for b in ("wdlmpro", "coda21", "wsd") for m, c in (("likelihood", False), ("choose", True))} | {
        ("wic", "ask", False)}
    assert {n for n, p in quick if p.model != LLM} == {"wdlmpro", "coda21", "senserank", "wsd", "wic"}
    assert [p.sample for _, p in quick] == [get(n).run.samples["quick"] for n, p in quick if p.model != LLM] + [
        lp.samples["quick"] for n in ("wdlmpro", "coda21", "wsd", "wic") for lp in get(n).run.llm_parts]
    # the samples the quick job ran before WSD, then WSD's (instances per set)
    assert [p.sample for _, p in quick] == [30, 10, 1500, 20, 100, 8, 8, 4, 4, 6, 3, 30]
    assert [p.sample for _, p in full] == [100, None, 4000, 100, 1000, 25, 25, 15, 15, 40, 20, 300]
    assert all(q.sample < (f.sample or 10**9) for (_, q), (_, f) in zip(quick, full))
    assert {p.sample for _, p in given} == {3}


def test_cli_lets_torch_threads_wait_passively(monkeypatch):
    """torch's OpenMP threads spin while they wait unless OMP_WAIT_POLICY says otherwise; on busy cores that
    cost five times the CPU. The CLI sets it (keeping a value the user set) before anything loads torch."""
    import os
    import subprocess
    import sys

    from lexprobe.cli import main

    code = ("import sys; from lexprobe.cli import build_parser; build_parser(['run']); "
            "build_parser(['senserank', 'eval']); print('torch' in sys.modules)")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "False"  # so the variable is set before torch reads it
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    main(["data", "list"])
    assert os.environ.get("OMP_WAIT_POLICY") == "PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    main(["data", "list"])
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"


def test_senserank_eval_finds_the_semcor_sample_as_run_does(tmp_path, capsys):
    """`senserank eval --corpus semcor` on an empty data directory: the bundled sample, said in one line
    and named in the result's config (it stopped with "SemCor not found" before)."""
    from lexprobe.data.semcor import sample_archive

    out = tmp_path / "sr.json"
    code = main(["senserank", "eval", "--corpus", "semcor", "--model", "random", "--max-instances", "300",
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    said = [line for line in err.splitlines() if "SemCor sample" in line]
    assert len(said) == 1 and "`lexprobe data fetch semcor`" in said[0]
    result = json.loads(out.read_text())
    assert result["config"]["path"] == str(sample_archive()) and result["metrics"]["semcor"]["all"]["n"] > 0


def test_semcor_named_by_path_or_environment_is_never_replaced_by_the_sample(tmp_path, monkeypatch, capsys):
    missing = tmp_path / "nowhere.tar.xz"
    assert main(["senserank", "eval", "--corpus", "semcor", "--model", "random", "--path", str(missing),
                 "--out", str(tmp_path / "a.json")]) == 2
    monkeypatch.setenv("LEXPROBE_SEMCOR", str(missing))
    assert main(["senserank", "eval", "--corpus", "semcor", "--model", "random", "--out", str(tmp_path / "b.json")]) == 2
    err = capsys.readouterr().err
    assert "SemCor sample" not in err and err.count("not found") == 2
