"""Issue #7: one test per failure found by trying every command with bad input and interruptions.

Each test reproduces the reported failure (it fails on the code before the fix).
"""

from __future__ import annotations

from lexprobe.core.contract import sections
import json
import lzma
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.robustness import run_cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl

    folder = tmp_path_factory.mktemp("wdl")
    first = build_groups("v", targets=["beckon.v.01", "wink.v.01", "whistle.v.04"])
    # four distinct groups (creep.v.01 is crawl.v.01's synset: a group given twice is refused)
    second = build_groups("v", targets=["crawl.v.01", "sneak.v.01", "slither.v.01", "wriggle.v.01"])
    write_jsonl(first, folder / "first.jsonl")
    write_jsonl(second, folder / "second.jsonl")
    write_jsonl(build_groups("n", targets=["crooning.n.01"]), folder / "nouns.jsonl")
    return folder


# --- 1. resume never mixes two inputs -------------------------------------------------------

def test_1_resume_with_changed_data_under_the_same_path_starts_afresh(datasets, tmp_path, capsys, monkeypatch):
    import lexprobe.benchmarks.wdlmpro.likelihood as ev

    data = tmp_path / "v.jsonl"
    shutil.copy(datasets / "first.jsonl", data)
    out = tmp_path / "r.json"
    real = ev.instance_records
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C after two finished chunks
        return real(*args, **kwargs)

    monkeypatch.setattr(ev, "instance_records", interrupted)
    argv = ["wdlmpro", "eval", "--model", "random", "--data", str(data), "--chunk-size", "1", "--out", str(out)]
    assert run_cli(argv, capsys)[0] == 130
    assert len(Path(str(out) + ".partial.jsonl").read_text().splitlines()) == 3  # header + 2 chunks
    monkeypatch.setattr(ev, "instance_records", real)

    shutil.copy(datasets / "second.jsonl", data)  # another file under the same path
    code, err = run_cli(argv, capsys)
    assert code == 0
    result = json.loads(out.read_text())
    from lexprobe.benchmarks.wdlmpro.dataset import load_groups

    targets = {i["target"] for i in result["instances"]}
    assert targets == {g.target for g in load_groups(datasets / "second.jsonl")}
    assert not targets & {g.target for g in load_groups(datasets / "first.jsonl")}
    assert "set aside" in err and "different items" in err


