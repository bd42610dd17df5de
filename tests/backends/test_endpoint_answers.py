"""Every server answer is checked against its declared shape and the request (#33 D10, D11, D12, D14, D19):
one test per rule, each a fake server answering wrongly in one way. A malformed answer is asked once more,
then one line naming the endpoint and what was wrong; nothing from it is used or recorded. A fault that
passes (the second answer is right) gives the in-process values."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lexprobe.cli import main
from lexprobe.asking.requests import Generate
from lexprobe.errors import ModelError
from lexprobe.models import load_scorer
from tests.backends.fake_openai import send

pytestmark = pytest.mark.usefixtures("quick_retries")


def _pairs(remote):
    return [remote.split("the dog", " runs fast"), remote.split("a cat is", " here")]


NULL = object()  # a change returning it makes the answer JSON null


def _on(kind: str, change):
    """A ``mutate`` hook: ``change(answer)`` (in place, or returning a new answer) on one kind of answer."""

    def mutate(path, body, answer):
        hit = {"echo": path == "/v1/completions" and body.get("echo"),
               "generate": path == "/v1/completions" and not body.get("echo"),
               "chat": path == "/v1/chat/completions", "models": path == "/v1/models",
               "tokenize": path == "/tokenize"}[kind]
        if not hit:
            return answer
        out = change(answer)
        return None if out is NULL else answer if out is None else out

    return mutate


def _lps(answer, i=0):
    return answer["choices"][i]["logprobs"]["token_logprobs"]


def _inplace(change):
    """``change`` for its effect only (``list.pop`` returns what it removed)."""
    return lambda a: (change(a), None)[1]


def _set(i, value):
    return lambda a: _lps(a).__setitem__(i, value)


ECHO_FAULTS = {
    "a positive log-probability (the candidate would win)": (_set(-1, 3.0), "at most 0, got 3.0"),
    "NaN": (_set(-1, float("nan")), "NaN"),
    "+inf": (_set(-1, float("inf")), "at most 0, got inf"),
    "a JSON boolean": (_set(-1, True), "a number, not bool"),
    "a string": (_set(-1, "-0.5"), "a number, not str"),
    "a list": (_set(-1, [-0.5]), "a number, not list"),
    "10**400": (_set(-1, 10**400), "out of range"),
    "-10**400": (_set(-1, -(10**400)), "out of range"),
    "null after the first token": (_set(1, None), "prompt token 1 is null"),
    "one value too many, read from the front": (lambda a: _lps(a).append(-1.0), "log-probabilities for a prompt of"),
    "one value too few": (_inplace(lambda a: _lps(a).pop()), "log-probabilities for a prompt of"),
    "one choice too few": (_inplace(lambda a: a["choices"].pop()), "1 choice(s) for 2 prompt(s)"),
    "two choices of one index": (lambda a: a["choices"][1].__setitem__("index", 0), "two choices of index 0"),
    "an index past the prompts": (lambda a: a["choices"][1].__setitem__("index", 5), "index 5 for 2 prompt(s)"),
    "no index": (_inplace(lambda a: a["choices"][1].pop("index")), "choices.1.index: is missing"),
    "a string index": (lambda a: a["choices"][1].__setitem__("index", "1"), "choices.1.index"),
    "echoed tokens of another count": (_inplace(lambda a: a["choices"][0]["logprobs"]["tokens"].pop()), "echoes"),
    "echoed prompt ids that differ": (lambda a: a["choices"][0].__setitem__("prompt_token_ids", [1, 2]),
                                      "echoes token ids that are not the prompt's"),
    "a null body": (lambda a: NULL, "is null, not a JSON object"),
    "a list body": (lambda a: [a], "is a list, not a JSON object"),
    "string choices": (lambda a: {"choices": ["x", "y"]}, "choices.0: should be a JSON object"),
    "null choices": (lambda a: {"choices": None}, "choices"),
    "logprobs a list": (lambda a: a["choices"][0].__setitem__("logprobs", [1]), "choices.0.logprobs"),
}


@pytest.mark.parametrize("fault", list(ECHO_FAULTS))
def test_a_wrong_echo_answer_is_asked_twice_then_one_line(fault, fake):
    change, message = ECHO_FAULTS[fault]
    remote = load_scorer(fake.url, batch_size=2)
    fake.mutate = _on("echo", change)
    fake.requests.clear()
    with pytest.raises(ModelError) as err:
        remote.token_logprobs(_pairs(remote))
    text = str(err.value)
    assert message in text and "\n" not in text, text
    assert f"{fake.url}/completions" in text and "asked twice" in text
    assert "serve the model with vLLM" not in text  # D19: the fix named is about the answer, not the server
    assert len(fake.calls("/v1/completions")) == 2


@pytest.mark.parametrize("fault", ["a positive log-probability (the candidate would win)", "one value too many, "
                                   "read from the front", "a null body"])
def test_a_fault_that_passes_gives_the_right_values(fault, fake, llama):
    remote = load_scorer(fake.url, batch_size=2)
    fake.mutate, fake.mutate_left = _on("echo", ECHO_FAULTS[fault][0]), 1
    pairs = _pairs(remote)
    got, want = remote.token_logprobs(pairs), llama.token_logprobs(pairs)
    assert max(float(np.abs(g - w).max()) for g, w in zip(got, want)) <= 1e-5
    assert remote.stats["retried_requests"] == 1


def test_minus_infinity_is_a_log_probability(fake):
    remote = load_scorer(fake.url, batch_size=2)
    fake.mutate = _on("echo", _set(-1, float("-inf")))
    assert remote.token_logprobs(_pairs(remote))[0][-1] == -math.inf


def test_choices_out_of_order_are_matched_by_index(fake, llama):
    remote = load_scorer(fake.url, batch_size=2)
    fake.mutate = _on("echo", _inplace(lambda a: a["choices"].reverse()))
    pairs = _pairs(remote)
    got, want = remote.token_logprobs(pairs), llama.token_logprobs(pairs)
    assert [len(g) for g in got] == [len(w) for w in want]
    assert max(float(np.abs(g - w).max()) for g, w in zip(got, want)) <= 1e-5


def test_swapped_indices_are_caught_by_the_echoed_token_ids(fake, llama):
    """A vLLM server (``/version``) is asked to echo token ids (``return_tokens_as_token_ids``); a choice
    labelled with another prompt's index echoes the other prompt's ids."""
    fake.version = "0.32.0"
    remote = load_scorer(fake.url, batch_size=2)
    pairs = _pairs(remote)
    got, want = remote.token_logprobs(pairs), llama.token_logprobs(pairs)  # checked, and right
    assert max(float(np.abs(g - w).max()) for g, w in zip(got, want)) <= 1e-5
    assert remote.stats["echo_ids_compared"] == 2
    assert all(b.get("return_tokens_as_token_ids") for b in fake.calls("/v1/completions") if b.get("echo"))

    def swap(answer):
        answer["choices"][0]["index"], answer["choices"][1]["index"] = 1, 0

    fake.mutate = _on("echo", swap)
    with pytest.raises(ModelError) as err:
        remote.token_logprobs([remote.split("one more", " time"), remote.split("and a", " last")])
    assert "echoes token ids that are not the prompt's" in str(err.value)


def test_no_prompt_log_probabilities_names_the_server_fix_and_is_not_retried(fake):
    remote = load_scorer(fake.url, batch_size=2)
    fake.mutate = _on("echo", _inplace(lambda a: [c.__setitem__("logprobs", None) for c in a["choices"]]))
    fake.requests.clear()
    with pytest.raises(ModelError) as err:
        remote.token_logprobs(_pairs(remote))
    assert "gives no prompt log-probabilities" in str(err.value) and "serve the model with vLLM" in str(err.value)
    assert len(fake.calls("/v1/completions")) == 1


def test_an_answer_that_is_not_json(fake):
    remote = load_scorer(fake.url, batch_size=2)
    fake.raw = lambda h, path, body: path == "/v1/completions" and send(h, 200, body=b"<html>busy</html>")
    with pytest.raises(ModelError) as err:
        remote.token_logprobs(_pairs(remote))
    assert "is not JSON" in str(err.value) and "<html>busy" in str(err.value)


GENERATION_FAULTS = {
    "one choice too few": (_inplace(lambda a: a["choices"].pop()), "1 choice(s) for 2 prompt(s)"),
    "a null text": (lambda a: a["choices"][0].__setitem__("text", None), "choices.0.text"),
    "a number as text": (lambda a: a["choices"][1].__setitem__("text", 7), "choices.1.text"),
    "two of one index": (lambda a: a["choices"][0].__setitem__("index", 1), "two choices of index 1"),
    "an object body without choices": (lambda a: {"error": "x"}, "choices: is missing"),
}


@pytest.mark.parametrize("fault", list(GENERATION_FAULTS))
def test_a_wrong_generation_answer_is_one_line(fault, fake):
    change, message = GENERATION_FAULTS[fault]
    remote = load_scorer(fake.url, batch_size=2)
    fake.mutate = _on("generate", change)
    with pytest.raises(ModelError) as err:
        remote.generations([Generate("the dog is", 3), Generate("a cat and a", 3)])
    assert message in str(err.value) and "asked twice" in str(err.value), str(err.value)


CHAT_FAULTS = {
    "no choices (once the model's own 'unparseable' answer)": (lambda a: {"choices": []}, "at least 1 item"),
    "a null content": (lambda a: a["choices"][0]["message"].__setitem__("content", None), "message.content"),
    "no message": (_inplace(lambda a: a["choices"][0].pop("message")), "choices.0.message: is missing"),
    "no choice of index 0": (lambda a: a["choices"][0].__setitem__("index", 1), "0 choices of index 0"),
    "a list body": (lambda a: [], "is a list"),
}


@pytest.mark.parametrize("fault", list(CHAT_FAULTS))
def test_a_wrong_chat_answer_is_one_line(fault, fake):
    change, message = CHAT_FAULTS[fault]
    remote = load_scorer(fake.url, kind="chat")
    fake.mutate = _on("chat", change)
    with pytest.raises(ModelError) as err:
        remote.generations([Generate("Which is right?", 3)])
    assert message in str(err.value) and "/chat/completions" in str(err.value), str(err.value)


MODELS_FAULTS = {
    "max_model_len -5": (lambda a: a["data"][0].__setitem__("max_model_len", -5), "max_model_len: Input should be "
                                                                                 "greater than 0"),
    "max_model_len 0": (lambda a: a["data"][0].__setitem__("max_model_len", 0), "greater than 0"),
    "max_model_len true": (lambda a: a["data"][0].__setitem__("max_model_len", True), "max_model_len: Input should be "
                                                                                     "a valid integer"),
    "max_model_len a string": (lambda a: a["data"][0].__setitem__("max_model_len", "2048"), "max_model_len"),
    "max_model_len 2.5": (lambda a: a["data"][0].__setitem__("max_model_len", 2.5), "max_model_len"),
    "a list body": (lambda a: a["data"], "is a list, not a JSON object"),
    "an integer id": (lambda a: a["data"][0].__setitem__("id", 5), "data.0.id"),
    "data an object": (lambda a: {"data": {"id": "x"}}, "data: Input should be a valid list"),
    "a model twice": (_inplace(lambda a: a["data"].append(dict(a["data"][0]))), "twice"),
    "an integer body": (lambda a: 3, "is a number"),
}


@pytest.mark.parametrize("fault", list(MODELS_FAULTS))
def test_a_wrong_models_answer_is_one_line_before_any_work(fault, fake, wdlmpro_data, tmp_path, capsys):
    change, message = MODELS_FAULTS[fault]
    fake.mutate = _on("models", change)
    out = tmp_path / "r.json"
    assert main(["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and f"{fake.url}/models" in err, err
    assert not fake.calls("/v1/completions") and not out.exists()


@pytest.mark.parametrize("tokens,message", [(["a", "b"], "tokens.0"), ([-1], "greater than or equal to 0"),
                                            ("1 2", "valid list")])
def test_a_wrong_tokenize_answer_is_one_line(tokens, message, fake):
    fake.mutate = _on("tokenize", lambda a: {**a, "tokens": tokens})
    with pytest.raises(ModelError) as err:
        load_scorer(fake.url)
    assert message in str(err.value) and "/tokenize" in str(err.value)


def test_a_fault_mid_run_stops_in_one_line_and_records_nothing_of_it(fake, wdlmpro_data, tmp_path, capsys):
    """From half-way on, every echo answer is wrong: the run stops (exit 2, no result); the rerun, answered
    right, resumes the units logged before and equals a clean run."""
    base = ["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url, "--batch-size", "1", "--chunk-size", "1",
            "--concurrency", "1"]
    clean = tmp_path / "clean.json"
    assert main(base + ["--out", str(clean)]) == 0
    half = len([b for b in fake.calls("/v1/completions") if b.get("echo")]) // 2
    calls = {"n": 0}

    def wrong_from_half_way(answer):
        calls["n"] += 1
        if calls["n"] > half:
            _lps(answer)[-1] = 3.0

    fake.mutate = _on("echo", wrong_from_half_way)
    out = tmp_path / "r.json"
    assert main(base + ["--out", str(out)]) == 2
    assert "at most 0" in capsys.readouterr().err and not out.exists()
    logs = list(tmp_path.glob("r.json*.jsonl"))
    assert logs and all("3.0" not in p.read_text() for p in logs)
    fake.mutate = None
    fake.requests.clear()
    assert main(base + ["--out", str(out)]) == 0
    assert len([b for b in fake.calls("/v1/completions") if b.get("echo")]) < 2 * half  # resumed
    assert json.loads(out.read_text())["metrics"] == json.loads(clean.read_text())["metrics"]


def test_a_generation_choice_too_few_stops_the_run(fake, wdlmpro_data, tmp_path, capsys):
    """D11: once an instance without ``generation``, exit 0."""
    fake.mutate = _on("generate", _inplace(lambda a: a["choices"].pop()))
    out = tmp_path / "c.json"
    args = ["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url, "--method", "choose",
            "--max-candidates", "3", "--max-new-tokens", "3", "--batch-size", "4", "--out", str(out)]
    assert main(args) == 2
    assert "choice(s) for" in capsys.readouterr().err and not out.exists()
