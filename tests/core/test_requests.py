"""The request layer: every in-process backend answers each request type it serves exactly as its primitive
does, whatever else is asked with it; the engine asks each distinct request once and refuses what a backend
does not serve in one line."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lexprobe.asking.engine import Engine, require, served
from lexprobe.asking.requests import (
    Continuation,
    Embed,
    Fit,
    Generate,
    Message,
    PseudoLogLikelihood,
    RandomScores,
    Slot,
    TokenVector,
)
from lexprobe.errors import ModelError
from lexprobe.models import load_scorer
from tests.llm.choose_runs import greedy_reference, prompt_ids


class Counting:
    """A stand-in backend serving only ``Embed``: counts what it is asked."""

    name = "counting"

    def __init__(self):
        self.asked: list[str] = []

    def embeddings(self, requests, progress=False):
        self.asked += [r.text for r in requests]
        return [np.array([len(r.text), 1.0]) for r in requests]


def test_the_engine_asks_each_distinct_request_once_across_calls():
    backend = Counting()
    engine = Engine(backend)
    first = engine([Embed("a"), Embed("bb"), Embed("a")])
    second = engine([Embed("bb"), Embed("ccc")])
    assert backend.asked == ["a", "bb", "ccc"]
    assert [v[0] for v in first] == [1, 2, 1] and [v[0] for v in second] == [2, 3]
    assert engine.stats() == {"requests": 5, "requests_scored": 3}


def test_the_memo_is_bounded_and_keeps_what_was_just_asked(monkeypatch):
    from lexprobe.asking import engine as engine_module

    monkeypatch.setattr(engine_module, "MEMO_BYTES", 16 * 3)  # three answers of two float64s
    backend = Counting()
    engine = Engine(backend)
    for text in ("a", "b", "c", "d"):
        assert engine([Embed(text)])[0][0] == 1
    assert len(engine._memo) <= 3 and Embed("d") in engine._memo
    engine([Embed("a")])
    assert backend.asked.count("a") == 2  # dropped, so asked again: the same answer


def test_capabilities_are_the_request_types_served():
    assert served(Counting()) == [Embed]
    assert require(Counting(), [(Continuation,), (Embed,)], "X") == (Embed,)
    with pytest.raises(ModelError) as err:
        require(Counting(), [(Continuation,), (Slot,)], "WSD --method likelihood")
    line = str(err.value)
    assert "\n" not in line and "WSD --method likelihood needs" in line and "text embeddings" in line
    with pytest.raises(ModelError, match="does not serve"):
        Engine(Counting())([Continuation("a", " b")])


def test_fit_defaults_to_fitting_where_the_backend_has_no_limit():
    assert Engine(Counting()).fit([Embed("a")]) == [Fit()]


@pytest.fixture(scope="module")
def causal(tiny_gpt2):
    return load_scorer(str(tiny_gpt2), kind="causal", device="cpu", batch_size=4)


def test_continuations_equal_the_scorer_primitive_together_or_alone(causal):
    pairs = [("The definition of a dog is", " an animal that barks"), ("A cat", " sleeps"),
             ("The definition of a dog is", " a pet"), ("", " hello there")]
    requests = [Continuation(c, x) for c, x in pairs]
    expected = causal.continuation_logprobs(pairs)
    together = Engine(causal)(requests)
    alone = [Engine(causal)([r])[0] for r in requests]
    for e, t, a in zip(expected, together, alone):
        np.testing.assert_allclose(t, e, atol=1e-5)
        np.testing.assert_allclose(a, e, atol=1e-5)
    first = Engine(causal)([Continuation(pairs[0][0], pairs[0][1], max_tokens=1)])[0]
    assert first.shape == (1,) and abs(first[0] - expected[0][0]) < 1e-5


def test_a_window_predicts_each_token_from_the_last_tokens_only(causal):
    """The plain rule, token by token: token j of the continuation after the last ``window`` tokens of
    context + continuation[:j] (the WDLMPro authors' batched loop)."""
    request = Continuation("The definition of a small dog is", " an animal that barks at night", window=6)
    ctx, cont = causal.tokenize_pair(request.context, request.continuation)
    expected = [float(causal.token_logprobs([((tuple(ctx) + tuple(cont[:j]))[-6:], (cont[j],))])[0][0])
                for j in range(len(cont))]
    got = Engine(causal)([request])[0]
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_fitting_a_continuation_cuts_the_context_or_refuses(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2), kind="causal", device="cpu")
    scorer.max_length = 8
    ok, cut, too_long = Engine(scorer).fit([Continuation("a b", " c"), Continuation("a b c d e f g h i", " j"),
                                           Continuation("a", " b c d e f g h i j k")])
    assert ok == Fit(cut=False, context_tokens=ok.context_tokens, tokens=1) and not ok.too_long  # " c": one token
    n_cont = len(scorer.tokenize_pair("a b c d e f g h i", " j")[1])
    assert cut.cut and cut.context_tokens == 8 - n_cont
    assert too_long.too_long and "does not fit" in too_long.too_long


