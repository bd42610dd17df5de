import numpy as np
import pytest

from lexprobe.models import load_scorer
from lexprobe.scorers import reference

SENTENCES = [
    ("", "dog", " is a small animal"),
    ("", "wink nod", " is a small animal"),
    ("definition of ", "bow", " is to move"),
    ("definition of ", "beckon", " is to move"),
    ("to signal with the hands is the definition of ", "nod", ""),
    ("to signal with the hands is the definition of ", "cat", ""),
]


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
def test_slot_scores_equal_reference(fixture, request):
    scorer = load_scorer(str(request.getfixturevalue(fixture)), batch_size=2)
    reqs = [scorer.slot_request(*s) for s in SENTENCES]
    got = scorer.slot_logprobs(reqs)
    for r, lp in zip(reqs, got):
        ref = reference.masked_slot_logprobs(scorer, r.prefix, r.word, r.suffix)
        np.testing.assert_allclose(lp, ref, atol=1e-4)
        assert len(lp) == len(r.word)


def test_one_forward_per_distinct_query(tiny_bert):
    scorer = load_scorer(str(tiny_bert), batch_size=64)
    # "dog" and "cat" are one token each: same query; "beckon" is several tokens
    reqs = [scorer.slot_request("", w, " is a small animal") for w in ("dog", "cat", "bow", "beckon")]
    assert reqs[0].query == reqs[1].query
    scorer.stats.clear()
    scorer.slot_logprobs(reqs)
    assert scorer.stats["queries"] == len({r.query for r in reqs})
    assert scorer.stats["forward_passes"] == 1


def test_slot_request_cuts_the_word_out(tiny_roberta):
    scorer = load_scorer(str(tiny_roberta))
    r = scorer.slot_request("definition of ", "bow", " is to move")
    whole = scorer.tokenizer("definition of bow is to move")["input_ids"]
    assert list(r.prefix) + list(r.word) + list(r.suffix) == whole
    assert scorer.tokenizer.decode(list(r.word)).strip() == "bow"


def test_fit_query_cuts_far_from_the_slot():
    from lexprobe.scorers.masked import fit_query

    # suffix longer: its end is cut, its last ([SEP]) token kept
    assert fit_query((101, 5), 2, (7, 8, 9, 10, 102), 6) == ((101, 5), (7, 102))
    # prefix longer: its start is cut, its first ([CLS]) token kept
    assert fit_query((101, 1, 2, 3, 4, 5), 1, (102,), 5) == ((101, 4, 5), (102,))
    assert fit_query((101,), 1, (102,), 512) == ((101,), (102,))


def test_fit_query_cuts_both_sides_when_one_is_not_enough_and_refuses_a_word_that_cannot_fit():
    """#19 item 4: one side alone used to be cut, leaving a query longer than the model ("expanded size")."""
    from lexprobe.scorers.base import TooLong
    from lexprobe.scorers.masked import fit_query

    # 8 + 6 + 9 = 23, 7 too many: the (longer) suffix loses 7 of its 8 cuttable tokens
    assert fit_query((101, 1, 2, 3, 4, 5, 6, 7), 6, (8, 9, 10, 11, 12, 13, 14, 15, 102), 16) == (
        (101, 1, 2, 3, 4, 5, 6, 7), (8, 102))
    # 8 + 10 + 9 = 27, 11 too many: the suffix loses all 8, the prefix the 3 after [CLS]
    assert fit_query((101, 1, 2, 3, 4, 5, 6, 7), 10, (8, 9, 10, 11, 12, 13, 14, 15, 102), 16) == (
        (101, 4, 5, 6, 7), (102,))
    assert fit_query((101, 1), 14, (9, 102), 16) == ((101,), (102,))  # exactly [CLS] + 14 masks + [SEP]
    with pytest.raises(TooLong, match="a word of 15 tokens does not fit the model's 16 input positions"):
        fit_query((101, 1), 15, (9, 102), 16)


def test_fit_context_keeps_the_end_and_refuses_a_continuation_that_cannot_fit():
    from lexprobe.scorers.base import TooLong
    from lexprobe.scorers.causal import fit_context

    assert fit_context((1, 2, 3), (4, 5), 8) == ((1, 2, 3), False)
    assert fit_context((1, 2, 3), (4, 5), None) == ((1, 2, 3), False)
    assert fit_context((1, 2, 3, 4, 5, 6), (7, 8), 5) == ((4, 5, 6), True)
    assert fit_context((1, 2), (3, 4, 5, 6), 5) == ((2,), True)
    with pytest.raises(TooLong, match="a continuation of 5 tokens does not fit the model's 5 input positions"):
        fit_context((1,), (2, 3, 4, 5, 6), 5)


def test_overlong_definitions_are_scored(tiny_bert):
    scorer = load_scorer(str(tiny_bert))
    long_def = " ".join(["singing without instrumental accompaniment"] * 40)
    for left, right in (("", " is " + long_def), ("to " + long_def + " is the definition of ", "")):
        r = scorer.slot_request(left, "nod", right)
        assert len(r.prefix) + len(r.word) + len(r.suffix) <= scorer.max_length
        lp = scorer.slot_logprobs([r])[0]
        np.testing.assert_allclose(lp, reference.masked_slot_logprobs(scorer, r.prefix, r.word, r.suffix), atol=1e-4)


def test_out_of_memory_halves_the_batch(tiny_bert, monkeypatch):
    scorer = load_scorer(str(tiny_bert), batch_size=8)
    reqs = [scorer.slot_request(*s) for s in SENTENCES]
    expected = scorer.slot_logprobs(reqs)
    real = scorer._forward_queries
    sizes = []

    def flaky(batch):
        sizes.append(len(batch))
        if len(batch) > 2:
            raise RuntimeError("CUDA out of memory. Tried to allocate 1 GiB")
        return real(batch)

    monkeypatch.setattr(scorer, "_forward_queries", flaky)
    got = scorer.slot_logprobs(reqs)
    assert max(sizes) > 2 and sizes[-1] <= 2
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, atol=1e-6)
