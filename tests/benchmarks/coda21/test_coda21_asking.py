"""CoDA21 by asking (the authors' evaluate_by_asking): questions, P(Yes) and a port of their loop."""

import math

import numpy as np
import pytest
import torch

from lexprobe.benchmarks.coda21.ask import (
    ANSWERS, QUESTION_TEXTS, answer_ids, ask_matrices, cut_context, pattern_scores, questions, yes_probabilities,
)
from lexprobe.benchmarks.coda21.dataset import load_coda
from lexprobe.models import load_scorer
from lexprobe.scorers.base import Scorer
from tests.benchmarks.coda21.helpers import write_small


def test_questions_are_the_authors_text(tmp_path):
    data = load_coda(write_small(tmp_path / "small.json"))
    g = data.groups[1]  # nouns: suggestion, concept
    qs = questions(g)
    assert len(qs) == 2 * 2 * 3
    assert qs[0] == ("This was Madden 's bkatuhla ; the police chief shook his head Is bkatuhla defined as "
                     " an idea that is suggested?")  # the definition's own leading space: two spaces
    assert qs[1].endswith("Can bkatuhla be defined as  an idea that is suggested?")
    assert qs[2].endswith("head Is bkatuhla  an idea that is suggested?")
    assert qs[3].endswith("Is bkatuhla defined as  an abstract or general idea inferred from specific instances?")
    assert qs[6].startswith("The bkatuhla of apparent temperature is used Is bkatuhla defined as  an idea")
    verb = [x for x in data.groups if x.pos == "v"][0]
    assert questions(verb)[1].endswith("Can bkatuhla defined as to  move in a pattern; usually to musical accompaniment?")
    assert QUESTION_TEXTS["v"][2] == "<CONTEXT> Is <NONCE> to <DEFINITION>?"


def test_long_contexts_are_cut_to_72_words_around_the_nonce():
    words = [f"w{i}" for i in range(100)]
    middle = " ".join(words[:50] + ["dog"] + words[50:])  # 101 words, target at 50
    cut = cut_context(middle, "dog", "bk").split(" ")
    assert len(cut) == 72 and cut[36] == "bk" and cut[0] == "w14"  # [50-36, 50+36)
    start = cut_context(" ".join(["dog"] + words), "dog", "bk").split(" ")
    assert start == ["bk"] + words[:71]
    end = cut_context(" ".join(words + ["dog"]), "dog", "bk").split(" ")
    assert end == words[-71:] + ["bk"]
    assert cut_context("a dog barks", "dog", "bk") == "a bk barks"
    with pytest.raises(ValueError):  # as theirs: the nonce glued to a word in a context that must be cut
        cut_context(" ".join(words + ["dogs"]), "dog", "bk")


class TwoAnswers(Scorer):
    """A causal 'model' with scripted log P(answer) per text: checks the two-way softmax by hand."""

    def __init__(self, table):
        super().__init__("scripted")
        self.kind, self.table, self.ids = "causal", table, {t: 10 + i for i, t in enumerate(table)}
        ids = self.ids

        class Tok:
            def __call__(self, text, add_special_tokens=True):
                return {"input_ids": [ids[text]]}

            def encode(self, text, add_special_tokens=False):
                return [{" Yes": 1, " No": 2}[text]]

        self.tokenizer = Tok()

    def continuations(self, requests, progress=False):  # ``asking.requests.Continuation``
        assert all(r.max_tokens == 1 for r in requests), "asking reads the answer's first token only"
        self.asked = getattr(self, "asked", 0) + len(requests)
        return [np.array([self.table[r.context][(" Yes", " No").index(r.continuation)]]) for r in requests]


def test_yes_probability_is_the_two_way_softmax():
    # log P(Yes) = -1, log P(No) = -2 -> e^-1 / (e^-1 + e^-2) = 1 / (1 + e^-1) = 0.7311
    # log P(Yes) = -5, log P(No) = -0.1 -> 1 / (1 + e^4.9) = 0.00739
    scorer = TwoAnswers({"q1": (-1.0, -2.0), "q2": (-5.0, -0.1)})
    got = yes_probabilities(scorer, ["q1", "q2"])
    np.testing.assert_allclose(got, [1 / (1 + math.exp(-1)), 1 / (1 + math.exp(4.9))], rtol=1e-12)
    m = np.arange(12, dtype=float).reshape(2, 2, 3)
    parts = pattern_scores(m)
    assert set(parts) == {"pattern_1", "pattern_2", "pattern_3", "ensemble"}
    np.testing.assert_array_equal(parts["ensemble"], [[1, 4], [7, 10]])


def _authors_cd_pairs(model, tok, texts, masked, answers):
    """A port of ``_create_batch`` / ``_evaluate_cd_pairs`` (evaluator.py:109-183), one batch."""
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    tok.padding_side = "right"
    target_ids = torch.tensor([tok.encode(a, add_special_tokens=False)[0] for a in answers])
    inputs = tok([t + f" {tok.mask_token}" if masked else t for t in texts], padding=True)
    ids, masks = torch.tensor(inputs["input_ids"]), torch.tensor(inputs["attention_mask"])
    with torch.no_grad():
        out = model(input_ids=ids, attention_mask=masks)[0]
    probs = []
    for n, seq_mask in enumerate(masks):
        at = int(seq_mask.sum()) - (2 if masked else 1)
        probs.append(float(torch.softmax(out[n, at, target_ids].double(), dim=0)[0]))
    return np.array(probs)


@pytest.mark.parametrize("fixture, masked", [("tiny_gpt2", False), ("tiny_roberta", True), ("tiny_bert", True)])
def test_matrices_equal_a_port_of_the_released_loop(tmp_path, request, fixture, masked):
    scorer = load_scorer(str(request.getfixturevalue(fixture)), batch_size=4)
    data = load_coda(write_small(tmp_path / "small.json"))
    groups = data.groups[1:]  # a 2-noun and a 3-verb group: 4 * 3 + 9 * 3 questions
    answers = (" dog", " cat")  # the tiny vocabularies spell " Yes" / " No" with a shared first byte token
    yes, no = answer_ids(scorer.tokenizer, answers)
    assert yes != no
    got = ask_matrices(scorer, groups, answers=answers)
    assert [m.shape for m in got] == [(2, 2, 3), (3, 3, 3)]
    for g, m in zip(groups, got):
        want = _authors_cd_pairs(scorer.model, scorer.tokenizer, questions(g), masked, answers)
        np.testing.assert_allclose(m.reshape(-1), want, atol=1e-5)
    first = tuple(scorer.tokenizer.encode(a, add_special_tokens=False)[0] for a in ANSWERS)
    if first[0] == first[1]:  # the byte-level tiny vocabularies: the authors' P(Yes) cannot be read (#26 D10)
        from lexprobe.errors import ModelError

        with pytest.raises(ModelError, match="same first token"):
            answer_ids(scorer.tokenizer)
    else:
        assert answer_ids(scorer.tokenizer) == first


def test_asking_needs_a_language_model():
    from lexprobe.errors import ModelError

    with pytest.raises(ModelError, match="needs log-probabilities of continuations .* or log-probabilities of masked slots"):
        yes_probabilities(type("S", (), {"name": "vectors", "encode": lambda self, t, progress=False: t})(), ["q"])
