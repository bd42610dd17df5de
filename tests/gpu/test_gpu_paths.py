"""GPU-only paths of issue #10, each against a CPU float32 run of the same tiny model.

Skipped without the hardware (or package) they need; on a machine with GPUs run
``python3 -m pytest -q -rs tests/gpu``. Every check is a function of the device(s) it
runs on, and ``test_check_runs_on_cpu`` runs each one with the CPU in the GPU's place
(bfloat16 and the last-layer cut are real on a CPU too), so their use of lexprobe's API
is exercised wherever the suite runs. Only the nccl launch has no CPU stand-in (its
plumbing is the gloo test's, tests/test_distributed.py).

Tolerances (log-probabilities of these tiny random models lie in [-6.6, -5.9]):
- ``DEVICE_ATOL`` 1e-4, float32 GPU vs CPU: only the summation order differs (~1e-6
  relative, ~1e-5 absolute on values near -6); TF32 is switched off for these tests
  (it keeps 10 mantissa bits, ~1e-3 relative) and lexprobe never switches it on.
- ``BATCH_ATOL`` 1e-5, float32 on one device with other batch shapes or a device map:
  what tests/scorers/test_scale.py asks of the CPU.
- ``LOW_PRECISION_ATOL`` 0.01 nats per token, bfloat16 (8 mantissa bits) vs CPU float32:
  on a CPU the largest error over these requests is 1.5e-3 (causal, both strategies,
  GPT-2 and Llama) and 1.6e-3 (PLL); GPU kernels round differently (cuBLAS may reduce
  in bfloat16, flash attention tiles), hence ~6x room. These random models barely
  depend on context: letting a continuation also see its sibling continuations (the
  packed mask without its segment rule) moves tokens by only 0.015 (GPT-2) to 0.021
  (Llama) nats, which this tolerance still catches; finer logic errors are the float32
  checks' job.
"""

from __future__ import annotations

import gc
import importlib.util
import json
from contextlib import contextmanager

import numpy as np
import pytest
import torch

from lexprobe.models import input_device, load_scorer, resolve_dtype
from lexprobe.scorers.encoder_tail import last_layer_cut
from lexprobe.scorers.pll import pll_token_logprobs
from tests.scorers.test_scale import CAUSAL, PLL

DEVICE_ATOL = 1e-4
BATCH_ATOL = 1e-5
LOW_PRECISION_ATOL = 0.01
SLOTS = [("the ", "dog", " is a small animal ."), ("a ", "beckoning", " signal with the hands"),
         ("to ", "nod", " is to move the head ."), ("", "x", "")]

HAS_CUDA = torch.cuda.is_available()
N_GPUS = torch.cuda.device_count() if HAS_CUDA else 0
needs_gpu = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU (torch.cuda.is_available() is False)")
needs_bf16 = pytest.mark.skipif(not (HAS_CUDA and torch.cuda.is_bf16_supported()),
                                reason="needs a CUDA GPU with bfloat16 support")
needs_two_gpus = pytest.mark.skipif(N_GPUS < 2, reason=f"needs 2 CUDA GPUs ({N_GPUS} visible)")
needs_flash = pytest.mark.skipif(
    not HAS_CUDA or importlib.util.find_spec("flash_attn") is None
    or torch.cuda.get_device_capability() < (8, 0),
    reason="needs a CUDA GPU of compute capability >= 8.0 (Ampere or newer) and the flash-attn package "
           "(pip install flash-attn --no-build-isolation)",
)


@pytest.fixture(autouse=True)
def no_tf32():
    """Full float32 matmuls for the 1e-4/1e-5 comparisons; the settings are restored after."""
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


@pytest.fixture()
def models(tiny_gpt2, tiny_llama, tiny_bert, tiny_roberta):
    return {"gpt2": str(tiny_gpt2), "llama": str(tiny_llama), "bert": str(tiny_bert), "roberta": str(tiny_roberta)}


# ---------------------------------------------------------------- runs and comparisons