def test_1_resume_after_interrupt_with_same_data_gives_identical_result(datasets, tmp_path, capsys, monkeypatch):
    import lexprobe.benchmarks.wdlmpro.likelihood as ev

    argv = ["wdlmpro", "eval", "--model", "random", "--data", str(datasets / "second.jsonl"), "--chunk-size", "1",
            "--no-instances"]
    assert run_cli(argv + ["--out", str(tmp_path / "full.json")], capsys)[0] == 0
    real, calls = ev.instance_records, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(ev, "instance_records", interrupted)
    assert run_cli(argv + ["--out", str(tmp_path / "r.json")], capsys)[0] == 130
    monkeypatch.setattr(ev, "instance_records", real)
    assert run_cli(argv + ["--out", str(tmp_path / "r.json")], capsys)[0] == 0
    full, resumed = (json.loads((tmp_path / n).read_text()) for n in ("full.json", "r.json"))
    assert full["metrics"] == resumed["metrics"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full.json", "full.png", "r.json", "r.png"]


def test_1_coda_resume_key_changes_with_the_model_weights(tmp_path, tiny_bert):
    from lexprobe.cache import scorer_revision
    from lexprobe.models import load_scorer

    copy = tmp_path / "bert"
    shutil.copytree(tiny_bert, copy)
    before = scorer_revision(load_scorer(str(copy), device="cpu"))
    weights = copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1  # same name, same size, other weights
    weights.write_bytes(bytes(data))
    assert scorer_revision(load_scorer(str(copy), device="cpu")) != before


# --- 2. output locations are checked before any work ------------------------------------------

@pytest.mark.parametrize("where", ["folder", "under-a-file", "proc"])
def test_2_bad_out_fails_before_the_model_loads(where, datasets, tmp_path, capsys, monkeypatch):
    import lexprobe.core.cli_common as cc

    monkeypatch.setattr(cc, "scorer_from_args", lambda args: pytest.fail("the model was loaded"))
    out = {"folder": tmp_path, "under-a-file": datasets / "first.jsonl" / "r.json",
           "proc": Path("/proc/lexprobe-test/r.json")}[where]
    for argv in (["wdlmpro", "eval", "--data", str(datasets / "first.jsonl")],
                 ["coda", "eval", "--data", str(REPO / "tests" / "no.json")],
                 ["senserank", "eval", "--corpus", "pdep", "--path", str(tmp_path / "none")]):
        code, err = run_cli(argv + ["--out", str(out)], capsys)
        assert code == 2 and "--out" in err and "\n" not in err, (argv, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no temporary files left anywhere


def test_2_run_out_dir_checked_first(tmp_path, capsys):
    code, err = run_cli(["run", "--out-dir", "/proc/lexprobe-test", "--model", "random"], capsys)
    assert code == 2 and "--out-dir" in err and "\n" not in err


def test_2_failed_write_leaves_no_temporary_file(tmp_path):
    from lexprobe.reporting import write_json

    from lexprobe.errors import OutputError

    (tmp_path / "r.json").mkdir()
    with pytest.raises(OutputError, match="is a folder"):  # one line since #33 (was a bare OSError)
        write_json(tmp_path / "r.json", {"a": 1})
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


# --- 3. the README's API example writes its result ---------------------------------------------

def test_3_readme_api_example_writes_the_result(datasets, tmp_path, tiny_gpt2, monkeypatch):
    from lexprobe.benchmarks.wdlmpro import dataset

    readme = (REPO / "README.md").read_text()
    code = re.search(r"```python\n(from lexprobe.api import evaluate, load_scorer.*?)```", readme, re.S).group(1)
    assert 'load_scorer("all-MiniLM-L6-v2")' in code
    code = code.replace('load_scorer("all-MiniLM-L6-v2")', f'load_scorer({str(tiny_gpt2)!r})')
    monkeypatch.setattr(dataset, "default_dataset",
                        lambda pos, keep_duplicates=False: dataset.load_groups(datasets / "nouns.jsonl"))
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    result = json.loads((tmp_path / "minilm-api.json").read_text())
    n_groups = len(dataset.load_groups(datasets / "nouns.jsonl"))  # fewer than the snippet's limit=100: all of them
    assert result["benchmark"] == "wdlmpro" and len(result["instances"]) == 2 * n_groups
    assert sorted(p.name for p in tmp_path.iterdir()) == ["minilm-api.json", "minilm-api.png"]  # result and plot


# --- 4. numeric options are validated in the parser --------------------------------------------

@pytest.mark.parametrize("argv", [
    ["wdlmpro", "eval", "--limit", "0"], ["wdlmpro", "eval", "--limit", "-5"], ["wdlmpro", "eval", "--chunk-size", "0"],
    ["wdlmpro", "eval", "--batch-size", "0"], ["wdlmpro", "eval", "--batch-size", "-1"],
    ["coda", "eval", "--data", "x.json", "--limit", "-5"], ["coda", "eval", "--data", "x.json", "--limit", "0"],
    ["senserank", "eval", "--limit", "-5"], ["senserank", "eval", "--batch-size", "0"],
    ["senserank", "eval", "--max-instances", "0"], ["run", "--sample", "0"], ["coda", "build", "--k-min", "0"],
    ["wdlmpro", "sample-human", "--n", "0"], ["senserank", "finetune", "--instances", "100", "--epochs", "0"],
])
def test_4_zero_and_negative_numbers_are_one_line_errors(argv, tmp_path, capsys):
    code, err = run_cli(argv + ["--out", str(tmp_path / "o.json")], capsys)
    assert code == 2
    assert re.search(r"must be at least 1|must be 0 or more|greater than 0", err), err
    assert not (tmp_path / "o.json").exists()


def test_4_api_rejects_zero_and_negative_limits():
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.core.evaluate import evaluate
    from lexprobe.errors import LexprobeError

    for bad in (0, -5):  # the declarations checked for a Python caller (options.check_declared), before any data
        with pytest.raises(LexprobeError, match="--limit must be at least 1"):
            evaluate("coda21", "random", CodaConfig(data="absent.json", limit=bad))


# --- 5. one line instead of a traceback ------------------------------------------------------

def test_5_corrupted_safetensors_is_one_line(tiny_bert, datasets, tmp_path, capsys):
    copy = tmp_path / "bert"
    shutil.copytree(tiny_bert, copy)
    weights = copy / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:200])
    code, err = run_cli(["wdlmpro", "eval", "--model", str(copy), "--data", str(datasets / "first.jsonl"),
                         "--out", str(tmp_path / "r.json")], capsys)
    assert code == 2 and "safetensors" in err and "\n" not in err