def test_generations_put_messages_in_the_chat_template(tiny_llama):
    scorer = load_scorer(str(tiny_llama), kind="causal", device="cpu")
    messages = (Message("user", "Which one? 1. a 2. b"),)
    expected = greedy_reference(scorer, prompt_ids(scorer.tokenizer, messages, "Answer:"), 5)
    plain = greedy_reference(scorer, prompt_ids(scorer.tokenizer, "plain text"), 5)
    got = Engine(scorer)([Generate(messages, 5, answer_prefix="Answer:"), Generate("plain text", 5)])
    assert got == [expected, plain]


@torch.inference_mode()
def _summed_reference(scorer, ids: list[int], n_before: int) -> float:
    """One full forward pass, nothing shared: the summed log-probability of ``ids[n_before:]``."""
    logp = torch.log_softmax(scorer.model(input_ids=torch.tensor([ids])).logits[0].float(), -1)
    return sum(logp[i - 1, ids[i]].item() for i in range(n_before, len(ids)))


def test_a_chat_context_its_answer_prefix_and_given_text_are_fed_and_not_scored(tiny_llama):
    """A ``Continuation`` after chat messages: the chat template's text (no special tokens added: it holds
    them), then the answer prefix and ``given`` (CoDA21's row), then the scored continuation only; requests
    differing in ``given`` share one pass over the context, and equal a full forward pass each."""
    scorer = load_scorer(str(tiny_llama), kind="causal", device="cpu", batch_size=4)
    messages = (Message("system", "Be brief."), Message("user", "Pair them: 1. they ___ 2. it ___ A. ran B. sat"))
    requests = [Continuation(messages, f" {x}", answer_prefix="Answer:", given=f" {row}:") for row in (1, 2)
                for x in "AB"]
    scorer.stats.clear()
    got = Engine(scorer)(requests)
    assert scorer.stats["context_forwards"] == 1
    for r, lp in zip(requests, got):
        before = prompt_ids(scorer.tokenizer, messages, "Answer:" + r.given)
        ids = prompt_ids(scorer.tokenizer, messages, "Answer:" + r.given + r.continuation)
        assert ids[0] == scorer.tokenizer.bos_token_id and ids.count(scorer.tokenizer.bos_token_id) == 1
        assert len(lp) == len(ids) - len(before)  # the letter's tokens only
        assert float(lp.sum()) == pytest.approx(_summed_reference(scorer, ids, len(before)), abs=1e-5)
    plain = Continuation("Pair them:\nAnswer:", " A", given=" 1:")
    ids = prompt_ids(scorer.tokenizer, "Pair them:\nAnswer: 1: A")
    assert float(Engine(scorer)([plain])[0].sum()) == pytest.approx(
        _summed_reference(scorer, ids, len(prompt_ids(scorer.tokenizer, "Pair them:\nAnswer: 1:"))), abs=1e-5)


