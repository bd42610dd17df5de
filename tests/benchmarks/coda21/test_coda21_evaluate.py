import json

import numpy as np
import pytest

from lexprobe.benchmarks.coda21.dataset import Candidate, Group, load_coda
from lexprobe.benchmarks.coda21.config import AskOptions, CodaConfig
from lexprobe.benchmarks.coda21.likelihood import context_without_target, match_matrices, prompt
from lexprobe.cache import partial_path
from lexprobe.errors import LexprobeError
from lexprobe.scorers.pll import pll_reference
from lexprobe.scorers.reference import causal_continuation_logprobs
from tests.benchmarks.coda21.helpers import MatrixScorer, evaluate, small_coda, write_small

# hand-made score matrices (rows: contexts, columns: definitions) for the small file
MATRICES = {
    # optimal: identity (5 + 4 + 9 = 18 beats 6 + 0 + 9); simple matching: definition 1 takes context 0
    "n/0": [[5, 6, 0], [0, 4, 0], [0, 0, 9]],
    # both methods swap the two: accuracy 0
    "n/1": [[0, 1], [1, 0]],
    # a derangement is optimal (3 + 3 + 3); simple matching takes the same pairs
    "v/0": [[0, 3, 0], [0, 0, 3], [3, 0, 0]],
}


@pytest.fixture
def small(tmp_path):
    return load_coda(write_small(tmp_path / "small.json"))


def test_prompts_and_target_removal():
    assert prompt("the art of it", "art", "n") == "the bkatuhla of it Definition of bkatuhla is"
    assert prompt("they danced", "danced", "v", nonce="x") == "they x Definition of x is to"
    assert prompt("the art", "art", "n", pattern="defined-as") == "the bkatuhla bkatuhla is defined as"
    assert prompt("the art", "art", "n", pattern="is") == "the bkatuhla bkatuhla is"
    assert context_without_target("clouds of dust , shouting", "dust") == "clouds of , shouting"


@pytest.mark.parametrize("align", ["optimal", "exhaustive"])
def test_hand_computed_accuracies(small, align):
    result = evaluate(small, MatrixScorer(MATRICES), align=align)
    m, rnd = result["metrics"]["alignment"], result["baselines"]["random"]["alignment"]
    assert m["n"]["accuracy"] == pytest.approx((1 + 0) / 2)
    assert m["n"]["simple_accuracy"] == pytest.approx((2 / 3 + 0) / 2)
    assert rnd["n"]["accuracy"] == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert m["v"]["accuracy"] == 0.0 and m["v"]["n"] == 1
    assert m["all"]["accuracy"] == pytest.approx(1 / 3)
    assert rnd["all"]["accuracy"] == pytest.approx((1 / 3 + 1 / 2 + 1 / 3) / 3)
    first = result["instances"][0]
    assert first["id"] == "n/0" and first["assignment"] == [0, 1, 2]
    assert first["predicted_pairs"] == [[0, 0], [1, 1], [2, 2]]
    assert first["scores"] == MATRICES["n/0"]
    assert result["breakdowns"]["alignment"]["by_k"]["2"] == {"groups": 1, "accuracy": 0.0, "random_baseline": 0.5,
                                                 "ci": {"accuracy": [0.0, 0.0], "random_baseline": [0.5, 0.5]}}
    # n: groups with accuracy 1 and 0; a bootstrap over two groups spans both
    assert m["n"]["ci"]["accuracy"] == [0.0, 1.0]
    assert result["run"]["items_digest"] and result["intervals"]["unit"] == "group"


def test_simple_matching_mode(small):
    result = evaluate(small, MatrixScorer(MATRICES), align="none", pos="n")
    assert result["metrics"]["alignment"]["n"]["accuracy"] == pytest.approx(1 / 3)
    first = result["instances"][0]
    assert first["assignment"] == [0, 0, 2]  # context chosen by each definition
    assert first["predicted_pairs"] == [[0, 0], [0, 1], [2, 2]]
    assert "v" not in result["metrics"]["alignment"]


def test_skipped_groups_are_counted_and_named(tmp_path):
    obj = small_coda()
    obj["n"].append({"candidates": [{"synset_name": "a.n.01"}]})
    data = load_coda(write_small(tmp_path / "c.json", obj))
    result = evaluate(data, MatrixScorer(MATRICES), align="exhaustive", exhaustive_max_k=2)
    skipped = {s["unit"]: s["reason"] for s in result["skipped"]}
    assert set(skipped) == {"n/0", "n/2", "v/0"}
    assert "exhaustive" in skipped["n/0"] and "lacks" in skipped["n/2"]
    assert result["counts"]["skipped_groups"] == 3  # n/0 and n/2, v/0 (named above)
    m = result["metrics"]["alignment"]
    assert m["n"]["n"] == 1
    assert m["v"]["n"] == 0 and m["v"]["accuracy"] is None


def test_limit_and_bad_config(small):
    result = evaluate(small, MatrixScorer(MATRICES), limit=1)
    assert [i["id"] for i in result["instances"]] == ["n/0", "v/0"]
    with pytest.raises(LexprobeError, match="--align"):
        evaluate(small, MatrixScorer(MATRICES), align="greedy")
    # the option declarations are the one check, for a config built in Python too (nested groups included)
    for bad, message in ((dict(groups_per_chunk=0), "--groups-per-chunk must be at least 1"),
                         (dict(limit=True), "--limit expected an integer"),
                         (dict(pattern="x"), "unknown --pattern 'x'; use definition-of, defined-as, is"),
                         (dict(method="ask", ask=AskOptions(questions=(4,))), "unknown --questions 4"),
                         (dict(nonce=" "), "--nonce must be a non-empty word")):
        with pytest.raises(LexprobeError, match=message):
            evaluate(small, MatrixScorer(MATRICES), **bad)