def test_5_truncated_semcor_archive_is_one_line(tmp_path, capsys, monkeypatch, shared_data):
    archive = tmp_path / "semcor.tar.xz"
    with (shared_data / "semcor3.0" / "semcor3.0_naf.tar.xz").open("rb") as f:
        archive.write_bytes(f.read(300_000))  # cut off mid-stream
    monkeypatch.setenv("LEXPROBE_SEMCOR", str(archive))
    code, err = run_cli(["senserank", "eval", "--model", "random", "--out", str(tmp_path / "r.json")], capsys)
    assert code == 2 and "semcor.tar.xz" in err and "truncated" in err and "\n" not in err


def test_5_streusle_json_without_toks_names_file_and_sentence(tmp_path):
    from lexprobe.data.streusle import read_streusle_json
    from lexprobe.errors import DataError

    path = tmp_path / "dev.json"
    path.write_text(json.dumps([{"sent_id": "s-1", "toks": [{"word": "a"}], "swes": {}}, {"sent_id": "s-2"}]))
    with pytest.raises(DataError, match=r"dev\.json: sentence 1 \(sent_id s-2\).*missing field 'toks'"):
        read_streusle_json(path, "dev")


def test_5_conll2012_short_line_names_file_and_line(tmp_path):
    from lexprobe.data.ontonotes import read_ontonotes
    from lexprobe.errors import DataError

    path = tmp_path / "train" / "a.gold_conll"
    path.parent.mkdir()
    path.write_text("doc 0 0 He PRP * - - - speaker * * -\ndoc 0 1 filed\n")
    with pytest.raises(DataError, match=r"a\.gold_conll:2: a line with 4 columns"):
        read_ontonotes(path, nota=set())


def test_5_coda_group_with_wrong_types_is_skipped_and_counted(tmp_path, capsys):
    from tests.benchmarks.coda21.helpers import NOUN_GROUP, NOUN_GROUP_2

    bad = json.loads(json.dumps(NOUN_GROUP))
    bad["candidates"][0]["contexts"] = 5
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"n": [bad, NOUN_GROUP_2], "v": []}))
    code, _ = run_cli(["coda", "eval", "--model", "random", "--data", str(path), "--out", str(tmp_path / "r.json")],
                      capsys)
    assert code == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["metrics"]["alignment"]["all"]["n"] == 1 and result["counts"]["skipped_groups"] == 1
    assert "must be a list of strings" in result["skipped"][0]["reason"]


@pytest.mark.parametrize("argv", [["wdlmpro", "eval", "--model", "random", "--data"],
                                  ["coda", "eval", "--model", "random", "--data"],
                                  ["coda", "stats"]])
def test_5_folder_as_data_is_one_line(argv, tmp_path, capsys):
    code, err = run_cli(argv + [str(tmp_path)] + (["--out", str(tmp_path / "r.json")] if "eval" in argv else []),
                        capsys)
    assert code == 2 and "folder" in err and "\n" not in err


# --- 6. messages say what is true -----------------------------------------------------------

def test_6_senserank_random_baseline(imported_data, tmp_path, capsys):
    out = tmp_path / "r.json"
    code, err = run_cli(["senserank", "eval", "--corpus", "streusle", "--model", "random", "--min-sense-count", "2",
                         "--out", str(out)], capsys)
    assert code == 0, err
    result = json.loads(out.read_text())
    m = result["metrics"]["streusle"]["all"]
    assert result["model"]["name"] == "random" and m["n"] > 100
    rnd = result["baselines"]["random"]["streusle"]["all"]
    assert abs(m["pooled"] - rnd["pooled"]) < 0.05  # a random ranking scores its exact expectation


def test_6_missing_local_model_path_is_not_called_a_repo_id(datasets, tmp_path, capsys):
    code, err = run_cli(["wdlmpro", "eval", "--model", "./no/such/model", "--data", str(datasets / "first.jsonl"),
                         "--out", str(tmp_path / "r.json")], capsys)
    assert code == 2 and "does not exist" in err and "repo" not in err.lower()


def test_6_coda_stats_missing_file_does_not_mention_data_option(tmp_path, capsys):
    code, err = run_cli(["coda", "stats", str(tmp_path / "missing.json")], capsys)
    assert code == 2 and "missing.json" in err and "--data" not in err


