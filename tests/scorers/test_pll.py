import numpy as np
import pytest

from lexprobe.models import load_scorer
from lexprobe.scorers.pll import encode_pair, masked_copies, pll_reference, pll_scores, pll_token_logprobs

REQUESTS = [
    ("the dog is a bkatuhla . definition of bkatuhla is", " a small animal"),
    ("the dog is a bkatuhla . definition of bkatuhla is", " to signal with hands"),
    ("singing", " a song by one beckoning person"),  # "beckoning": several word pieces
]


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
@pytest.mark.parametrize("variant", ["token", "word-l2r"])
def test_pll_equals_per_pair_reference(fixture, variant, request):
    scorer = load_scorer(str(request.getfixturevalue(fixture)), kind="masked", batch_size=3)
    got = pll_token_logprobs(scorer, REQUESTS, variant=variant)
    for (prefix, cont), lp in zip(REQUESTS, got):
        ref = pll_reference(scorer, prefix, cont, variant=variant)
        np.testing.assert_allclose(lp, ref, atol=1e-4)
    sums = pll_scores(scorer, REQUESTS, variant=variant)
    np.testing.assert_allclose(sums, [r.sum() for r in got], atol=1e-9)
    means = pll_scores(scorer, REQUESTS, variant=variant, normalize="mean")
    np.testing.assert_allclose(means, [r.mean() for r in got], atol=1e-9)


def test_variants_differ_only_on_split_words(tiny_bert):
    scorer = load_scorer(str(tiny_bert), kind="masked")
    # "beckoning" is split into several word pieces by the tiny vocabulary
    ids, cont, words = encode_pair(scorer.tokenizer, "x", " beckoning dog")
    token = masked_copies(0, ids, cont, words, "token")
    l2r = masked_copies(0, ids, cont, words, "word-l2r")
    assert all(len(c.masked) == 1 for c in token)
    first_word = [c for c in l2r if words[c.target] == words[cont[0]]]
    assert len(first_word) > 1
    # the first piece of "beckoning" is scored with all its later pieces masked
    assert len(first_word[0].masked) == len(first_word)
    assert len(first_word[-1].masked) == 1
    # "dog" is one piece: identical copies in both variants
    assert token[-1] == l2r[-1]


def test_truncation_to_max_tokens(tiny_bert):
    scorer = load_scorer(str(tiny_bert), kind="masked")
    long_def = " " + " ".join(["dog"] * 60)
    ids, cont, _ = encode_pair(scorer.tokenizer, "prefix", long_def, max_tokens=48)
    assert len(cont) == 48
    assert ids[-1] == scorer.tokenizer.sep_token_id  # the closing special token is kept
    (lp,) = pll_token_logprobs(scorer, [("prefix", long_def)])
    assert len(lp) == 48


def test_only_real_copies_are_batched(tiny_bert):
    scorer = load_scorer(str(tiny_bert), kind="masked", batch_size=1000)
    scorer.stats.clear()
    got = pll_token_logprobs(scorer, REQUESTS)
    assert scorer.stats["pll_rows"] == sum(len(x) for x in got)
    assert scorer.stats["forward_passes"] == 1
