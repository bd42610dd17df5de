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

from lexprobe.batching import pad_batch, run_batched


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


@torch.inference_mode()
def greedy_generate(scorer, prompts: Sequence[str], chat: bool, max_new_tokens: int) -> list[str]:
    """Greedy continuation of each prompt (left-padded batches, longest first), decoded."""
    tok = scorer.tokenizer
    ids = [encode(tok, p, chat) for p in prompts]
    stops = stop_ids(scorer)

    def run(batch: list[list[int]]) -> list[str]:
        input_ids, mask = pad_batch(batch, scorer.pad_id, left=True)
        out = scorer.model.generate(
            input_ids=input_ids.to(scorer.device), attention_mask=mask.to(scorer.device),
            max_new_tokens=max_new_tokens, do_sample=False, num_beams=1, temperature=None, top_p=None,
            top_k=None, pad_token_id=scorer.pad_id, eos_token_id=stops or None,
        )
        scorer.count("generate_calls")
        return [tok.decode(_until_stop(row, stops), skip_special_tokens=True) for row in out[:, input_ids.shape[1]:].tolist()]

    return run_batched(ids, run, scorer.batch_size, length=len)


def stop_ids(scorer) -> list[int]:
    """The tokenizer's EOS and the model's generation EOS ids (chat models end a turn with their own)."""
    ids = [scorer.tokenizer.eos_token_id]
    configured = getattr(getattr(scorer.model, "generation_config", None), "eos_token_id", None)
    ids += configured if isinstance(configured, list) else [configured]
    return list(dict.fromkeys(i for i in ids if i is not None))


def _until_stop(row: list[int], stops: list[int]) -> list[int]:
    for i, t in enumerate(row):
        if t in stops:
            return row[:i]
    return row


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