def test_6_semcor_without_naf_set_by_variable_names_it(tmp_path, capsys, monkeypatch):
    import io
    import tarfile

    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo("README.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    archive = tmp_path / "empty.tar.xz"
    archive.write_bytes(lzma.compress(raw.getvalue()))
    monkeypatch.setenv("LEXPROBE_SEMCOR", str(archive))
    code, err = run_cli(["senserank", "eval", "--model", "random", "--out", str(tmp_path / "r.json")], capsys)
    assert code == 2 and "empty.tar.xz" in err and "no NAF" in err and "default location" not in err


# --- 7. fast help, complete help texts, progress that moves, small resume units ------------------

def test_7_help_imports_no_heavy_library():
    probe = ("import sys; from lexprobe.cli import build_parser; "
             "[build_parser(a).format_help() for a in (['--help'], ['wdlmpro'], ['coda'], ['senserank'], ['run'])]; "
             "print(sorted(m for m in ('torch', 'transformers', 'scipy', 'sentence_transformers', 'matplotlib') "
             "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.strip() == "[]"


def _all_parsers(parser, trail=()):
    import argparse

    yield trail, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _all_parsers(sub, trail + (name,))


def test_7_help_texts_complete_and_not_doubled():
    from lexprobe.cli import build_parser

    problems = []
    for trail, parser in _all_parsers(build_parser()):
        formatter = parser._get_formatter()
        for action in parser._actions:
            if not action.option_strings or action.help == "==SUPPRESS==":
                continue
            name = " ".join(trail) + " " + action.option_strings[-1]
            if not action.help:
                problems.append(f"{name}: no help")
                continue
            text = formatter._get_help_string(action) % dict(vars(action), prog=parser.prog)
            if text.count("(default") > 1:
                problems.append(f"{name}: doubled default: {text}")
            if "(default: None)" in text:
                problems.append(f"{name}: (default: None): {text}")
            if action.required and "default:" in text and "(required)" not in text:
                problems.append(f"{name}: a default on a required option: {text}")
    assert not problems, "\n".join(problems)


class CountingBar:
    updates: list = []

    def __init__(self, *args, **kwargs):
        pass

    def update(self, n):
        CountingBar.updates.append(n)

    def close(self):
        pass


def test_7_progress_moves_per_chunk_and_ctrl_c_keeps_most_work(tmp_path, monkeypatch):
    import lexprobe.benchmarks.wdlmpro.likelihood as ev
    from lexprobe.benchmarks.wdlmpro.config import DEFAULT_CHUNK_SIZE
    from lexprobe.scorers.random import RandomScorer
    from tests.benchmarks.wdlmpro.helpers import evaluate_groups
    from tests.benchmarks.wdlmpro.test_evaluate import _group

    groups = [_group(f"g{i}", "n", 5) for i in range(200)]
    monkeypatch.setattr("tqdm.auto.tqdm", CountingBar)  # the one loop's bar (``tasks.loop``)
    CountingBar.updates = []
    evaluate_groups(RandomScorer(0), groups, task="w2d")
    assert len(CountingBar.updates) >= 5 and sum(CountingBar.updates) == 200  # moves with the work

    real, calls = ev.instance_records, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) * DEFAULT_CHUNK_SIZE >= 150:  # Ctrl-C while scoring group ~150 of 200
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(ev, "instance_records", interrupted)
    with pytest.raises(KeyboardInterrupt):
        evaluate_groups(RandomScorer(0), groups, out=tmp_path / "r.json", task="w2d")
    kept = [json.loads(line) for line in (tmp_path / "r.json.partial.jsonl").read_text().splitlines()[1:]]
    assert sum(len(k["record"]) for k in kept) >= 100  # most of the 150 groups scored before Ctrl-C


# --- 8. one writer per output ----------------------------------------------------------------

def test_8_second_run_on_the_same_out_is_refused(datasets, tmp_path, capsys):
    out = tmp_path / "r.json"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import time; from lexprobe.cache import ResumeLog, partial_path; "
         f"log = ResumeLog(partial_path({str(out)!r}), {{}}); log.acquire(); print('locked', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True, cwd=REPO,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        code, err = run_cli(["wdlmpro", "eval", "--model", "random", "--data", str(datasets / "first.jsonl"),
                             "--out", str(out)], capsys)
    finally:
        holder.kill()
        holder.wait()
    assert code == 2 and "another lexprobe run is writing" in err and "\n" not in err
    assert not out.exists()


