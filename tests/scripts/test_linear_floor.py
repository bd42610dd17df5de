"""The benchmark's linear-layer floor counts and replays exactly the model's matrix products."""

import torch
from transformers import AutoModelForMaskedLM

from scripts.linear_floor import replayer, trace_linears


def test_trace_counts_every_linear_call_with_hand_computed_flops(tiny_bert):
    model = AutoModelForMaskedLM.from_pretrained(tiny_bert).eval()
    ids = torch.tensor([[2, 5, 6, 7, 3], [2, 5, 6, 7, 3]])
    with torch.inference_mode():
        trace = trace_linears(model, lambda: model(input_ids=ids))
    # tiny BERT: hidden 32, feed-forward 64, 2 layers; 2 x 5 = 10 positions everywhere
    n, h, f, vocab = 10, 32, 64, model.config.vocab_size
    per_layer = 4 * (2 * n * h * h) + 2 * (2 * n * h * f)  # Q, K, V, O; feed-forward in and out
    head = 2 * n * h * h + 2 * n * h * vocab  # MLM transform + decoder
    assert len(trace.calls) == 2 * 6 + 2
    assert trace.flops == 2 * per_layer + head


def test_replay_runs_the_recorded_shapes_and_nothing_else(tiny_bert):
    model = AutoModelForMaskedLM.from_pretrained(tiny_bert).eval()
    with torch.inference_mode():
        trace = trace_linears(model, lambda: model(input_ids=torch.tensor([[2, 5, 3]])))
    seen = []
    hooks = [m.register_forward_pre_hook(lambda mod, args: seen.append(args[0].shape))
             for m in model.modules() if isinstance(m, torch.nn.Linear)]
    calls = []
    original = torch.nn.functional.linear
    try:
        torch.nn.functional.linear = lambda x, w, b=None: calls.append((tuple(x.shape), tuple(w.shape))) or original(x, w, b)
        replayer(trace)()
    finally:
        torch.nn.functional.linear = original
        for hk in hooks:
            hk.remove()
    assert seen == []  # the modules themselves do not run: only their matrix products
    assert calls == [(tuple(s), tuple(m.weight.shape)) for m, s in trace.calls]


def test_gpt2_conv1d_projections_are_counted_and_replayed(tiny_gpt2):
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    with torch.inference_mode():
        trace = trace_linears(model, lambda: model(input_ids=torch.tensor([[1, 2, 3, 4]])))
    # n_embd 32, inner 4 x 32 = 128, 2 layers, 4 positions: c_attn (32 -> 96), c_proj, c_fc, mlp c_proj; LM head
    n, h, vocab = 4, 32, model.config.vocab_size
    per_layer = 2 * n * h * 3 * h + 2 * n * h * h + 2 * (2 * n * h * 4 * h)
    assert len(trace.calls) == 2 * 4 + 1
    assert trace.flops == 2 * per_layer + 2 * n * h * vocab
    replayer(trace)()  # Conv1D weights are (in, out): a wrong orientation would raise a shape error
