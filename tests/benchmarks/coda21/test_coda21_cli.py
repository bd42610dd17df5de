import json

import pytest

from lexprobe.core.contract import RunPart

from lexprobe.benchmarks.coda21 import cli as coda_cli
from lexprobe.benchmarks.coda21.plot import draw_heatmap, find_group, load_result
from lexprobe.cli import main
from lexprobe.errors import DataError
from tests.benchmarks.coda21.helpers import small_coda, write_small


def test_eval_stats_heatmap_commands(tmp_path, capsys):
    data = write_small(tmp_path / "small.json")
    out = tmp_path / "res.json"
    assert main(["coda", "eval", "--data", str(data), "--model", "random", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Random (exact)" in printed and "Nouns acc. (%)" in printed
    result = json.loads(out.read_text())
    assert result["benchmark"] == "coda21" and result["model"]["kind"] == "random"
    assert [i["id"] for i in result["instances"]] == ["n/0", "n/1", "v/0"]
    assert not (tmp_path / "res.json.partial.jsonl").exists()

    assert main(["coda", "stats", str(data)]) == 0
    assert "# of G" in capsys.readouterr().out

    fig = tmp_path / "fig.png"
    assert main(["coda", "heatmap", "--result", str(out), "--group", "v/0", "--out", str(fig)]) == 0
    assert fig.stat().st_size > 1000


def test_eval_reports_malformed_groups(tmp_path, capsys):
    obj = small_coda()
    obj["v"].append({"candidates": "oops"})
    data = write_small(tmp_path / "c.json", obj)
    out = tmp_path / "res.json"
    assert main(["coda", "eval", "--data", str(data), "--model", "random", "--out", str(out)]) == 0
    assert "skipping group v/1: has no 'candidates' list" in capsys.readouterr().out
    result = json.loads(out.read_text())
    assert [s["unit"] for s in result["skipped"]] == ["v/1"] and result["counts"]["skipped_groups"] == 1


def test_user_errors_are_one_line(tmp_path, capsys):
    assert main(["coda", "eval", "--data", str(tmp_path / "nope.json"), "--model", "random",
                 "--out", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lexprobe: error:") and "not found" in err and err.count("\n") == 1


def test_heatmap_group_lookup(tmp_path):
    result = {"benchmark": "coda21", "instances": [
        {"id": "n/0", "k": 2, "scores": [[1.0, 0.0], [0.5, 2.0]], "predicted_pairs": [[0, 0], [1, 1]]}]}
    assert find_group(result, "n/0") is result["instances"][0]
    assert find_group(result, "0") is result["instances"][0]
    with pytest.raises(DataError, match="n/5"):
        find_group(result, "n/5")
    (tmp_path / "r.json").write_text(json.dumps({"benchmark": "wdlmpro"}))
    with pytest.raises(DataError, match="not a CoDA21 result"):
        load_result(tmp_path / "r.json")
    assert draw_heatmap(result["instances"][0], tmp_path / "h.png").exists()


def test_run_default_uses_official_files_when_present(tmp_path, monkeypatch):
    coda_dir = tmp_path / "coda"
    coda_dir.mkdir()
    write_small(coda_dir / "CoDA-clean-easy.json")
    write_small(coda_dir / "CoDA-clean-hard.json")
    monkeypatch.setenv("LEXPROBE_CODA_DIR", str(coda_dir))
    summary = coda_cli.run_default(tmp_path / "out", RunPart("random"))
    assert set(summary["metrics"]) == {"clean-easy", "clean-hard"}
    assert summary["metrics"]["clean-hard"]["alignment"]["all"]["n"] == 3
    assert (tmp_path / "out" / "coda21-clean-easy.json").exists()
    # a part that names one file, with a tag, runs that file only and keeps the others' results
    one = coda_cli.run_default(tmp_path / "out", RunPart("random", data="clean-hard", sample=1, tag="x"))
    assert set(one["metrics"]) == {"clean-hard"} and one["metrics"]["clean-hard"]["alignment"]["all"]["n"] == 2
    assert (tmp_path / "out" / "coda21-clean-hard-x.json").exists()


def test_default_coda_dir_is_in_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("LEXPROBE_CODA_DIR", raising=False)
    monkeypatch.setenv("LEXPROBE_DATA", str(tmp_path / "data"))
    assert coda_cli.default_coda_dir() == tmp_path / "data" / "coda21"
    with pytest.raises(DataError, match="lexprobe data fetch coda21-clean-hard"):
        coda_cli.resolve_coda_file("clean-hard")
    (tmp_path / "data" / "coda21").mkdir(parents=True)
    write_small(tmp_path / "data" / "coda21" / "CoDA-clean-hard.json")
    assert coda_cli.resolve_coda_file("clean-hard") == tmp_path / "data" / "coda21" / "CoDA-clean-hard.json"


def test_build_names_everything_it_lacks_in_one_line(tmp_path, capsys):
    """No SemCor in the (empty) data directory, no context model, no embedding model: one line names all
    three, not one per try."""
    code = main(["coda21", "build", "--out", str(tmp_path / "x.json"), "--context-model", str(tmp_path / "no-bert"),
                 "--embed-model", str(tmp_path / "no-minilm")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "lacks 3 thing(s)" in err and "SemCor 3.0 not found" in err and "--contexts wordnet" in err
    assert "no-bert" in err and "--context-model" in err and "no-minilm" in err and "--embed-model" in err
    assert not (tmp_path / "x.json").exists()


def _fake_embed(texts, **kwargs):
    """Seeded vectors per text (the clustering needs some embedder; the run's and the command's are one)."""
    import hashlib

    import numpy as np

    return np.stack([np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)).normal(size=8)
                     for t in texts])


def test_the_runs_small_set_is_made_by_a_command(tmp_path, capsys, monkeypatch):
    """Without SemCor `lexprobe run` builds a small noisy-hard set from WordNet's examples; the command it
    prints makes the same file (given the same embedder: MiniLM in both by default)."""
    from lexprobe.reporting import command_lines

    monkeypatch.setattr("lexprobe.models.load_scorer", lambda model, **options: type("E", (), {"encode": _fake_embed}))
    built = coda_cli.build_small(tmp_path / "run", _fake_embed, max_groups=2)
    assert built.name == "coda21-small-noisy-hard.json"
    printed = capsys.readouterr().out
    command = coda_cli.small_set_command("wordnet", str(tmp_path / "cmd.json"), 2)
    # in lines of at most 100 columns, continued with a backslash (#34 item 4)
    assert command_lines(coda_cli.small_set_command("wordnet", "FILE.json", 2)) in printed
    assert main(command.split()[1:]) == 0
    assert json.loads((tmp_path / "cmd.json").read_text()) == json.loads(built.read_text())


def test_a_missing_official_file_names_the_offline_set_too(tmp_path, capsys):
    assert main(["coda21", "eval", "--data", "clean-easy", "--model", "random", "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "lexprobe data fetch coda21-clean-easy" in err
    assert f"`{coda_cli.small_set_command('wordnet', 'small.json')}`" in err


def test_stats_reads_variant_names_and_the_data_directory_as_eval_does(tmp_path, capsys, monkeypatch):
    """`coda21 stats clean-hard` and `coda21 stats` (every CoDA21 file of the data directory), as `eval --data
    clean-hard` reads it; before, a variant name was "file not found" and no operand an argparse error. (The CoDA21
    folder is moved by $LEXPROBE_CODA_DIR: the data directory's own copies are checked against the release's pins.)"""
    from lexprobe.data.coda21 import default_coda_dir

    monkeypatch.setenv("LEXPROBE_CODA_DIR", str(tmp_path / "coda21"))
    assert main(["coda21", "stats"]) == 2  # nothing in the data directory: one line naming the fetch
    err = capsys.readouterr().err
    assert "lexprobe data fetch coda21" in err and err.count("\n") == 1
    default_coda_dir().mkdir(parents=True)
    hard = write_small(default_coda_dir() / "CoDA-clean-hard.json")
    obj = small_coda()
    obj["v"] = []
    easy = write_small(default_coda_dir() / "CoDA-clean-easy.json", obj)
    assert main(["coda21", "stats", "clean-easy", "clean-hard"]) == 0
    printed = capsys.readouterr().out
    assert printed.index(str(easy)) < printed.index(str(hard))  # the operands' order
    assert main(["coda21", "stats"]) == 0
    printed = capsys.readouterr().out
    assert str(hard) in printed and str(easy) in printed
    own = write_small(tmp_path / "mine.json")
    assert main(["coda21", "stats", str(own)]) == 0 and str(own) in capsys.readouterr().out
    assert main(["coda21", "stats", "noisy-hard"]) == 2  # a variant the data directory lacks: named with its fetch
    assert "coda21-noisy-hard" in capsys.readouterr().err
