"""Reading a causal LM's answer to a prompt: label likelihood and greedy generation.

Both compose the causal scorer's primitives. Label likelihood asks
``CausalLMScorer.token_logprobs`` for each label as a continuation of the prompt;
labels sharing the prompt share its forward pass (one pass per prompt when every
label is one token, a second short pass otherwise). Prompt and label are encoded
together and split, as the scorer does for any continuation. A chat-templated
prompt already holds its special tokens, so it is encoded without adding any.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch


def encode(tokenizer, text: str, chat: bool) -> list[int]:
    return list(tokenizer(text, add_special_tokens=not chat)["input_ids"])


def label_requests(tokenizer, prompt: str, continuations: Sequence[str], chat: bool):
    """(context ids, continuation ids) of each continuation after ``prompt``."""
    n_ctx = len(encode(tokenizer, prompt, chat))
    out = []
    for cont in continuations:
        whole = encode(tokenizer, prompt + cont, chat)
        if len(whole) <= n_ctx:
            raise ValueError(f"continuation {cont!r} vanished in tokenisation after the prompt")
        out.append((tuple(whole[:n_ctx]), tuple(whole[n_ctx:])))
    return out


def prompt_length(tokenizer, prompt: str, chat: bool) -> int:
    return len(encode(tokenizer, prompt, chat))


def label_logprobs(scorer, prompts: Sequence[str], continuations: Sequence[Sequence[str]], chat: bool,
                   progress: bool = False, prefixes: Sequence[Sequence[str]] | None = None) -> list[np.ndarray]:
    """Summed log P(continuation | prompt) of every continuation of every prompt.

    With ``prefixes``, prompt p is asked once per prefix r and the result for p is a
    matrix: entry [r, j] = log P(continuation j | prompt + prefix r). All rows share the
    prompt's forward pass (prefix + label is scored as one continuation and only the
    label's tokens are summed), so a CoDA21 group costs one pass over its long prompt.
    """
    tok = scorer.tokenizer
    requests, where = [], []
    for p, (prompt, conts) in enumerate(zip(prompts, continuations)):
        rows = prefixes[p] if prefixes is not None else [""]
        for r, row in enumerate(rows):
            n_row = len(encode(tok, prompt + row, chat)) - len(encode(tok, prompt, chat))
            for j, req in enumerate(label_requests(tok, prompt, [row + c for c in conts], chat)):
                if len(req[1]) <= n_row:
                    raise ValueError(f"label {conts[j]!r} vanished in tokenisation after {row!r}")
                requests.append(req)
                where.append((p, r, j, n_row))
    logps = scorer.token_logprobs(requests, progress=progress)
    out = [np.zeros((len(prefixes[p]) if prefixes is not None else 1, len(c))) for p, c in enumerate(continuations)]
    for (p, r, j, n_row), lp in zip(where, logps):
        out[p][r, j] = float(np.sum(lp[n_row:]))
    return out if prefixes is not None else [m[0] for m in out]


def greedy_generate(scorer, prompts: Sequence[str], chat: bool, max_new_tokens: int) -> list[str]:
    """Greedy continuation of each prompt, decoded: the scorer's ``generate`` (``capabilities.Generation``),
    in process or on a server alike."""
    return scorer.generate(list(prompts), max_new_tokens, templated=chat)


def stop_ids(scorer) -> list[int]:
    """The ids that end an in-process model's answer (``CausalLMScorer.stop_ids``)."""
    return scorer.stop_ids()


@torch.inference_mode()
def greedy_generate_reference(scorer, prompt: str, chat: bool, max_new_tokens: int) -> str:
    """Plain reference: one prompt, full forward pass per new token, argmax, no cache."""
    tok = scorer.tokenizer
    ids = encode(tok, prompt, chat)
    new: list[int] = []
    for _ in range(max_new_tokens):
        logits = scorer.model(input_ids=torch.tensor([ids + new], device=scorer.device)).logits[0, -1]
        nxt = int(torch.argmax(logits.float()))
        if nxt in stop_ids(scorer):
            break
        new.append(nxt)
    return tok.decode(new, skip_special_tokens=True)
