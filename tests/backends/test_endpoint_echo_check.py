"""The echoed prompt is always compared with the prompt sent: by token ids where the server echoes them, else by
each token's text against the local tokenizer's text of the id sent. A server (one reporting vLLM included) that
ignores `return_tokens_as_token_ids` and echoes plain tokens once had swapped `index` labels on two prompts of
equal length scored silently (`echo_ids_compared: 0`); a server that echoes neither ids nor tokens is refused in
one line; servers that write a token's text their own way (a leading space, SentencePiece's ▁, GPT-2's Ġ) agree."""

from __future__ import annotations

import numpy as np
import pytest

from lexprobe.errors import ModelError
from lexprobe.models import load_scorer

pytestmark = pytest.mark.usefixtures("quick_retries")

CANDIDATES = [("the dog", " runs"), ("a cat", " sat"), ("the bank", " of a river"), ("to run", " fast"),
              ("a red", " bird"), ("one more", " time"), ("and a", " last"), ("the sun", " set"),
              ("my hat", " fell"), ("a big", " tree")]


def _same_length_pairs(remote) -> list:
    """Two different (context, continuation) pairs whose prompts have the same number of tokens."""
    pairs = [remote.split(c, x) for c, x in CANDIDATES]
    by_length: dict[int, list] = {}
    for pair in pairs:
        by_length.setdefault(len(pair[0]) + len(pair[1]), []).append(pair)
    found = next(group for group in by_length.values() if len(group) >= 2)
    return found[:2]


def _swap(path, body, answer):
    if body.get("echo") and len(answer["choices"]) == 2:
        answer["choices"][0]["index"], answer["choices"][1]["index"] = 1, 0
    return answer


@pytest.mark.parametrize("reports_vllm", [True, False])
def test_echoed_text_is_compared_where_ids_are_not_echoed(reports_vllm, fake, llama):
    fake.version = "0.32.0" if reports_vllm else None
    fake.token_ids_ignored = True
    remote = load_scorer(fake.url, batch_size=2)
    pairs = _same_length_pairs(remote)
    got, want = remote.token_logprobs(pairs), llama.token_logprobs(pairs)
    assert max(float(np.abs(g - w).max()) for g, w in zip(got, want)) <= 1e-5
    assert remote.stats["echo_texts_compared"] == 2 and remote.stats["echo_ids_compared"] == 0
    if reports_vllm:  # asked for ids, answered with text: compared all the same
        assert all(b.get("return_tokens_as_token_ids") for b in fake.calls("/v1/completions") if b.get("echo"))


@pytest.mark.parametrize("reports_vllm", [True, False])
def test_swapped_indices_are_caught_by_the_echoed_text(reports_vllm, fake):
    fake.version = "0.32.0" if reports_vllm else None
    fake.token_ids_ignored = True
    remote = load_scorer(fake.url, batch_size=2)
    pairs = _same_length_pairs(remote)
    fake.mutate = _swap
    fake.requests.clear()
    with pytest.raises(ModelError) as err:
        remote.token_logprobs(pairs)
    text = str(err.value)
    assert "echoes tokens that are not the prompt's" in text and "asked twice" in text and "\n" not in text, text
    assert len(fake.calls("/v1/completions")) == 2


def test_swapped_indices_with_ids_echoed_are_still_caught_by_the_ids(fake):
    fake.version = "0.32.0"
    remote = load_scorer(fake.url, batch_size=2)
    fake.mutate = _swap
    with pytest.raises(ModelError, match="echoes token ids that are not the prompt's"):
        remote.token_logprobs(_same_length_pairs(remote))


@pytest.mark.parametrize("spelling", ["leading space", "sentencepiece", "vocabulary entry"])
def test_a_server_writing_token_text_its_own_way_agrees(spelling, fake, llama):
    """Servers differ in how they show a token's text; each is read as the same token."""
    tok = llama.tokenizer
    fake.token_text = {"leading space": lambda t: " " + tok.decode([t]),
                       "sentencepiece": lambda t: tok.decode([t]).replace(" ", "\u2581"),
                       "vocabulary entry": lambda t: tok.convert_ids_to_tokens(t)}[spelling]
    remote = load_scorer(fake.url, batch_size=2)
    pairs = [remote.split(c, x) for c, x in CANDIDATES[:4]]
    got, want = remote.token_logprobs(pairs), llama.token_logprobs(pairs)
    assert max(float(np.abs(g - w).max()) for g, w in zip(got, want)) <= 1e-5
    assert remote.stats["echo_texts_compared"] == 4


def test_an_echo_of_neither_ids_nor_tokens_is_refused_in_one_line(fake):
    remote = load_scorer(fake.url, batch_size=2)

    def no_tokens(path, body, answer):
        for choice in answer["choices"]:
            if choice.get("logprobs"):
                choice["logprobs"].pop("tokens", None)
        return answer

    fake.mutate = no_tokens
    fake.requests.clear()
    with pytest.raises(ModelError) as err:
        remote.token_logprobs(_same_length_pairs(remote))
    assert "echoes neither the prompt's token ids nor its tokens" in str(err.value)
    assert len(fake.calls("/v1/completions")) == 1  # a server's way, not a fault: not asked again


def test_a_token_text_that_differs_in_one_place_is_caught(fake):
    """Not only a swap: one token's text that is not the prompt's (the answer is for another prompt)."""
    fake.token_ids_ignored = True
    remote = load_scorer(fake.url, batch_size=1)

    def one_wrong(path, body, answer):
        if body.get("echo"):
            answer["choices"][0]["logprobs"]["tokens"][-1] = "zebra"
        return answer

    fake.mutate = one_wrong
    with pytest.raises(ModelError, match="at position"):
        remote.token_logprobs([remote.split("the dog", " runs")])
