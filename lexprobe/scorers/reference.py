"""Plain per-pair reference scorers (one forward pass per request, the papers' formulas as literally as
possible): tests check the optimised engine against them, scripts/bench_*.py measure its speed-up.
"""

from __future__ import annotations

import numpy as np
import torch


@torch.inference_mode()
def causal_continuation_logprobs(scorer, context: str, continuation: str) -> np.ndarray:
    ctx, cont = scorer.split(context, continuation)
    ids = torch.tensor([list(ctx) + list(cont)], device=scorer.device)
    logits = scorer.model(input_ids=ids).logits[0].float()
    scorer.count("reference_forward_passes")
    logp = torch.log_softmax(logits, dim=-1)
    n = len(ctx)
    return np.array([logp[n + i - 1, t].item() for i, t in enumerate(cont)])


@torch.inference_mode()
def masked_slot_logprobs(scorer, prefix, word, suffix) -> np.ndarray:
    """log P(word token i | query with len(word) masks) for each i, full logits."""
    mask_id = scorer.tokenizer.mask_token_id
    ids = list(prefix) + [mask_id] * len(word) + list(suffix)
    logits = scorer.model(input_ids=torch.tensor([ids], device=scorer.device)).logits[0].float()
    scorer.count("reference_forward_passes")
    logp = torch.log_softmax(logits, dim=-1)
    start = len(prefix)
    return np.array([logp[start + i, t].item() for i, t in enumerate(word)])
