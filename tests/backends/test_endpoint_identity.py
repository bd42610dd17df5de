"""What an endpoint run is (#33 D5, D22; #34's precision record): the resume key holds what the server says it
serves, so a server restarted with another model under the same name starts afresh instead of resuming the old
log (two models in one result); the run record holds what the server reports and the precision the user
declares; the local paths the scorer reads are named (``input_paths``); ``lexprobe run --model URL`` runs what
the endpoint can and skips the rest in one line, exit 0."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.models import load_scorer
from lexprobe.provenance import scorer_options
from tests.backends.fake_openai import FakeOpenAI

pytestmark = pytest.mark.usefixtures("quick_retries")


def _echo_prompts(server) -> set[str]:
    return {json.dumps(b["prompt"]) for b in server.calls("/v1/completions") if b.get("echo")}


def _resumed(caplog) -> list[tuple[int, int]]:
    found = [re.search(r"resuming: (\d+) of (\d+)", r.getMessage()) for r in caplog.records]
    return [(int(m.group(1)), int(m.group(2))) for m in found if m]


@pytest.mark.parametrize("tokenizer", [True, False])
def test_a_server_restarted_with_another_model_under_the_same_name_does_not_resume(tokenizer, llama, tiny_llama,
                                                                                   wdlmpro_data, tmp_path, caplog):
    """D5: interrupt a run on server A (root ``model-a``), restart the server on the same port serving another
    root under the same name; the rerun starts afresh. The same model again (control) resumes."""
    caplog.set_level(logging.INFO)
    out = tmp_path / "r.json"
    name = "tiny"
    with FakeOpenAI(llama, name=name, root=str(tiny_llama)) as first:
        port = first.httpd.server_address[1]
        args = ["wdlmpro", "eval", "--data", wdlmpro_data, "--model", first.url, "--batch-size", "1",
                "--chunk-size", "1", "--concurrency", "1"] + (["--tokenizer", str(tiny_llama)] if tokenizer else [])
        assert main(args + ["--out", str(tmp_path / "clean.json")]) == 0
        args += ["--out", str(out)]
        everything = _echo_prompts(first)
        first.requests.clear()
        first.completions_calls, first.die_after = 0, len(everything) // 2
        assert main(args) == 2  # interrupted: some units logged
    other = tmp_path / "other-model"
    other.mkdir()
    for f in Path(tiny_llama).iterdir():  # another model folder (its tokenizer the same, so --tokenizer agrees)
        if f.is_file():
            (other / f.name).write_bytes(f.read_bytes())
    caplog.clear()
    with FakeOpenAI(llama, name=name, root=str(other), port=port) as second:
        assert second.url == first.url
        second.die_after = len(everything) // 2  # dies again, having asked what it asked
        assert main(args) == 2
        assert not _resumed(caplog)  # another model: the old log is not used
        asked_again = _echo_prompts(second)
        assert asked_again  # from the start
    caplog.clear()
    with FakeOpenAI(llama, name=name, root=str(other), port=port) as third:  # the same model as before: resumes
        assert main(args) == 0
        done, total = _resumed(caplog)[0]
        assert 1 <= done < total
        assert len(_echo_prompts(third)) < len(everything)


@pytest.mark.parametrize("change", ["root", "max_model_len", "version"])
def test_the_resume_key_changes_with_what_the_server_reports(change, fake, tiny_llama):
    before = scorer_options(load_scorer(fake.url, tokenizer=str(tiny_llama)))
    if change == "root":
        fake.root = "/models/another"
    elif change == "max_model_len":
        fake.max_model_len = 77
    else:
        fake.version = "0.99.0"
    after = scorer_options(load_scorer(fake.url, tokenizer=str(tiny_llama)))
    assert before != after and before["server_reports"][change] != after["server_reports"][change]


def test_the_run_record_holds_what_the_server_reports_and_the_declared_precision(fake, tiny_llama, wdlmpro_data,
                                                                                  tmp_path):
    fake.version = "0.32.0"
    for declared in (None, "bfloat16"):
        out = tmp_path / f"{declared}.json"
        extra = ["--served-dtype", declared] if declared else []
        assert main(["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url, "--out", str(out), *extra]) == 0
        backend = json.loads(out.read_text())["run"]["backend"]
        assert backend["served_dtype"] == declared
        assert backend["server_reports"] == {"id": str(tiny_llama), "root": str(tiny_llama),
                                             "max_model_len": fake.max_model_len, "owned_by": "fake",
                                             "version": "0.32.0", "dtype": None}
        assert backend["server"] == "vllm 0.32.0" and backend["tokenizer_check"] == "/tokenize"


def test_input_paths_name_the_local_folders_the_scorer_reads(fake, tiny_llama, tmp_path):
    """What the outputs guard must never overwrite (#33 D2): --tokenizer's folder, else the served model's root
    when it is a folder here; a chat scorer reads nothing local."""
    assert load_scorer(fake.url, tokenizer=str(tiny_llama)).input_paths == {"--tokenizer": Path(tiny_llama)}
    assert load_scorer(fake.url).input_paths == {"the served model's root": Path(tiny_llama)}
    fake.root = "HuggingFaceTB/not-a-folder-here"  # root not local: the id (a folder here) is read
    assert load_scorer(fake.url).input_paths == {"the served model's id": Path(tiny_llama)}
    assert load_scorer(fake.url, kind="chat").input_paths == {}


def test_run_with_an_endpoint_runs_what_it_can_and_skips_the_rest_in_one_line(fake, imported_data, tmp_path,
                                                                              capsys):
    """D22: exit 1, sense ranking under "failed", and a suggestion of --method, which ``run`` has not."""
    out = tmp_path / "x"
    assert main(["run", "--model", fake.url, "--only", "wdlmpro", "senserank", "--sample", "2", "--no-fetch",
                 "--out-dir", str(out)]) == 0
    err = capsys.readouterr().err
    # each notice with its continuation lines (wrapped to 100 columns, indented), read as one
    notices = [" ".join(n.split()) for n in re.findall(r"^lexprobe: .*(?:\n[ \t]+\S.*)*", err, flags=re.M)]
    skipped = [notice for notice in notices if "skipped" in notice]
    assert len(skipped) == 1 and "senserank" in skipped[0] and "token embeddings" in skipped[0], err
    assert "--method" not in err and "--kind" not in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == [] and [s["benchmark"] for s in summary["skipped"]] == ["senserank"]
    assert [p["benchmark"] for p in summary["parts"]] == ["wdlmpro"] and (out / "wdlmpro.json").is_file()


def test_run_takes_the_model_options_of_its_model(fake, imported_data, tiny_llama, tmp_path, capsys):
    """A server listing several models: ``run --model URL`` says "name one with --served-model", a flag ``run``
    now has; given, it runs. A model option without --model, or one --model's backend does not take, is one
    line before any work."""
    fake.models = [fake.name, "other"]
    out = tmp_path / "x"
    base = ["run", "--model", fake.url, "--only", "wdlmpro", "--sample", "2", "--no-fetch", "--out-dir", str(out)]
    assert main(base) == 1
    assert "name one with --served-model" in capsys.readouterr().err
    assert main(base + ["--served-model", fake.name, "--concurrency", "2", "--served-dtype", "float32"]) == 0
    backend = json.loads((out / "wdlmpro.json").read_text())["run"]["backend"]
    assert backend["served_model"] == fake.name and backend["served_dtype"] == "float32"
    capsys.readouterr()
    for args, message in ((["run", "--concurrency", "2", "--out-dir", str(tmp_path / "y")],
                           "--concurrency apply to --model's model; pass --model"),
                          (["run", "--model", str(tiny_llama), "--concurrency", "2", "--out-dir", str(tmp_path / "z")],
                           "--concurrency 2 applies to an OpenAI-compatible endpoint")):
        fake.requests.clear()
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
        assert not [p for d in ("y", "z") for p in (tmp_path / d).glob("*.json")]