def causal_run(path, device, *, dtype=None, batch_size=32, strategy=None, attn=None, row_tokens=None):
    """(scorer, per-token log-probs of CAUSAL); ``row_tokens`` small makes several packed rows."""
    scorer = load_scorer(path, kind="causal", device=device, dtype=dtype, batch_size=batch_size, attn=attn)
    if strategy is not None:
        scorer.strategy = strategy
    if row_tokens is not None:
        scorer.row_tokens = row_tokens
    return scorer, scorer.continuation_logprobs(CAUSAL)


def masked(path, device, **kwargs):
    return load_scorer(path, kind="masked", device=device, **kwargs)


def slot_run(scorer):
    return scorer.slot_logprobs([scorer.slot_request(*s) for s in SLOTS])


def assert_close(got, expected, atol, what):
    assert len(got) == len(expected) > 0, what
    for i, (a, b) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(a, b, atol=atol, rtol=0, err_msg=f"{what}, request {i}")


def _device(d) -> torch.device:
    """A device-map entry (GPU index or "cpu") as a torch device."""
    return torch.device("cuda", d) if isinstance(d, int) else torch.device(d)


@contextmanager
def memory_cap(device, headroom_bytes):
    """Let the caching allocator on a CUDA ``device`` reserve only ``headroom_bytes`` more than it
    holds now (the models, cuBLAS workspaces); no-op elsewhere."""
    dev = torch.device(device)
    if headroom_bytes is None or dev.type != "cuda":
        yield
        return
    index = dev.index if dev.index is not None else torch.cuda.current_device()
    gc.collect()
    torch.cuda.empty_cache()  # earlier tests' cached blocks would count against the cap
    cap = torch.cuda.memory_reserved(index) + headroom_bytes
    torch.cuda.set_per_process_memory_fraction(min(1.0, cap / torch.cuda.get_device_properties(index).total_memory),
                                               index)
    try:
        yield
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0, index)
        torch.cuda.empty_cache()


# ---------------------------------------------------------------- checks (device-parametrised)


def check_low_precision(models, device, dtype, expected_dtype):
    """Causal (packed and cache strategies) and PLL scores with ``dtype`` on ``device`` vs CPU float32."""
    for name in ("gpt2", "llama"):
        _, reference = causal_run(models[name], "cpu")
        for strategy in ("packed", "cache"):
            scorer, got = causal_run(models[name], device, dtype=dtype, strategy=strategy)
            assert scorer.model.dtype == expected_dtype
            assert_close(got, reference, LOW_PRECISION_ATOL, f"{name} {strategy} {dtype}")
    reference = pll_token_logprobs(masked(models["roberta"], "cpu"), PLL)
    scorer = masked(models["roberta"], device, dtype=dtype)
    assert scorer.model.dtype == expected_dtype
    assert_close(pll_token_logprobs(scorer, PLL), reference, LOW_PRECISION_ATOL, f"PLL {dtype}")


def check_float32_matches_cpu(models, device):
    """float32 on ``device`` = CPU float32: causal (both strategies), PLL, slots, token embeddings."""
    from lexprobe.models import load_scorer
    from tests.scorers.test_token_embeddings import _instances, vectors_of

    for name in ("gpt2", "llama"):
        for strategy in ("packed", "cache"):
            _, reference = causal_run(models[name], "cpu", strategy=strategy)
            scorer, got = causal_run(models[name], device, strategy=strategy)
            assert scorer.model.dtype == torch.float32 and scorer.device.type == torch.device(device).type
            assert_close(got, reference, DEVICE_ATOL, f"{name} {strategy} on {device}")
    on_cpu, on_device = masked(models["roberta"], "cpu"), masked(models["roberta"], device)
    assert_close(pll_token_logprobs(on_device, PLL), pll_token_logprobs(on_cpu, PLL), DEVICE_ATOL, "PLL")
    for name in ("bert", "roberta"):
        assert_close(slot_run(masked(models[name], device)), slot_run(masked(models[name], "cpu")), DEVICE_ATOL,
                     f"{name} slots")
    instances = _instances()
    reference, reference_ok = vectors_of(load_scorer(models["bert"], kind="token", device="cpu"), instances)
    got, got_ok = vectors_of(load_scorer(models["bert"], kind="token", device=device), instances)
    assert np.array_equal(got_ok, reference_ok) and got_ok.all()
    np.testing.assert_allclose(got, reference, atol=DEVICE_ATOL, rtol=0)
    assert not torch.backends.cuda.matmul.allow_tf32  # lexprobe left TF32 off


