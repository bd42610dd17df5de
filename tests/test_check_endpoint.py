"""`lexprobe check-endpoint URL --against PATH` (#34 item 2): a server that scores as the in-process model does
agrees (exit 0); one that answers the same log-probabilities at bfloat16 precision (what vLLM does to float32
weights unless told `--dtype float32`) is caught (exit 1, the line says so); both sides get the same token ids.
The fake server (tests/backends/fake_openai.py) is backed by the tiny Llama in process; the real vLLM server is
checked in tests/backends/test_vllm_server.py and by the docs' CPU recipe (tests/backends/test_serving_recipe.py)."""

from __future__ import annotations

import json

import pytest
import torch

from lexprobe.cli.check_endpoint import DEFAULT_TOLERANCE, PROBES, compare_scores
from lexprobe.cli import main
from lexprobe.models import load_scorer
from tests.backends.fake_openai import FakeOpenAI


class BFloat16Server(FakeOpenAI):
    """The in-process log-probabilities rounded to bfloat16, as a server computing in bfloat16 would report them
    at best (its own bfloat16 arithmetic differs more)."""

    def _completions(self, body: dict) -> dict:
        answer = super()._completions(body)
        for choice in answer["choices"]:
            lps = (choice.get("logprobs") or {}).get("token_logprobs")
            if lps:
                choice["logprobs"]["token_logprobs"] = [
                    None if v is None else float(torch.tensor(v).to(torch.bfloat16).float()) for v in lps]
        return answer


@pytest.fixture(scope="module")
def llama(tiny_llama):
    return load_scorer(str(tiny_llama), device="cpu", dtype="float32")


def _check(server_class, llama, tiny_llama, tmp_path, capsys):
    out = tmp_path / "check.json"
    with server_class(llama, name=str(tiny_llama)) as server:
        code = main(["check-endpoint", server.url, "--against", str(tiny_llama), "--json", str(out)])
        sent = [tuple(p) for body in server.calls("/v1/completions") if body.get("echo") for p in body["prompt"]]
    return code, capsys.readouterr().out, json.loads(out.read_text()), sent


def test_a_float32_server_agrees(llama, tiny_llama, tmp_path, capsys):
    code, printed, check, sent = _check(FakeOpenAI, llama, tiny_llama, tmp_path, capsys)
    assert code == 0 and check["agree"] and check["max_delta"] <= 1e-5
    assert "agree: every |Δ|" in printed and max(len(line) for line in printed.splitlines()) <= 100
    assert len(check["requests"]) == sum(len(c) for _, c in PROBES) == len(check["probes"]) * 4
    # the same token ids both ways: what the server was asked is the in-process tokenizer's split of each pair
    asked = {tuple(c + x) for c, x in (llama.split(r["context"], r["continuation"]) for r in check["requests"])}
    assert set(sent) == asked


def test_a_bfloat16_server_is_caught(llama, tiny_llama, tmp_path, capsys):
    code, printed, check, _ = _check(BFloat16Server, llama, tiny_llama, tmp_path, capsys)
    assert code == 1 and not check["agree"] and check["max_delta"] > DEFAULT_TOLERANCE
    assert "DISAGREE" in printed and "--dtype float32" in printed
    # every request's figures are there: |Δ| of the summed log-probabilities, by hand from the two sides
    for r in check["requests"]:
        assert r["delta"] == pytest.approx(abs(r["endpoint"] - r["here"]))


def test_rankings_and_tolerance_by_hand():
    """Two probes of two continuations: a swapped ranking disagrees even within tolerance; a |Δ| over it
    disagrees even with the same ranking."""
    requests = [(0, "c", " a"), (0, "c", " b"), (1, "d", " a"), (1, "d", " b")]
    here = [[-1.0, -1.0], [-3.0], [-1.0], [-2.0]]
    check = compare_scores(here, [[-1.0, -1.0], [-3.0], [-1.0], [-2.0]], requests, 1e-3)
    assert check["agree"] and check["max_delta"] == 0.0
    swapped = compare_scores(here, [[-1.0, -1.0], [-3.0], [-2.0005], [-2.0]], requests, 1e-2)
    assert not swapped["agree"] and [p["agree"] for p in swapped["probes"]] == [True, False]
    far = compare_scores(here, [[-1.0, -1.002], [-3.0], [-1.0], [-2.0]], requests, 1e-3)
    assert not far["agree"] and far["max_delta"] == pytest.approx(0.002) and all(p["agree"] for p in far["probes"])


def test_bad_input_is_one_line_and_exit_2(tiny_llama, tmp_path, capsys):
    from tests.backends.vllm_server import free_port

    assert main(["check-endpoint", f"http://127.0.0.1:{free_port()}/v1", "--against", str(tiny_llama)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(["check-endpoint", "not-a-url", "--against", str(tiny_llama)]) == 2
    assert "not an endpoint URL" in capsys.readouterr().err


def test_a_server_that_tokenises_otherwise_names_against_not_a_flag_the_command_lacks(llama, tiny_llama, capsys):
    """check-endpoint takes the tokenizer from --against (it has no --tokenizer): its fix names --against; an
    eval through the same server names --tokenizer, which eval takes."""
    with FakeOpenAI(llama, name=str(tiny_llama)) as server:
        server.wrong_tokens = True
        code = main(["check-endpoint", server.url, "--against", str(tiny_llama)])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and "does not tokenise as" in err, err
        assert "--tokenizer" not in err and "--against must be the served model" in err
        with pytest.raises(Exception, match="pass --tokenizer"):
            load_scorer(server.url)
