"""Single-device scale: packed causal scoring, batch invariance, auto batch size, dtype/attn/device map."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import torch

from lexprobe.errors import ModelError
from lexprobe.models import load_scorer, resolve_dtype
from lexprobe.scorers import reference
from lexprobe.scorers.causal import pack_rows, pack_units, packed_attention_mask
from lexprobe.scorers.pll import pll_token_logprobs
from tests.optional import needs_package

# many continuations per context (as in WDLMPro), of 1 to 4 tokens, and a context-free request
CAUSAL = [
    ("signal with the hands or nod is the definition of", w)
    for w in (" beckon", " wink nod", " singing", " x", " a small dog", " bow", " hand signal song")
] + [
    ("The dog is", " a signal"), ("The dog is", " singing"),
    ("to move is the definition of", " bow"), ("A cat means ", "water"), ("", " hello there"),
]


def _build_tiny_llama(out):
    """A tiny Llama whose tokenizer adds BOS and has no pad token (rotary positions, grouped KV heads)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from tests.tiny_models import _byte_level_vocab

    vocab, merges = _byte_level_vocab(["<s>", "</s>", "<unk>"])
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", vocab["<s>"])])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    torch.manual_seed(3)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                         bos_token_id=vocab["<s>"], eos_token_id=vocab["</s>"], pad_token_id=None)
    LlamaForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    return _build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


def _assert_reference(scorer, requests, got, atol=1e-5):
    for (ctx, cont), lp in zip(requests, got):
        np.testing.assert_allclose(lp, reference.causal_continuation_logprobs(scorer, ctx, cont), atol=atol, rtol=0)


@pytest.mark.parametrize("model", ["tiny_gpt2", "tiny_llama"])
def test_packed_rows_equal_plain_reference(model, request):
    scorer = load_scorer(str(request.getfixturevalue(model)), kind="causal", batch_size=4)
    assert scorer.strategy == "packed"
    if model == "tiny_llama":  # BOS added, no pad token
        assert scorer.tokenizer.pad_token_id is None
        bos = scorer.tokenizer.bos_token_id
        assert scorer.split("The dog is", " a signal")[0][0] == bos
        ctx, cont = scorer.split("", " hello there")
        assert ctx == (bos,) and bos not in cont
    scorer.stats.clear()
    got = scorer.continuation_logprobs(CAUSAL)
    _assert_reference(scorer, CAUSAL, got)
    assert scorer.stats["context_forwards"] == len({scorer.split(c, x)[0] for c, x in CAUSAL})
    # every context's tokens and each continuation's non-final tokens are fed once, nothing more
    expected = sum(len(c) for c in {scorer.split(c, x)[0] for c, x in CAUSAL}) + sum(
        len(scorer.split(c, x)[1]) - 1 for c, x in CAUSAL)
    assert scorer.stats["packed_tokens"] == expected


def test_rows_split_when_a_context_has_too_many_continuations(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2), kind="causal", batch_size=2)
    scorer.pack_tokens = 14  # the long context holds only a few continuations per row
    split = [scorer.split(c, x) for c, x in CAUSAL]
    by_context = {}
    for i, (ctx, _) in enumerate(split):
        by_context.setdefault(ctx, []).append(i)
    units = pack_units(list(by_context), by_context, split, scorer.pack_tokens)
    assert len(units) > len(by_context)
    assert sorted(r for unit in units for r, _ in unit.members) == list(range(len(split)))
    capacity = max(map(len, units))
    rows = pack_rows(units, capacity)
    assert all(sum(map(len, row)) <= capacity for row in rows) and len(rows) < len(units)
    assert sorted(id(u) for row in rows for u in row) == sorted(map(id, units))
    _assert_reference(scorer, CAUSAL, scorer.continuation_logprobs(CAUSAL))


def test_previous_cache_strategy_still_equals_reference(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2), kind="causal", batch_size=3)
    scorer.strategy = "cache"  # used for flash attention, which takes no 4-D mask
    _assert_reference(scorer, CAUSAL, scorer.continuation_logprobs(CAUSAL))


def test_packed_mask_by_hand():
    # unit 0: context of 2, continuation 1 with 2 fed tokens, continuation 2 with 1;
    # unit 1: context of 1, one continuation token; then one padding column
    unit = torch.tensor([[0, 0, 0, 0, 0, 1, 1, -1]])
    segment = torch.tensor([[0, 0, 1, 1, 2, 0, 1, 0]])
    allowed = packed_attention_mask(unit, segment, torch.float32)[0, 0] == 0
    expected = torch.tensor([
        [1, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 0, 0],
        [1, 1, 0, 0, 1, 0, 0, 0],
        [0, 0, 0, 0, 0, 1, 0, 0],
        [0, 0, 0, 0, 0, 1, 1, 0],
        [0, 0, 0, 0, 0, 0, 0, 1],
    ], dtype=torch.bool)
    assert torch.equal(allowed, expected)


def test_logits_are_materialised_in_bounded_chunks(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2), kind="causal", batch_size=8)
    expected = scorer.continuation_logprobs(CAUSAL)
    scorer.logit_elements = scorer.vocab_size * 3  # three scored positions' logits at a time
    calls = []
    head = scorer._head
    scorer._head = lambda h: calls.append(h.shape[0]) or head(h)
    got = scorer.continuation_logprobs(CAUSAL)
    assert calls and max(calls) <= 3
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, atol=1e-6, rtol=0)


