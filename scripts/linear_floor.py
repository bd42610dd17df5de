"""The time a tool's linear layers take alone: a floor for any exact implementation of its work.

A transformer's forward pass is dominated by its linear layers (projections, feed-forward
blocks, the LM head). ``trace_linears`` runs a tool once with a hook on every
``nn.Linear`` of the model and records each call's module and input shape;
``replay`` then runs exactly those matrix products on random inputs of the same
shapes, with nothing else (no attention, activations, norms, tokenisation, Python
bookkeeping). Timed side by side with the tools themselves, this answers two
questions with measurements instead of estimates:

* how close a tool is to its own floor (wall time / replay time), and
* how fast *any* tool doing the same linear work could be against a peer
  (peer wall time / replay time of lexprobe's linear work).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import torch


@dataclass
class LinearTrace:
    calls: list[tuple[torch.nn.Linear, torch.Size]] = field(default_factory=list)

    @property
    def flops(self) -> int:
        """Multiply-adds x 2 of every recorded call."""
        return sum(2 * shape.numel() // shape[-1] * _features(m)[0] * _features(m)[1] for m, shape in self.calls)


def _is_linear(m: torch.nn.Module) -> bool:
    """``nn.Linear``, or transformers' ``Conv1D`` (GPT-2's projections: a linear layer with the
    weight stored transposed)."""
    return isinstance(m, torch.nn.Linear) or (type(m).__name__ == "Conv1D" and hasattr(m, "nf"))


def _features(m: torch.nn.Module) -> tuple[int, int]:
    if isinstance(m, torch.nn.Linear):
        return m.in_features, m.out_features
    return m.weight.shape[0], m.weight.shape[1]  # Conv1D: (in, out)


def trace_linears(model: torch.nn.Module, run: Callable[[], object]) -> LinearTrace:
    trace = LinearTrace()
    hooks = [m.register_forward_pre_hook(lambda mod, args: trace.calls.append((mod, args[0].shape)))
             for m in model.modules() if _is_linear(m)]
    try:
        run()
    finally:
        for h in hooks:
            h.remove()
    return trace


def replayer(trace: LinearTrace) -> Callable[[], None]:
    """A function running the recorded matrix products alone, on random inputs of the recorded
    shapes (allocated here, outside the timed call)."""
    inputs: dict[tuple, torch.Tensor] = {}
    for m, shape in trace.calls:
        key = (_features(m)[0], m.weight.dtype, m.weight.device)
        if key not in inputs or inputs[key].numel() < shape.numel():
            inputs[key] = torch.randn(shape.numel(), dtype=m.weight.dtype, device=m.weight.device)
    calls = []
    for m, shape in trace.calls:
        x = inputs[(_features(m)[0], m.weight.dtype, m.weight.device)][: shape.numel()].view(shape)
        if isinstance(m, torch.nn.Linear):
            calls.append((torch.nn.functional.linear, (x, m.weight, m.bias)))
        else:  # Conv1D's own computation
            calls.append((torch.addmm, (m.bias, x.view(-1, shape[-1]), m.weight)))

    @torch.inference_mode()
    def run() -> None:
        for op, args in calls:
            op(*args)

    return run