def test_a_prompt_fits_with_room_for_its_answer_or_is_too_long(tiny_gpt2, tiny_llama):
    """``Generate`` is fitted whole: prompt tokens + ``max_tokens`` within the model's positions, else too long
    (a cut prompt would lose its question); a chat model without a chat template refuses messages in one line."""
    scorer = load_scorer(str(tiny_gpt2), kind="causal", device="cpu")
    n = len(prompt_ids(scorer.tokenizer, "one two three", "Answer:"))
    scorer.max_length = n + 4
    fits, too_long = Engine(scorer).fit([Generate("one two three", 4, answer_prefix="Answer:"),
                                          Generate("one two three", 5, answer_prefix="Answer:")])
    assert fits == Fit(context_tokens=n)
    assert too_long.too_long == f"prompt of {n} tokens + 5 for the answer exceeds the model's {n + 4} positions"
    with pytest.raises(ModelError, match="has no chat template"):
        Engine(scorer).fit([Generate((Message("user", "hi"),), 1)])
    chat = load_scorer(str(tiny_llama), kind="causal", device="cpu")
    (fit,) = Engine(chat).fit([Generate((Message("user", "hi"),), 1, answer_prefix="Answer:")])
    assert fit.context_tokens == len(prompt_ids(chat.tokenizer, (Message("user", "hi"),), "Answer:"))


def test_slots_and_pseudo_loglikelihoods_equal_the_masked_primitives(tiny_bert):
    from lexprobe.scorers.pll import pll_token_logprobs

    scorer = load_scorer(str(tiny_bert), kind="masked", device="cpu")
    slots = [Slot("the ", "dog", " is an animal ."), Slot("a ", "cat", " sleeps")]
    expected = scorer.slot_logprobs([scorer.slot_request(s.left, s.word, s.right) for s in slots])
    for e, g in zip(expected, Engine(scorer)(slots)):
        np.testing.assert_allclose(g, e, atol=1e-6)
    plls = [PseudoLogLikelihood("the dog is", " an animal", variant="word-l2r"),
            PseudoLogLikelihood("a cat", " sleeps well", max_tokens=1)]
    got = Engine(scorer)(plls)
    np.testing.assert_allclose(got[0], pll_token_logprobs(scorer, [("the dog is", " an animal")], "word-l2r")[0],
                               atol=1e-6)
    np.testing.assert_allclose(got[1], pll_token_logprobs(scorer, [("a cat", " sleeps well")], max_tokens=1)[0],
                               atol=1e-6)


def test_embeddings_and_token_vectors_equal_the_encoders(minilm_path, tiny_bert):
    sentence = load_scorer(str(minilm_path), kind="embedding", device="cpu")
    texts = ["a dog barks", "a domesticated carnivore"]
    np.testing.assert_allclose(np.stack(Engine(sentence)([Embed(t) for t in texts])), sentence.encode(texts),
                               atol=1e-6)
    token = load_scorer(str(tiny_bert), kind="token", device="cpu")
    words = ("the", "dog", "barks", "loudly")
    expected, _ = token.embed_sentence(words, [1])
    got = Engine(token)([TokenVector(words, 1), TokenVector(words, 1, layer=0)])
    np.testing.assert_allclose(got[0], expected[0], atol=1e-6)
    at0, _ = token.view(layer=0).embed_sentence(words, [1])
    np.testing.assert_allclose(got[1], at0[0], atol=1e-6)


def test_the_random_baseline_serves_seeded_scores_and_vectors():
    scorer = load_scorer("random")
    got = Engine(scorer)([RandomScores("k", 3), TokenVector(("a", "b"), 1)])
    np.testing.assert_array_equal(got[0], scorer.scores("k", 3))
    assert got[1].shape == (64,)
    np.testing.assert_array_equal(Engine(load_scorer("random"))([TokenVector(("a", "b"), 1)])[0], got[1])