def check_batch_invariance(models, device):
    """Batch size 1 vs 64 (float32) on ``device``: causal (both strategies) and PLL within 1e-5."""
    for name in ("gpt2", "llama"):
        for strategy in ("packed", "cache"):
            one, expected = causal_run(models[name], device, batch_size=1, strategy=strategy, row_tokens=16)
            many, got = causal_run(models[name], device, batch_size=64, strategy=strategy, row_tokens=16)
            assert one.stats["forward_passes"] > many.stats["forward_passes"]  # the batches really differ
            assert_close(got, expected, BATCH_ATOL, f"{name} {strategy} batch 64 vs 1")
    one, many = masked(models["roberta"], device, batch_size=1), masked(models["roberta"], device, batch_size=64)
    expected, got = pll_token_logprobs(one, PLL), pll_token_logprobs(many, PLL)
    assert one.stats["forward_passes"] > many.stats["forward_passes"]
    assert_close(got, expected, BATCH_ATOL, "PLL batch 64 vs 1")


def check_auto_batch(models, device, headroom_bytes=None):
    """``batch_size="auto"``: the token-budget search runs its probes (with only ``headroom_bytes``
    of GPU memory to spare it must back off) and the scores equal a fixed batch size's."""
    from lexprobe.batching import START_TOKEN_BUDGET

    _, expected = causal_run(models["llama"], device, batch_size=1, row_tokens=16)
    scorer = load_scorer(models["llama"], kind="causal", device=device, batch_size="auto")
    scorer.row_tokens = 16
    probes = []
    real_probe = scorer._probe_packed
    scorer._probe_packed = lambda width, rows: probes.append(width * rows) or real_probe(width, rows)
    if torch.device(device).type == "cpu":
        scorer.probe_memory = True  # search as on a GPU (a CPU never reports running out of memory)
    with memory_cap(device, headroom_bytes):
        got = scorer.continuation_logprobs(CAUSAL)
    budget = scorer.stats["auto_token_budget"]
    assert probes and budget == probes[-1] <= START_TOKEN_BUDGET  # the last probe ran and set the budget
    if headroom_bytes is not None:
        assert len(probes) >= 2 and budget < START_TOKEN_BUDGET, probes  # out of memory at first, then halved
    assert_close(got, expected, BATCH_ATOL, f"auto batch ({budget} tokens) vs batch 1")

    pll_auto = masked(models["roberta"], device, batch_size="auto")
    if torch.device(device).type == "cpu":
        pll_auto.probe_memory = True
    with memory_cap(device, headroom_bytes):
        got = pll_token_logprobs(pll_auto, PLL)
    assert 0 < pll_auto.stats["auto_token_budget"] <= START_TOKEN_BUDGET
    assert_close(got, pll_token_logprobs(masked(models["roberta"], device, batch_size=2), PLL), BATCH_ATOL,
                 "PLL auto batch vs batch 2")


def check_last_layer_cut(models, device):
    """``scored_hidden_states`` on ``device`` = the full pass on ``device`` (1e-5) and on the CPU (1e-4)."""
    from tests.scorers.test_encoder_tail import COLS, ROWS, _fast, _full, _inputs, _model

    for name in ("bert", "roberta"):
        model = _model(models[name]).to(device)
        assert last_layer_cut(model)
        ids, attn = _inputs(model.config.vocab_size)
        rows, cols = torch.tensor(ROWS), torch.tensor(COLS)
        on_device = [t.to(device) for t in (ids, attn, rows, cols)]
        cut, full = _fast(model, *on_device), _full(model, *on_device)
        assert cut.device == full.device and cut.device.type == torch.device(device).type
        torch.testing.assert_close(cut, full, atol=BATCH_ATOL, rtol=0)
        cpu_full = _full(_model(models[name]), ids, attn, rows, cols)
        torch.testing.assert_close(cut.cpu(), cpu_full, atol=DEVICE_ATOL, rtol=0)


