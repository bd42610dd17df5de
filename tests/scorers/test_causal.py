import numpy as np
import pytest

from lexprobe.models import load_scorer
from lexprobe.scorers import reference


@pytest.fixture(scope="module")
def gpt2(tiny_gpt2):
    return load_scorer(str(tiny_gpt2), batch_size=3)


REQUESTS = [
    ("The dog is", " a signal"),
    ("The dog is", " singing"),
    ("The dog is", " x"),
    ("signal with the hands or nod is the definition of", " beckon"),
    ("signal with the hands or nod is the definition of", " wink nod"),
    ("A cat means ", "water"),  # trailing space moves to the continuation
    ("", " hello there"),  # empty context: the BOS/EOS token stands in
    ("to move is the definition of", " bow"),
]


def test_engine_equals_plain_reference(gpt2):
    got = gpt2.continuation_logprobs(REQUESTS)
    for (ctx, cont), lp in zip(REQUESTS, got):
        ref = reference.causal_continuation_logprobs(gpt2, ctx, cont)
        assert lp.shape == ref.shape
        np.testing.assert_allclose(lp, ref, atol=1e-4)
        assert np.all(lp <= 0)


def test_each_context_is_encoded_once(gpt2):
    gpt2.stats.clear()
    gpt2.continuation_logprobs(REQUESTS)
    distinct_contexts = len({gpt2.split(c, x)[0] for c, x in REQUESTS})
    assert gpt2.stats["context_forwards"] == distinct_contexts


def test_batch_size_does_not_change_scores(tiny_gpt2):
    one = load_scorer(str(tiny_gpt2), batch_size=1).continuation_logprobs(REQUESTS)
    many = load_scorer(str(tiny_gpt2), batch_size=16).continuation_logprobs(REQUESTS)
    for a, b in zip(one, many):
        np.testing.assert_allclose(a, b, atol=1e-4)


def test_split_encodes_together(gpt2):
    ctx, cont = gpt2.split("The dog is", " a signal")
    whole = gpt2.tokenizer("The dog is a signal")["input_ids"]
    assert list(ctx) + list(cont) == whole


def test_long_contexts_keep_their_end(gpt2):
    long_context = "the dog is a small animal " * 80  # far beyond the tiny model's 256 positions
    ctx, cont = gpt2.split(long_context.strip(), " nod")
    assert len(ctx) + len(cont) == gpt2.max_length
    full_ctx = gpt2.tokenizer(long_context.strip())["input_ids"]
    assert list(ctx) == full_ctx[-len(ctx):]
    lp = gpt2.continuation_logprobs([(long_context.strip(), " nod")])[0]
    assert np.all(np.isfinite(lp))


def test_long_and_short_rows_batched_together(gpt2):
    # a context filling the position table next to one with a long continuation
    long_context = ("the dog is a small animal " * 80).strip()
    reqs = [(long_context, " nod wink"), (long_context, " wink"), ("A", " singing singing singing singing")]
    got = gpt2.continuation_logprobs(reqs)
    for (c, x), lp in zip(reqs, got):
        np.testing.assert_allclose(lp, reference.causal_continuation_logprobs(gpt2, c, x), atol=1e-4)


def test_out_of_memory_halves_the_batch(tiny_gpt2, monkeypatch):
    scorer = load_scorer(str(tiny_gpt2), batch_size=8)
    scorer.row_tokens = 1  # rows as long as the longest unit: eight equal contexts, one row each
    requests = [(f"{w} " + "the dog is a small animal " * 6, " nod") for w in
                ("a", "the", "one", "dog", "cat", "hand", "song", "water")]
    expected = scorer.continuation_logprobs(requests)
    real = scorer._score_packed_rows
    sizes = []

    def flaky(rows):
        sizes.append(len(rows))
        if len(rows) > 2:
            raise RuntimeError("CUDA out of memory. Tried to allocate 1 GiB")
        return real(rows)

    monkeypatch.setattr(scorer, "_score_packed_rows", flaky)
    got = scorer.continuation_logprobs(requests)
    assert sizes[:3] == [8, 4, 2] and max(sizes[3:]) <= 2
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, atol=1e-6)


def test_a_context_longer_than_a_unit_is_fed_once_for_its_continuations(gpt2):
    from lexprobe.scorers.causal import pack_units

    context = ("the dog is a small animal " * 6).strip()
    requests = [(context, c) for c in (" nod", " wink nod", " a small dog", " singing", " hand signal")]
    split = [gpt2.split(c, x) for c, x in requests]
    n_ctx, fed = len(split[0][0]), sum(len(x) - 1 for _, x in split)
    # a unit of context + every continuation is one token longer than pack_tokens, but within
    # twice its context (context_factor = 2)
    gpt2.pack_tokens = n_ctx + fed - 1
    assert fed <= (gpt2.context_factor - 1) * n_ctx
    try:
        gpt2.stats.clear()
        got = gpt2.continuation_logprobs(requests)
        assert gpt2.stats["context_forwards"] == 1
        for (ctx, cont), lp in zip(requests, got):
            np.testing.assert_allclose(lp, reference.causal_continuation_logprobs(gpt2, ctx, cont), atol=1e-5)
    finally:
        gpt2.pack_tokens = 512
    # past twice its context a context is split; with factor 1, at pack_tokens
    ctx = tuple(range(20))
    split = [(ctx, (1, 2, 3, 4, 5)) for _ in range(10)]  # 4 fed tokens each
    units = pack_units([ctx], {ctx: list(range(10))}, split, 16, 2)
    assert [len(u.members) for u in units] == [5, 5] and all(len(u) <= 40 for u in units)
    assert [len(u.members) for u in pack_units([ctx], {ctx: list(range(10))}, split, 16)] == [1] * 10
