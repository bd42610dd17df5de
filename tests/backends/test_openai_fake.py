"""The OpenAI-compatible backend against a fake server (stdlib, in a thread) backed by a tiny in-process
Llama: the same scores and answers as in process, retries, one-line refusals before any work, resuming
after the server died, a chat-only endpoint, and an API key that never shows. No vLLM needed
(``test_vllm_server.py`` runs the real thing)."""

from __future__ import annotations

import json
import socket
import traceback

import numpy as np
import pytest

from lexprobe.cli import main
from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import Generate, Message
from lexprobe.errors import ModelError
from lexprobe.models import load_scorer
from tests.benchmarks.coda21.helpers import write_small

SENTINEL = "sk-SENTINEL-7f3a9c-never-print-me"


pytestmark = pytest.mark.usefixtures("quick_retries")


def _remote(fake, **kw):
    return load_scorer(fake.url, **kw)


def test_scores_and_answers_equal_the_in_process_scorer(fake, llama):
    remote = _remote(fake, batch_size=3, concurrency=4)
    assert remote.backend_record["tokenizer_check"] == "/tokenize"
    pairs = [("A dog is a", " kind of animal"), ("The bank of a", " river"), ("A dog is a", " pet"),
             ("the cat", " sat on the mat")] * 3
    got, want = remote.continuation_logprobs(pairs), llama.continuation_logprobs(pairs)
    assert [len(g) for g in got] == [len(w) for w in want]
    assert max(float(np.abs(g - w).max()) for g, w in zip(got, want)) <= 1e-5
    assert remote.stats["remote_requests"] == 4  # identical requests asked once
    asked = [Generate("the dog is", 5), Generate((Message("user", "Which one?"),), 5, answer_prefix="Answer:")]
    assert Engine(remote)(asked) == Engine(llama)(asked)


def test_wdlmpro_and_coda_through_the_endpoint_equal_in_process(fake, tiny_llama, wdlmpro_data, tmp_path):
    coda = str(write_small(tmp_path / "coda.json"))
    for args in (["wdlmpro", "eval", "--data", wdlmpro_data],
                 ["coda", "eval", "--data", coda, "--pos", "v"],
                 ["wdlmpro", "eval", "--data", wdlmpro_data, "--method", "choose", "--max-candidates", "3",
                  "--max-new-tokens", "4"]):
        local, remote = tmp_path / "local.json", tmp_path / "remote.json"
        assert main(args + ["--model", str(tiny_llama), "--device", "cpu", "--out", str(local)]) == 0
        assert main(args + ["--model", fake.url, "--out", str(remote)]) == 0
        a, b = json.loads(local.read_text()), json.loads(remote.read_text())
        assert b["run"]["backend"]["endpoint"] == fake.url and b["run"]["backend"]["served_model"] == str(tiny_llama)
        assert _numbers(a["metrics"]) == pytest.approx(_numbers(b["metrics"]), abs=1e-4)
        local.unlink(), remote.unlink()


def _numbers(obj, prefix=""):
    if isinstance(obj, dict):
        return {k: v for key, val in obj.items() for k, v in _numbers(val, f"{prefix}/{key}").items()}
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return {prefix: float(obj)}
    return {}


def test_a_storm_is_retried_then_reported_in_one_line(fake, capsys):
    remote = _remote(fake)
    remote.endpoint.retries = 3
    fake.storm, fake.storm_left = 429, 3  # three 429s, then answers
    assert len(remote.continuation_logprobs([("the dog", " is")])) == 1
    assert remote.stats["retried_requests"] == 3
    remote.endpoint.retries = 5
    fake.storm, fake.storm_left = 500, -1
    with pytest.raises(ModelError) as err:
        remote.continuation_logprobs([("the cat", " is")])
    text = str(err.value)
    assert "\n" not in text and "failed 6 time(s)" in text and "HTTP 500" in text


