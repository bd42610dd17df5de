"""The WDLMPro engine against a literal per-pair implementation of the paper's formulas."""

import numpy as np
import pytest

from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup
from lexprobe.benchmarks.wdlmpro.scoring import (
    CAUSAL_PATTERNS, MASKED_PATTERNS, CausalRequests, MaskedRequests, display_word, fill, score_groups,
)
from lexprobe.models import load_scorer
from lexprobe.scorers import reference


def _group(target, pos, items):
    cands = tuple(Candidate(f"{w.replace(' ', '_')}.{pos}.01", w, d) for w, d in items)
    return SynsetGroup(cands[0].synset, pos, cands[0].word, cands)


GROUPS = [
    _group("beckon", "v", [("beckon", "signal with the hands or nod"), ("wink", "signal by winking"),
                           ("nod", "express or signify by nodding"), ("bow", "bend one's knee or body")]),
    _group("wink", "v", [("wink", "signal by winking"), ("beckon", "signal with the hands or nod"),
                         ("nod", "express or signify by nodding")]),
    _group("a cappella singing", "n", [("a cappella singing", "singing without instrumental accompaniment"),
                                        ("crooning", "singing in a soft low tone"),
                                        ("bel canto", "a style of operatic singing")]),
]


def _masked_reference(scorer, pos, word, definition):
    """Paper: W2D sums the word's token log-probs and averages the patterns' probabilities;
    D2W averages the token log-probs and the patterns' averages."""
    sums, means = [], []
    for pattern in MASKED_PATTERNS[pos]:
        left, right = fill(pattern, definition)
        r = scorer.slot_request(left, display_word(word, left, scorer.case_sensitive), right)
        lp = reference.masked_slot_logprobs(scorer, r.prefix, r.word, r.suffix)
        sums.append(lp.sum())
        means.append(lp.mean())
    return np.log(np.mean(np.exp(sums))), np.mean(means)


def _causal_reference(scorer, pos, word, definition):
    left, _ = fill(CAUSAL_PATTERNS[pos], definition)
    lp = reference.causal_continuation_logprobs(scorer, left.rstrip(), " " + word)
    return lp.sum(), lp[0]


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
def test_masked_engine_matches_reference(fixture, request):
    scorer = load_scorer(str(request.getfixturevalue(fixture)), batch_size=4)
    got = score_groups(scorer, GROUPS, ("w2d", "d2w"))
    for i, g in enumerate(GROUPS):
        w2d = [_masked_reference(scorer, g.pos, g.word, c.definition)[0] for c in g.candidates]
        d2w = [_masked_reference(scorer, g.pos, c.word, g.definition)[1] for c in g.candidates]
        np.testing.assert_allclose(got[("w2d", i)], w2d, atol=1e-4)
        np.testing.assert_allclose(got[("d2w", i)], d2w, atol=1e-4)


def test_causal_engine_matches_reference(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2), batch_size=2)
    got = score_groups(scorer, GROUPS, ("w2d", "d2w"))
    for i, g in enumerate(GROUPS):
        w2d = [_causal_reference(scorer, g.pos, g.word, c.definition)[0] for c in g.candidates]
        d2w = [_causal_reference(scorer, g.pos, c.word, g.definition)[1] for c in g.candidates]
        np.testing.assert_allclose(got[("w2d", i)], w2d, atol=1e-4)
        np.testing.assert_allclose(got[("d2w", i)], d2w, atol=1e-4)
    d2w_only = score_groups(scorer, GROUPS, ("d2w",))
    for i in range(len(GROUPS)):
        np.testing.assert_allclose(d2w_only[("d2w", i)], got[("d2w", i)], atol=1e-4)


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
def test_memoised_tokenisation_equals_whole_sentence(fixture, request):
    scorer = load_scorer(str(request.getfixturevalue(fixture)))
    builder = MaskedRequests(scorer)
    for pattern in MASKED_PATTERNS["n"] + MASKED_PATTERNS["v"]:
        for word, definition in (("dog", "a small animal"), ("warm up", "make ready, as by exercise")):
            left, right = fill(pattern, definition)
            whole = scorer.slot_request(left, display_word(word, left, scorer.case_sensitive), right)
            assert builder.request(pattern, word, definition) == whole


def test_causal_memoised_tokenisation(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2))
    builder = CausalRequests(scorer)
    for pos in "nv":
        for word in ("dog", "warm up", "Bel canto"):
            left, _ = fill(CAUSAL_PATTERNS[pos], "a small animal")
            assert builder.request(pos, word, "a small animal") == scorer.split(left.rstrip(), " " + word)


def test_roberta_capitalises_sentence_initial_words(tiny_roberta):
    scorer = load_scorer(str(tiny_roberta))
    req = MaskedRequests(scorer).request("_ is <DEF>", "dog", "a small animal")
    assert scorer.tokenizer.decode(list(req.word)) == "Dog"
    req = MaskedRequests(scorer).request("definition of _ is to <DEF>", "dog", "a small animal")
    assert scorer.tokenizer.decode(list(req.word)).strip() == "dog"


def test_embedding_scores_are_cosines(tmp_path):
    from lexprobe.scorers.embedding import StaticVectorsScorer

    vec = tmp_path / "v.vec"
    vec.write_text("wink 1 0\nbeckon 0 1\nnod 1 1\nsignal 0 1\nwinking 1 0\nby 0 0\n")
    scorer = StaticVectorsScorer.load(vec)
    g = GROUPS[1]
    got = score_groups(scorer, [g], ("w2d",))[("w2d", 0)]
    # "wink"=(1,0) vs "signal by winking"=(1/2,1/2) normalised, "signal with the hands or nod"=(1,2)
    np.testing.assert_allclose(got[:2], [2 ** -0.5, 1 / 5 ** 0.5], atol=1e-6)


def test_fill_handles_underscores_in_definitions():
    # three WordNet 3.0 definitions contain "_"; the blank is the pattern's own
    assert fill("_ is <DEF>", "a snake_case name") == ("", " is a snake_case name")
    assert fill("to <DEF> is the definition of _", "x_y") == ("to x_y is the definition of ", "")