def check_attn_against_sdpa(models, device, attn, dtype, strategy):
    """The tiny Llama with ``attn`` in ``dtype``: takes ``strategy`` and matches sdpa (same dtype) and CPU float32."""
    _, reference = causal_run(models["llama"], "cpu")
    _, sdpa = causal_run(models["llama"], device, dtype=dtype, attn="sdpa")
    scorer, got = causal_run(models["llama"], device, dtype=dtype, attn=attn)
    assert scorer.model.config._attn_implementation == attn
    assert scorer.strategy == strategy
    assert scorer.stats["forward_passes"] > 0
    assert_close(got, sdpa, LOW_PRECISION_ATOL, f"{attn} vs sdpa ({dtype})")
    assert_close(got, reference, LOW_PRECISION_ATOL, f"{attn} ({dtype}) vs CPU float32")


def check_split(models, first, second):
    """The tiny Llama and BERT cut between their two layers (the first layer on ``first``, the
    second on ``second``; GPU index or "cpu") score as on ``first`` alone (float32, 1e-5)."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    from lexprobe.scorers.causal import CausalLMScorer
    from lexprobe.scorers.masked import MaskedLMScorer

    single = str(_device(first))
    expected_devices = {_device(first), _device(second)}

    llama_map = {"model.embed_tokens": first, "model.rotary_emb": first, "model.layers.0": first,
                 "model.layers.1": second, "model.norm": second, "lm_head": second}
    model = AutoModelForCausalLM.from_pretrained(models["llama"], device_map=llama_map, dtype=torch.float32,
                                                 use_safetensors=True)
    assert {p.device for p in model.parameters()} == expected_devices
    tokenizer = AutoTokenizer.from_pretrained(models["llama"])
    for strategy in ("packed", "cache"):  # the cache strategy keeps each layer's cache on its own device
        split = CausalLMScorer("split", model, tokenizer, input_device(model, torch.device(single)), batch_size=4)
        split.strategy, split.row_tokens = strategy, 16
        _, expected = causal_run(models["llama"], single, batch_size=4, strategy=strategy, row_tokens=16)
        assert_close(split.continuation_logprobs(CAUSAL), expected, BATCH_ATOL, f"split Llama, {strategy}")

    # the MLM head (tied to the input embeddings) stays with them; the last layer, which
    # encoder_tail cuts to the scored positions, is on the other device
    bert_map = {"bert.embeddings": first, "bert.encoder.layer.0": first, "bert.encoder.layer.1": second,
                "cls": first}
    model = AutoModelForMaskedLM.from_pretrained(models["bert"], device_map=bert_map, dtype=torch.float32,
                                                 use_safetensors=True)
    assert {p.device for p in model.parameters()} == expected_devices
    split = MaskedLMScorer("split", model, AutoTokenizer.from_pretrained(models["bert"]),
                           input_device(model, torch.device(single)), batch_size=4)
    assert last_layer_cut(split.model)
    plain = masked(models["bert"], single, batch_size=4)
    assert_close(pll_token_logprobs(split, PLL), pll_token_logprobs(plain, PLL), BATCH_ATOL, "split BERT, PLL")
    assert_close(slot_run(split), slot_run(plain), BATCH_ATOL, "split BERT, slots")


CPU_STAND_INS = {
    "low_precision": lambda m: check_low_precision(m, "cpu", "bfloat16", torch.bfloat16),
    "float32_matches_cpu": lambda m: check_float32_matches_cpu(m, "cpu"),
    "batch_invariance": lambda m: check_batch_invariance(m, "cpu"),
    "auto_batch": lambda m: check_auto_batch(m, "cpu"),
    "last_layer_cut": lambda m: check_last_layer_cut(m, "cpu"),
    "attn_against_sdpa": lambda m: check_attn_against_sdpa(m, "cpu", "eager", "bfloat16", "packed"),
    "split": lambda m: check_split(m, "cpu", "cpu"),
}


@pytest.mark.parametrize("check", sorted(CPU_STAND_INS))
def test_check_runs_on_cpu(check, models):
    """Each GPU check with the CPU as its device: exercises the checks' code wherever the suite runs."""
    CPU_STAND_INS[check](models)


