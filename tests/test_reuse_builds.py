"""What is built once is reused (#34 item 8): ``wdlmpro stats`` reads its figures from the cache on a second call
(keyed by the content of its inputs), and ``coda21 build`` reuses the build ``lexprobe run`` made for its small
set (and its own earlier builds) instead of loading WordNet and the models and clustering again. A changed input
is a new key: built again, never an old answer. Timings are in the closing note, not asserted (a script's job)."""

from __future__ import annotations

import json

import pytest

from lexprobe.cli import main


@pytest.fixture()
def wdl_files(tmp_path):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from tests.benchmarks.wdlmpro.test_scoring import GROUPS

    counts = tmp_path / "counts.tsv"
    counts.write_text("beckon\t500\nwink\t20\n")
    return write_jsonl(GROUPS, tmp_path / "groups.jsonl"), counts


def test_wdlmpro_stats_second_call_reads_the_cache(wdl_files, monkeypatch, capsys):
    from lexprobe.benchmarks.wdlmpro import dataset as ds

    data, counts = wdl_files
    computed = []
    real = ds.read_groups
    monkeypatch.setattr(ds, "read_groups", lambda *args: computed.append(1) or real(*args))
    args = ["wdlmpro", "stats", "--data", str(data), "--counts", str(counts)]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first and len(computed) == 1  # the second call computed nothing
    assert "Targets by frequency band" in first and "# of synset groups" in first
    counts.write_text("beckon\t5\nwink\t20\n")  # another counts file: another key
    assert main(args) == 0
    assert len(computed) == 2 and capsys.readouterr().out != first
    data.write_text(data.read_text().splitlines()[0] + "\n")  # other groups: another key
    assert main(args) == 0 and len(computed) == 3


def test_coda21_build_reuses_the_small_set_run_built(tmp_path, monkeypatch, capsys, minilm_path):
    """`lexprobe run`'s small set (offline: WordNet's example sentences) and the `coda21 build` command it prints
    are one build: the command after the run loads no model, reads no corpus, and writes the same file."""
    from lexprobe.benchmarks.coda21 import cli as ccli
    from lexprobe.models import load_scorer

    monkeypatch.setenv("LEXPROBE_SEMCOR", str(tmp_path / "no-semcor"))  # offline: contexts from WordNet
    small = ccli.build_small(tmp_path / "run", load_scorer("all-MiniLM-L6-v2", kind="embedding").encode, max_groups=3)
    capsys.readouterr()
    monkeypatch.setattr(ccli, "_build_inputs", lambda args: pytest.fail("the build was made again"))
    out = tmp_path / "again.json"
    command = ccli.small_set_command("wordnet", str(out), 3).split()
    assert main(command[1:]) == 0
    assert "reusing the CoDA21 build" in capsys.readouterr().out
    assert json.loads(out.read_text()) == json.loads(small.read_text())
    # other options are another build (here refused by the stand-in: it would be built)
    with pytest.raises(pytest.fail.Exception, match="made again"):
        main(command[1:-2] + ["--theta", "0.7", "--out", str(tmp_path / "other.json")])
