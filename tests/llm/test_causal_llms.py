"""Likelihood scoring on today's decoder shapes: BOS prepended (Llama), no BOS, no pad token,
left-padding tokenizer and an embedding table larger than the tokenizer (Qwen2)."""

import json

import numpy as np
import pytest

from lexprobe.benchmarks.coda21.dataset import load_coda
from lexprobe.benchmarks.coda21.config import CodaConfig
from lexprobe.core.evaluate import evaluate
from lexprobe.models import detect_kind, load_scorer
from lexprobe.scorers import reference
from tests.benchmarks.coda21.helpers import write_small
from tests.benchmarks.wdlmpro.test_scoring import GROUPS, _causal_reference, score_groups

LLMS = ["tiny_llama", "tiny_qwen2"]

REQUESTS = [
    ("The dog is", " a signal"),
    ("The dog is", " singing"),
    ("signal with the hands or nod is the definition of", " beckon"),
    ("A cat means ", "water"),
    ("", " hello there"),  # empty context: BOS (Llama) or EOS (Qwen2, no BOS) stands in
]


@pytest.fixture(scope="module", params=LLMS)
def llm(request):
    return load_scorer(str(request.getfixturevalue(request.param)), batch_size=2)


def test_tiny_llms_have_the_shapes_under_test(tiny_llama, tiny_qwen2):
    llama, qwen = load_scorer(str(tiny_llama)), load_scorer(str(tiny_qwen2))
    assert detect_kind(str(tiny_llama)) == detect_kind(str(tiny_qwen2)) == "causal"
    assert llama.tokenizer.bos_token_id is not None and llama.tokenizer.pad_token_id is None
    assert llama.tokenizer("the dog")["input_ids"][0] == llama.tokenizer.bos_token_id
    assert qwen.tokenizer.bos_token_id is None and qwen.tokenizer.pad_token_id is None
    assert qwen.tokenizer.padding_side == "left"
    assert qwen.model.config.vocab_size > 10 * len(qwen.tokenizer)
    assert json.loads((tiny_qwen2 / "config.json").read_text())["architectures"] == ["Qwen2ForCausalLM"]


def test_engine_equals_plain_reference(llm):
    got = llm.continuation_logprobs(REQUESTS)
    for (ctx, cont), lp in zip(REQUESTS, got):
        ref = reference.causal_continuation_logprobs(llm, ctx, cont)
        np.testing.assert_allclose(lp, ref, atol=1e-5)
        assert np.all(lp <= 0)


def test_split_keeps_bos_once(tiny_llama):
    scorer = load_scorer(str(tiny_llama))
    ctx, cont = scorer.split("The dog is", " a signal")
    assert list(ctx) + list(cont) == scorer.tokenizer("The dog is a signal")["input_ids"]
    assert list(ctx).count(scorer.tokenizer.bos_token_id) == 1


def test_context_pass_keeps_only_the_last_logits(llm):
    """With a 150k-word vocabulary, logits for every context position would not fit in memory:
    the LM head sees only the positions that are scored, and a whole-model pass (the
    key/value-cache path) returns the last position's logits only."""
    request = ("signal with the hands or nod is the definition of", " beckon")
    _, cont = llm.split(*request)
    head_rows, full_logits = [], []
    head = llm.model.get_output_embeddings()
    hooks = [
        head.register_forward_hook(lambda m, a, out: head_rows.append(out.shape[:-1].numel())),
        llm.model.register_forward_hook(lambda m, a, kw, out: full_logits.append(tuple(out.logits.shape)),
                                        with_kwargs=True),
    ]
    try:
        llm.continuation_logprobs([request])
    finally:
        for h in hooks:
            h.remove()
    assert sum(head_rows) == len(cont), f"the LM head ran on {sum(head_rows)} positions for {len(cont)} scored"
    assert all(shape[1] == 1 for shape in full_logits), f"a forward returned logits of shapes {full_logits}"


def test_wdlmpro_likelihood_scoring(llm):
    groups = GROUPS[:1]  # the reference costs one forward pass per pair
    got = score_groups(llm, groups, ("w2d", "d2w"))
    for i, g in enumerate(groups):
        w2d = [_causal_reference(llm, g.pos, g.word, c.definition)[0] for c in g.candidates]
        d2w = [_causal_reference(llm, g.pos, c.word, g.definition)[1] for c in g.candidates]
        np.testing.assert_allclose(got[("w2d", i)], w2d, atol=1e-5)
        np.testing.assert_allclose(got[("d2w", i)], d2w, atol=1e-5)


def test_coda21_likelihood_scoring(llm, tmp_path):
    data = load_coda(write_small(tmp_path / "coda.json"))
    config = CodaConfig(data=data.source, pos="v")  # the short verb group: the reference is slow
    result = evaluate("coda21", llm, config, items=data, progress=False)
    from lexprobe.benchmarks.coda21.likelihood import prompt

    cut = config.max_definition_tokens  # the definition's first 48 tokens
    for inst, g in zip(result["instances"], data.by_pos("v")):
        ref = [[reference.causal_continuation_logprobs(llm, prompt(c.context, c.word, g.pos), " " + d.definition)
                [:cut].sum() for d in g.candidates] for c in g.candidates]
        np.testing.assert_allclose(inst["scores"], ref, atol=1e-4)
