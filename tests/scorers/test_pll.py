import numpy as np
import pytest

from lexprobe.models import load_scorer
from lexprobe.scorers.pll import encode_pair, masked_copies, pll_reference, pll_token_logprobs

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
    (lp,) = pll_token_logprobs(scorer, [("prefix", long_def)], max_tokens=48)
    assert len(lp) == 48


def _plain_sentence_pll(scorer, sentence):
    """Salazar et al./minicons PLL of a whole sentence: mask each non-special token in turn."""
    import torch

    ids = scorer.tokenizer(sentence)["input_ids"]
    special = set(scorer.tokenizer.all_special_ids)
    out = []
    for pos, tok in enumerate(ids):
        if tok in special:
            continue
        masked = list(ids)
        masked[pos] = scorer.tokenizer.mask_token_id
        with torch.no_grad():
            logits = scorer.model(input_ids=torch.tensor([masked])).logits[0, pos]
        out.append(float(torch.log_softmax(logits.float(), dim=-1)[tok]))
    return np.array(out)


def test_whole_sentence_is_scored_without_a_cut(tiny_bert):
    # the 48-token cut is CoDA21's choice for definitions, not the API's: a 60-word
    # sentence gets 60 terms, equal to the plain per-token loop
    scorer = load_scorer(str(tiny_bert), kind="masked", batch_size=16)
    sentence = " ".join(["the dog is a small animal"] * 10)
    ref = _plain_sentence_pll(scorer, sentence)
    assert len(ref) == 60
    (lp,) = pll_token_logprobs(scorer, [("", sentence)])
    assert len(lp) == 60
    np.testing.assert_allclose(lp, ref, atol=1e-4)
    np.testing.assert_allclose(lp.sum(), ref.sum(), atol=1e-3)
    assert len(pll_reference(scorer, "", sentence)) == 60


def test_only_real_copies_are_batched(tiny_bert):
    scorer = load_scorer(str(tiny_bert), kind="masked", batch_size=1000)
    scorer.stats.clear()
    got = pll_token_logprobs(scorer, REQUESTS)
    assert scorer.stats["pll_rows"] == sum(len(x) for x in got)
    assert scorer.stats["forward_passes"] == 1
