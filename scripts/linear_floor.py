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
        return sum(2 * shape.numel() // shape[-1] * m.in_features * m.out_features for m, shape in self.calls)


def trace_linears(model: torch.nn.Module, run: Callable[[], object]) -> LinearTrace:
    trace = LinearTrace()
    hooks = [m.register_forward_pre_hook(lambda mod, args: trace.calls.append((mod, args[0].shape)))
             for m in model.modules() if isinstance(m, torch.nn.Linear)]
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
        key = (m.in_features, m.weight.dtype, m.weight.device)
        if key not in inputs or inputs[key].numel() < shape.numel():
            inputs[key] = torch.randn(shape.numel(), dtype=m.weight.dtype, device=m.weight.device)
    calls = [(m, inputs[(m.in_features, m.weight.dtype, m.weight.device)][: shape.numel()].view(shape))
             for m, shape in trace.calls]

    @torch.inference_mode()
    def run() -> None:
        for m, x in calls:
            torch.nn.functional.linear(x, m.weight, m.bias)

    return run
