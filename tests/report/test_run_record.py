"""The run record of result files: versions, model revision, items digest, command line."""

import json
import subprocess
from pathlib import Path

import pytest

from lexprobe.provenance import items_digest, model_revision
from lexprobe.run_record import command_line


def test_run_record_fields(result_files, tiny_bert):
    result = json.loads(Path(result_files["wdlmpro-bert"]).read_text())
    run = result["run"]
    assert {"lexprobe", "git_commit", "python", "torch", "transformers", "device", "dtype", "batch_size",
            "model_revision", "items_digest", "method", "recipe", "seed", "command", "created"} <= set(run)
    assert run["model_revision"] == model_revision(str(tiny_bert))
    assert (run["device"], run["dtype"], run["batch_size"], run["method"], run["recipe"], run["seed"]) == (
        "cpu", "float32", 64, "likelihood", "paper", 0)
    assert run["n_items"] == 3
    assert result["intervals"]["unit"] == "target" and result["intervals"]["level"] == 0.95
    root = Path(__file__).resolve().parents[2]
    if (root / ".git").exists():
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        assert run["git_commit"] == head


def test_items_digest_is_the_digest_of_the_items(result_files):
    from lexprobe.benchmarks.coda21.dataset import load_coda
    from lexprobe.run_record import _plain

    coda = json.loads(Path(result_files["coda21-gpt2"]).read_text())
    data = load_coda(coda["config"]["data"])
    assert coda["run"]["items_digest"] == items_digest(_plain(data.groups))
    rnd = json.loads(Path(result_files["coda21-random"]).read_text())
    assert rnd["run"]["items_digest"] == coda["run"]["items_digest"]
    assert rnd["run"]["model_revision"] == "random"


@pytest.mark.parametrize("argv, expected", [
    (["/usr/bin/lexprobe", "report", "a b.json"], "lexprobe report 'a b.json'"),
    (["/x/lexprobe/__main__.py", "run"], "lexprobe run"),
    (["script.py", "--x"], "script.py --x"),
])
def test_command_line(argv, expected):
    assert command_line(argv) == expected


def test_hub_model_revision_from_the_config_commit():
    from types import SimpleNamespace

    from lexprobe.run_record import run_record

    class Model:
        config = SimpleNamespace(name_or_path="org/not-local", _commit_hash="a" * 40)

        def parameters(self):
            return iter(())

    scorer = SimpleNamespace(name="org/not-local", kind="causal", model=Model(), batch_size=8)
    run = run_record(scorer, [{"x": 1}], {"seed": 2, "recipe": "authors"})
    assert run["model_revision"] == "hub:" + "a" * 40
    assert (run["batch_size"], run["seed"], run["recipe"], run["n_items"]) == (8, 2, "authors", 1)
    assert run["items_digest"] == items_digest([{"x": 1}])