def test_one_line_before_any_work(fake, tiny_qwen2, wdlmpro_data, tmp_path, capsys):
    base = ["wdlmpro", "eval", "--data", wdlmpro_data, "--out", str(tmp_path / "x.json")]
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    cases = [
        (["--model", closed], "failed 2 time(s)"),
        (["--model", fake.url, "--served-model", "nope"], "does not serve 'nope'"),
        (["--model", fake.url, "--tokenizer", str(tiny_qwen2)], "does not tokenise as"),
        (["--model", fake.url, "--kind", "masked"], "--kind masked does not apply"),
        (["--model", fake.url, "--dtype", "bfloat16"], "set it where the model is served"),
    ]
    for extra, message in cases:
        assert main(base + extra) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
    fake.models = [fake.name, "other"]
    assert main(base + ["--model", fake.url]) == 2
    assert "name one with --served-model" in capsys.readouterr().err
    assert not fake.calls("/v1/completions")  # nothing was scored
    fake.models = [fake.name]
    fake.wrong_tokens = True
    assert main(base + ["--model", fake.url]) == 2
    assert "does not tokenise as" in capsys.readouterr().err
    assert not fake.calls("/v1/completions")


def test_a_server_that_dies_mid_run_resumes_with_nothing_lost_or_scored_twice(fake, wdlmpro_data, tmp_path, capsys,
                                                                              caplog):
    out = tmp_path / "w.json"
    args = ["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url, "--batch-size", "1",
            "--chunk-size", "1", "--out", str(out)]
    clean = tmp_path / "clean.json"
    assert main(args[:-1] + [str(clean)]) == 0
    everything = [json.dumps(b["prompt"]) for b in fake.calls("/v1/completions") if b.get("echo")]
    fake.requests.clear()
    fake.completions_calls, fake.die_after = 0, len(everything) // 2
    assert main(args) == 2
    assert "failed" in capsys.readouterr().err
    first = [json.dumps(b["prompt"]) for b in fake.calls("/v1/completions") if b.get("echo")][: fake.die_after]
    fake.requests.clear()
    fake.die_after = None  # the server is back
    assert main(args) == 0
    second = [json.dumps(b["prompt"]) for b in fake.calls("/v1/completions") if b.get("echo")]
    assert sorted(set(first) | set(second)) == sorted(set(everything))  # nothing lost
    assert len(set(second)) < len(set(everything))  # the units logged before it died are not asked again
    assert any("resuming: 1 of 3 units already done" in r.getMessage() for r in caplog.records)
    resumed, whole = json.loads(out.read_text()), json.loads(clean.read_text())
    assert [(r["task"], r["target"]) for r in resumed["instances"]] == [(r["task"], r["target"]) for r in
                                                                        whole["instances"]]  # none twice
    assert resumed["metrics"] == whole["metrics"]


def test_chat_endpoint_chooses_by_generation_and_refuses_likelihood_before_any_request(
        fake, tiny_llama, wdlmpro_data, tmp_path, capsys):
    fake.chat_only = True
    base = ["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url, "--kind", "chat"]
    out = tmp_path / "c.json"
    assert main(base + ["--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "needs" in err and "log-probabilities of continuations" in err and len(err.splitlines()) == 1
    assert main(base + ["--method", "choose", "--out", str(out)]) == 2
    assert "add --reading generation" in capsys.readouterr().err
    assert main(base + ["--method", "choose", "--debias", "cyclic", "--out", str(out)]) == 2
    capsys.readouterr()
    assert not fake.calls("/v1/chat/completions") and not fake.calls("/v1/completions")
    for chat in ([], ["--chat"]):
        assert main(base + ["--method", "choose", "--reading", "generation", "--max-candidates", "3",
                            "--max-new-tokens", "4", *chat, "--out", str(out)]) == 0
        result = json.loads(out.read_text())
        assert result["readings"] == ["generation", "generation_lenient"] and result["run"]["model_kind"] == "chat"
        assert all("generation" in r for r in result["instances"])
        out.unlink()
    sent = fake.calls("/v1/chat/completions")
    assert sent and all(m["role"] in ("system", "user") for b in sent for m in b["messages"])


def test_the_api_key_never_shows(fake, wdlmpro_data, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    out = tmp_path / "k.json"
    args = ["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url, "--out", str(out)]
    assert main(args) == 0
    assert all(auth == f"Bearer {SENTINEL}" for _, _, auth in fake.requests)  # the server got it
    fake.die_after, fake.completions_calls = 0, 0  # scoring fails; error bodies echo the Authorization header
    with pytest.raises(ModelError) as err:
        main(["--traceback"] + args[:-1] + [str(tmp_path / "k2.json")])
    shown = "".join(traceback.format_exception(err.value))
    assert "Bearer ***" in shown  # the echoed header, redacted
    printed = capsys.readouterr()
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name.startswith("k.") for p in files)
    for text in [shown, printed.out, printed.err] + [p.read_text(errors="replace") for p in files]:
        assert SENTINEL not in text