def test_resume_after_interruption(small, tmp_path):
    out = tmp_path / "res.json"
    with pytest.raises(KeyboardInterrupt):
        evaluate(small, MatrixScorer(MATRICES, fail_after=1), out, groups_per_chunk=1)
    assert partial_path(out).exists()
    scorer = MatrixScorer(MATRICES)
    result = evaluate(small, scorer, out, groups_per_chunk=1)
    assert scorer.calls == ["coda21:n/1", "coda21:v/0"]  # n/0 came from the log
    assert result["metrics"]["alignment"]["all"]["accuracy"] == pytest.approx(1 / 3)


def test_random_scorer_is_seeded(small):
    from lexprobe.scorers.random import RandomScorer

    a = evaluate(small, RandomScorer(seed=1))["instances"]
    b = evaluate(small, RandomScorer(seed=1))["instances"]
    assert [x["scores"] for x in a] == [x["scores"] for x in b]


class FakeEmbedder:
    kind = "embedding"

    def __init__(self):
        self.encoded = []

    def describe(self):
        return {"name": "fake", "kind": self.kind}

    def encode(self, texts):
        self.encoded.append(list(texts))
        rng = [np.random.default_rng(sum(map(ord, t))) for t in texts]
        v = np.stack([r.normal(size=8) for r in rng])
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def embeddings(self, requests, progress=False):  # ``asking.requests.Embed``
        return list(self.encode([r.text for r in requests]))


def test_embedding_matrices_are_cosines(small):
    scorer = FakeEmbedder()
    (m0, m1, m2) = match_matrices(small.groups, scorer)
    g = small.groups[0]
    one = FakeEmbedder()
    ctx = one.encode([context_without_target(c.context, c.word) for c in g.candidates])
    dfn = one.encode([c.definition for c in g.candidates])
    np.testing.assert_allclose(m0, ctx @ dfn.T, atol=1e-9)
    assert len(scorer.encoded) == 1  # one encode call, each distinct text once
    assert len(scorer.encoded[0]) == len(set(scorer.encoded[0])) == 2 * sum(g.k for g in small.groups)


def test_causal_match_scores_equal_plain_reference(small, tiny_gpt2):
    from lexprobe.models import load_scorer

    scorer = load_scorer(str(tiny_gpt2), batch_size=2)
    scorer.stats.clear()
    matrices = match_matrices(small.groups, scorer)
    assert scorer.stats["context_forwards"] == sum(g.k for g in small.groups)  # one per context, not k
    for g, m in zip(small.groups, matrices):
        for i, c in enumerate(g.candidates):
            p = prompt(c.context, c.word, g.pos)
            for j, d in enumerate(g.candidates):
                ref = causal_continuation_logprobs(scorer, p, " " + d.definition)[:48].sum()
                assert m[i, j] == pytest.approx(ref, abs=1e-4)
    mean = match_matrices(small.groups[:1], scorer, CodaConfig(normalize="mean"))[0]
    g = small.groups[0]
    ref = causal_continuation_logprobs(scorer, prompt(g.candidates[1].context, g.candidates[1].word, "n"),
                                       " " + g.candidates[2].definition)
    assert mean[1, 2] == pytest.approx(ref[:48].mean(), abs=1e-4)


def test_causal_truncates_definitions_to_48_tokens(small, tiny_gpt2):
    from dataclasses import replace

    from lexprobe.models import load_scorer

    scorer = load_scorer(str(tiny_gpt2))
    g = small.groups[1]
    long_def = " ".join(["the dog"] * 40)
    g = replace(g, candidates=[replace(c, definition=long_def) for c in g.candidates])
    m = match_matrices([g], scorer)[0]
    ref = causal_continuation_logprobs(scorer, prompt(g.candidates[0].context, g.candidates[0].word, "n"),
                                       " " + long_def)
    assert len(ref) > 48
    assert m[0, 0] == pytest.approx(ref[:48].sum(), abs=1e-4)


TINY_VOCAB_GROUP = Group("v/9", "v", "parent", "move.v.03", [
    Candidate("nod.v.01", "to signal with the hand", "the person nod to the dog", "nod"),
    Candidate("bow.v.01", "to move a beckoning hand", "a cat and a bow", "bow"),  # "beckoning": many pieces
])


@pytest.mark.parametrize("variant", ["token", "word-l2r"])
def test_masked_match_scores_equal_plain_reference(tiny_bert, variant):
    from lexprobe.models import load_scorer

    scorer = load_scorer(str(tiny_bert), kind="masked", batch_size=16)
    g = TINY_VOCAB_GROUP
    (m,) = match_matrices([g], scorer, CodaConfig(pll=variant))
    for i, c in enumerate(g.candidates):
        p = prompt(c.context, c.word, g.pos)
        assert p.endswith("Definition of bkatuhla is to")
        for j, d in enumerate(g.candidates):
            ref = pll_reference(scorer, p, " " + d.definition, variant=variant).sum()
            assert m[i, j] == pytest.approx(ref, abs=1e-4)


def test_result_is_json_serialisable(small, tmp_path):
    result = evaluate(small, MatrixScorer(MATRICES), tmp_path / "r.json")
    json.dumps(result)