def test_equals_lm_eval_loglikelihood(tiny_gpt2):
    needs_package("lm_eval")  # benchmark-only dependency (requirements-bench.txt)
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    scorer = load_scorer(str(tiny_gpt2), kind="causal")
    requests = [r for r in CAUSAL if r[0]]
    lm = HFLM(pretrained=scorer.model, tokenizer=scorer.tokenizer, batch_size=4, device="cpu")
    theirs = lm.loglikelihood([Instance("loglikelihood", {}, r, i) for i, r in enumerate(requests)],
                              disable_tqdm=True)
    ours = scorer.continuation_logprobs(requests)
    np.testing.assert_allclose([lp.sum() for lp in ours], [t for t, _ in theirs], atol=1e-5, rtol=0)


# ---------------------------------------------------------------- batch invariance (fp32, 1e-5)


@pytest.mark.parametrize("model", ["tiny_gpt2", "tiny_llama"])
def test_causal_scores_do_not_depend_on_batch_size(model, request):
    path = str(request.getfixturevalue(model))
    runs = [load_scorer(path, kind="causal", batch_size=b).continuation_logprobs(CAUSAL) for b in (1, 3, 64)]
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)


def test_masked_scores_do_not_depend_on_batch_size(tiny_bert):
    results = []
    for b in (1, 64):
        scorer = load_scorer(str(tiny_bert), kind="masked", batch_size=b)
        reqs = [scorer.slot_request(left, w, right) for left, w, right in [
            ("the ", "dog", " is a small animal ."), ("a ", "beckoning", " signal with the hands"),
            ("to ", "nod", " is to move the head ."), ("", "x", ""),
        ]]
        results.append(scorer.slot_logprobs(reqs))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)


PLL = [
    ("the dog is a bkatuhla . definition of bkatuhla is", " a small animal"),
    ("singing", " a song by one beckoning person with hands"),
    ("a", " nod"),
]


def test_pll_scores_do_not_depend_on_batch_size(tiny_roberta):
    runs = [pll_token_logprobs(load_scorer(str(tiny_roberta), kind="masked", batch_size=b), PLL) for b in (1, 7, 1000)]
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)


# ---------------------------------------------------------------- --batch-size auto


def test_auto_batch_size_fits_a_simulated_memory_limit(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2), kind="causal", batch_size="auto")
    expected = load_scorer(str(tiny_gpt2), kind="causal", batch_size=1).continuation_logprobs(CAUSAL)
    scorer.probe_memory = True  # search as on a GPU
    limit = 200  # padded tokens one forward pass may take
    real = scorer._hidden
    seen = []

    def limited(ids, mask, positions):
        seen.append(ids.numel())
        if ids.numel() > limit:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")
        return real(ids, mask, positions)

    scorer._hidden = limited
    got = scorer.continuation_logprobs(CAUSAL)
    budget = scorer.stats["auto_token_budget"]
    assert limit // 4 < budget <= limit  # a power-of-two step under the limit, rounded down to whole rows
    probes = len(seen) - scorer.stats["forward_passes"]  # probe passes are not counted as work
    assert probes >= 2 and seen[0] > limit
    assert all(n <= limit for n in seen[probes:])  # no real batch ran out of memory
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)


def test_auto_batch_size_on_cpu_uses_the_fixed_budget(tiny_bert):
    from lexprobe.batching import CPU_TOKEN_BUDGET

    scorer = load_scorer(str(tiny_bert), kind="masked", batch_size="auto")
    got = pll_token_logprobs(scorer, PLL)
    assert scorer.stats["auto_token_budget"] == CPU_TOKEN_BUDGET
    fixed = pll_token_logprobs(load_scorer(str(tiny_bert), kind="masked", batch_size=2), PLL)
    for a, b in zip(got, fixed):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)


# ---------------------------------------------------------------- dtype, attention, device map


def test_dtype_auto(monkeypatch):
    assert resolve_dtype("auto", torch.device("cpu")) == torch.float32
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert resolve_dtype("auto", torch.device("cuda")) == torch.bfloat16
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    assert resolve_dtype("auto", torch.device("cuda")) == torch.float32
    with pytest.raises(ModelError, match="unknown dtype"):
        resolve_dtype("float8", torch.device("cpu"))


def test_attn_implementation_is_passed_and_scores_agree(tiny_gpt2):
    eager = load_scorer(str(tiny_gpt2), kind="causal", attn="eager")
    assert eager.model.config._attn_implementation == "eager"
    sdpa = load_scorer(str(tiny_gpt2), kind="causal", attn="sdpa")
    for a, b in zip(eager.continuation_logprobs(CAUSAL), sdpa.continuation_logprobs(CAUSAL)):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)
    with pytest.raises(ModelError, match="attention"):
        load_scorer(str(tiny_gpt2), kind="causal", attn="paged")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU error path")
def test_flash_attention_without_its_package_is_a_one_line_error(tiny_gpt2):
    with pytest.raises(ModelError, match="flash_attention_2"):
        load_scorer(str(tiny_gpt2), kind="causal", attn="flash_attention_2")


def test_device_map_needs_accelerate(tiny_gpt2, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "accelerate" else real(name, *a))
    with pytest.raises(ModelError, match="pip install accelerate"):
        load_scorer(str(tiny_gpt2), kind="causal", device_map="auto")


def test_device_map_auto_loads_and_scores(tiny_gpt2, monkeypatch):
    pytest.importorskip("accelerate")
    from transformers import AutoModelForCausalLM

    seen = {}
    real = AutoModelForCausalLM.from_pretrained.__func__

    def spy(cls, *args, **kwargs):
        seen.update(kwargs)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", classmethod(spy))
    mapped = load_scorer(str(tiny_gpt2), kind="causal", device_map="auto", device="cpu")
    assert seen["device_map"] == "auto"
    assert mapped.device == mapped.model.get_input_embeddings().weight.device
    monkeypatch.undo()
    plain = load_scorer(str(tiny_gpt2), kind="causal")
    for a, b in zip(mapped.continuation_logprobs(CAUSAL), plain.continuation_logprobs(CAUSAL)):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)