# ---------------------------------------------------------------- the GPU tests


@needs_bf16
def test_dtype_auto_is_bfloat16_and_close_to_cpu_float32(models):
    assert resolve_dtype("auto", torch.device("cuda")) == torch.bfloat16
    check_low_precision(models, "cuda", "auto", torch.bfloat16)


@needs_gpu
def test_float32_on_gpu_equals_cpu_float32(models):
    check_float32_matches_cpu(models, "cuda")


@needs_gpu
def test_batch_size_does_not_change_gpu_scores(models):
    check_batch_invariance(models, "cuda")


@needs_gpu
def test_auto_batch_size_probes_gpu_memory(models):
    check_auto_batch(models, "cuda")  # a tiny model: the first probe fits
    # 32 MiB to spare: one 131072-token hidden state of the tiny Llama is 16 MiB and a layer holds
    # several, so the first probes run out of memory; a batch of one row (a few KiB) fits
    check_auto_batch(models, "cuda", headroom_bytes=32 << 20)


@needs_gpu
def test_last_layer_cut_on_gpu_equals_full_pass(models):
    check_last_layer_cut(models, "cuda")


@needs_flash
def test_flash_attention_2_uses_the_cache_strategy_and_matches_sdpa(models):
    dtype = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"  # flash attention has no float32
    check_attn_against_sdpa(models, "cuda", "flash_attention_2", dtype, "cache")


@needs_two_gpus
def test_model_split_over_two_gpus_scores_as_on_one(models):
    check_split(models, 0, 1)
    # --device-map auto: accelerate places the tiny model where it likes; the scores may not change
    mapped = load_scorer(models["llama"], kind="causal", device_map="auto")
    placed = sorted({str(p.device) for p in mapped.model.parameters()})
    _, expected = causal_run(models["llama"], "cuda:0")
    assert_close(mapped.continuation_logprobs(CAUSAL), expected, BATCH_ATOL, f"--device-map auto on {placed}")


@needs_two_gpus
def test_two_nccl_processes_give_the_one_process_result(models, tmp_path):
    from tests import distributed_cases as dc
    from tests.test_distributed import CASES, _torchrun, assert_same

    out = tmp_path / "out"
    out.mkdir()
    paths = {"bert": models["bert"], "gpt2": models["gpt2"], "vec": str(dc.write_vec(tmp_path / "words.vec"))}
    coda = dc.coda_groups_file(tmp_path)
    spec = {"models": paths, "coda": str(coda), "out": str(out), "cases": CASES, "device": "cuda",
            "cli": [["coda", "eval", "--data", str(coda), "--model", paths["gpt2"], "--device", "cuda",
                     "--out", str(out / "cli-coda.json")]]}
    proc = _torchrun(spec, tmp_path, backend="nccl")
    assert proc.returncode == 0, proc.stderr[-3000:]
    reference = {name: json.loads(json.dumps(dc.run_case(name, dict(spec, out=None)))) for name in CASES}
    for name in CASES:
        assert_same(json.loads((out / f"{name}.json").read_text(encoding="utf-8")), reference[name], name)
    assert json.loads((out / "coda-causal.json").read_text(encoding="utf-8"))["run"]["processes"] == 2
    cli = json.loads((out / "cli-coda.json").read_text(encoding="utf-8"))
    assert_same(cli["instances"], reference["coda-causal"]["instances"], "cli")