# --- 9. plots read without the docs -----------------------------------------------------------

def _captured(monkeypatch, module):
    figures = []
    monkeypatch.setattr(module, "save_figure", lambda fig, out, dpi=120: figures.append(fig) or Path(out))
    return figures


def test_9_wdlmpro_plot_explains_bands_and_marks_zero_bars(monkeypatch, tmp_path):
    import lexprobe.benchmarks.wdlmpro.plot as plot
    from lexprobe.core.contract import Records
    from lexprobe.core.registry import get

    records = [{"task": "w2d", "target": f"t{i}.n.01", "pos": "n", "word": "w", "n_candidates": 5,
                "gold_rank": 3, "rank_score": 0.5, "predicted": "x", "word_tokens": 1,
                "frequency_band": "rare", "depth_band": "3–5"} for i in range(4)]
    result = {"model": {"name": "random"},  # the sections as evaluate builds them
              **sections(get("wdlmpro"), Records(records, tasks=["w2d"]), "likelihood", {})}
    figures = _captured(monkeypatch, plot)
    plot.plot_breakdowns(result, tmp_path / "p.png")
    axes = [ax for ax in figures[0].axes if ax.get_visible()]
    labels = " ".join(ax.get_xlabel() for ax in axes)
    assert "Zipf" in labels and "rare <" in labels and "WordNet depth" in labels and "tokenizer" in labels
    for ax in axes:  # every bar has P@1 = 0: a marker in the series colour shows it
        bar_colour = ax.patches[0].get_facecolor()
        markers = [line for line in ax.lines if line.get_marker() == "^"]
        from matplotlib.colors import to_rgb

        assert markers and all(to_rgb(m.get_color()) == to_rgb(bar_colour) for m in markers)


def test_9_coda_heatmap_names_synsets_and_frames_gold_in_black_and_white(monkeypatch, tmp_path):
    import lexprobe.benchmarks.coda21.plot as heatmap

    figures = _captured(monkeypatch, heatmap)
    instance = {"id": "n/0", "ancestor": "a.n.01", "synsets": ["dust.n.01", "marble.n.01"],
                "scores": [[0.1, 0.9], [0.8, 0.2]], "predicted_pairs": [[0, 1], [1, 0]]}
    heatmap.draw_heatmap(instance, tmp_path / "h.png")
    ax = figures[0].axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels()] + [t.get_text() for t in ax.get_yticklabels()]
    assert any("dust.n.01" in t for t in ticks) and any("marble.n.01" in t for t in ticks)
    edge = {tuple(p.get_edgecolor()[:3]) for p in ax.patches}
    assert (0.0, 0.0, 0.0) in edge and (1.0, 1.0, 1.0) in edge  # one of them contrasts with any cell colour


def test_9_senserank_plot_explains_l_and_r(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lexprobe.benchmarks.senserank.plot import save_curves_plot

    curves = {"model": [0.5] * 3, "random": [0.4] * 3, "oracle": [1.0] * 3}
    result = {"tasks": ["semcor"], "model": {"name": "m"},
              "metrics": {"semcor": {"l<500 r<0.25": {"n": 2}, "all": {"n": 2}}},
              "breakdowns": {"semcor": {"curves": {"l<500 r<0.25": curves, "all": curves}}}}
    captured = []
    monkey_close = plt.close
    plt.close = lambda fig=None: captured.append(fig)
    try:
        save_curves_plot(result, tmp_path / "s.png")
    finally:
        plt.close = monkey_close
    fig = captured[0]
    texts = " ".join([t.get_text() for t in fig.texts] + [fig.get_suptitle()] + [ax.get_title() for ax in fig.axes])
    assert "ℓ" in texts and "sense proportion" in texts and "lemma frequency" in texts


def test_7_import_light_copies_of_constants_match_their_sources():
    import dataclasses

    from lexprobe.benchmarks.coda21 import likelihood as coda_eval
    from lexprobe.benchmarks.coda21.config import CodaConfig

    from lexprobe.core.options import field_named

    fields = {f.name: f for f in dataclasses.fields(CodaConfig)}
    assert tuple(field_named(CodaConfig, "pattern").choices) == tuple(coda_eval.PATTERNS)
    assert fields["exhaustive_max_k"].default == coda_eval.al.EXHAUSTIVE_MAX_K
