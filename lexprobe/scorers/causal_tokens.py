"""How a causal LM's requests become token ids, for every causal backend (in process with transformers, an
endpoint, vLLM, llama.cpp): ``CausalTokenization`` serves ``Continuation`` and ``Generate`` from a backend's
``token_logprobs`` and ``generate_ids``. Torch-free, so a backend that does not run on torch (llama.cpp, a
server) does not load it for its tokenisation.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from lexprobe.asking.requests import Continuation, Fit, Generate, Message, Prompt
from lexprobe.errors import ModelError
from lexprobe.scorers.base import Memoised, TooLong


class CausalTokenization(Memoised):
    """How a causal LM's requests become token ids: one rule for every backend with a local tokenizer (in
    process, an endpoint, vLLM), so a request is the same ids wherever it is scored. Serves ``Continuation``
    and ``Generate``; needs ``tokenizer``, ``max_length``, ``prefix_id``, ``count``, ``name``,
    ``token_logprobs`` and ``generate_ids``. Chat messages go through the chat template (``chat_text``) and
    are encoded without special tokens (the template holds them); plain text with them."""

    tokenizer: Any
    max_length: int | None
    pad_id: int
    prefix_id: int
    name: str
    count: Callable[..., None]
    _memoised: Callable[..., Any]

    def use_tokenizer(self, tokenizer: Any) -> None:
        """``tokenizer``, with the id rows are padded with and the id an empty context becomes (the pad and BOS
        tokens; where a tokenizer lacks one, its end token, else 0)."""
        self.tokenizer = tokenizer
        fallback = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else fallback
        self.prefix_id = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else fallback

    def continuation_logprobs(self, requests: Sequence[tuple[str, str]], progress: bool = False) -> list[np.ndarray]:
        """Per-token log-probabilities of each continuation given its context (text pairs, ``split``)."""
        return self.token_logprobs([self.split(c, x) for c, x in requests], progress=progress)  # type: ignore[attr-defined]

    def _each_pair_once(self, requests: Sequence[tuple[Sequence[int], Sequence[int]]],
                        score: Callable[[list], list]) -> list[np.ndarray]:
        """``score`` of the distinct (context, continuation) id pairs (for a backend that pays per pair sent),
        given back per request, a copy each."""
        unique = list(dict.fromkeys((tuple(c), tuple(x)) for c, x in requests))
        by_pair = dict(zip(unique, score(unique) if unique else []))
        return [by_pair[(tuple(c), tuple(x))].copy() for c, x in requests]

    def _encode(self, text: str, special: bool = True) -> list[int]:
        return self.tokenizer(text, add_special_tokens=special)["input_ids"]

    def split(self, context: str, continuation: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``tokenize_pair``, the context's start cut to fit (counted); ``TooLong`` where the continuation
        alone does not fit."""
        ctx, cont = self.tokenize_pair(context, continuation)
        fitted, cut = fit_context(ctx, cont, self.max_length)
        if cut:
            self.count("truncated_contexts")
        return fitted, cont

    def tokenize_pair(self, context: str, continuation: str,
                      special: bool = True) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Token ids of (context, continuation), encoded together and split, whatever their length."""
        context, continuation = _move_trailing_space(context, continuation)
        whole = self._encode(context + continuation, special)
        n_ctx = self._length(context, special)  # an empty context still holds a BOS the tokenizer adds
        ctx, cont = whole[:n_ctx], whole[n_ctx:]
        if not ctx:
            ctx = [self.prefix_id]
        if not cont:
            raise ValueError(f"empty continuation after tokenisation: {continuation!r}")
        return tuple(ctx), tuple(cont)

    def _length(self, text: str, special: bool) -> int:
        return self._memoised("_lengths", (text, special), lambda: len(self._encode(text, special)))

    def prompt_text(self, prompt: Prompt, answer_prefix: str = "") -> tuple[str, bool]:
        """(the prompt's text with the answer prefix, whether it is encoded with special tokens)."""
        if isinstance(prompt, str):
            return prompt + answer_prefix, True
        text = self._memoised("_chat_texts", prompt, lambda: chat_text(self.tokenizer, self.name, prompt))
        return text + answer_prefix, False

    def _continuation_ids(self, request: Continuation) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
        """(context ids, how many ids of ``given`` follow it, ids of ``given`` + continuation), memoised: the
        context and everything after it encoded together and split."""
        def make() -> tuple[tuple[int, ...], int, tuple[int, ...]]:
            text, special = self.prompt_text(request.context, request.answer_prefix)
            ctx, rest = self.tokenize_pair(text, request.given + request.continuation, special)
            n_given = 0
            if request.given:
                context, given = _move_trailing_space(text, request.given)
                n_given = self._length(context + given, special) - self._length(context, special)
                if len(rest) <= n_given:
                    raise ValueError(f"continuation {request.continuation!r} vanished in tokenisation after "
                                     f"{request.given!r}")
            return ctx, n_given, rest

        return self._memoised("_pair_ids", (request.context, request.answer_prefix, request.given, request.continuation),
                          make)

    def fit_continuations(self, requests: Sequence[Continuation]) -> list[Fit]:
        """The context's start cut to fit with the whole continuation (``fit_context``), or too long."""
        out = []
        for request in requests:
            ctx, n_given, rest = self._continuation_ids(request)
            tokens = len(rest) - n_given  # the continuation's own tokens, whole
            try:
                fitted, cut = fit_context(ctx, rest, self.max_length)
            except TooLong as err:
                out.append(Fit(too_long=str(err), tokens=tokens))
                continue
            out.append(Fit(cut=cut, context_tokens=len(fitted), tokens=tokens))
        return out

    def continuations(self, requests: Sequence[Continuation], progress: bool = False) -> list[np.ndarray]:
        """Per-token log-probabilities of each continuation, fitted as ``fit_continuations`` says (``TooLong``
        where it does not fit); ``given`` is fed, not scored. A ``window`` splits the continuation: the tokens
        that fit the window in one pair, each later one in its own (``causal_w2d_batch_shift``'s rule)."""
        pairs: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        index: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        plan: list[tuple[int, list[int]]] = []

        def add(ctx: tuple[int, ...], cont: tuple[int, ...]) -> int:
            if (ctx, cont) not in index:
                index[(ctx, cont)] = len(pairs)
                pairs.append((ctx, cont))
            return index[(ctx, cont)]

        for request in requests:
            ctx, n_given, rest = self._continuation_ids(request)
            ctx, _ = fit_context(ctx, rest, self.max_length)
            if request.max_tokens is not None:
                rest = rest[: n_given + request.max_tokens]
            if request.window is None:
                plan.append((n_given, [add(ctx, rest)]))
                continue
            ctx, cont = (ctx + rest[:n_given])[-request.window:], rest[n_given:]
            fits = min(len(cont), request.window - len(ctx) + 1)
            parts = [add(ctx, cont[:fits])]
            parts += [add((ctx + cont[:j])[-request.window:], cont[j:j + 1]) for j in range(fits, len(cont))]
            plan.append((0, parts))
        logps = self.token_logprobs(pairs, progress=progress)  # type: ignore[attr-defined]
        return [np.concatenate([np.asarray(logps[i], dtype=np.float64) for i in parts])[skip:]
                for skip, parts in plan]

    def prompt_ids(self, prompt: Prompt, answer_prefix: str = "") -> list[int]:
        """The token ids generation continues (``prompt_text`` encoded)."""
        return self._memoised("_prompt_ids", (prompt, answer_prefix),
                          lambda: list(self._encode(*self.prompt_text(prompt, answer_prefix))))

    def fit_generations(self, requests: Sequence[Generate]) -> list[Fit]:
        """A prompt fits with room for ``max_tokens``, or is too long (cut, it would lose its question)."""
        out = []
        for request in requests:
            n = max(len(self.prompt_ids(request.prompt, request.answer_prefix)), 1)
            limit = self.max_length
            if limit and n + request.max_tokens > limit:
                out.append(Fit(too_long=f"prompt of {n} tokens + {request.max_tokens} for the answer exceeds the "
                                        f"model's {limit} positions"))
            else:
                out.append(Fit(context_tokens=n))
        return out

    def generations(self, requests: Sequence[Generate], progress: bool = False) -> list[str]:
        """Greedy answers; requests alike in length and stops go to ``generate_ids`` together."""
        groups: dict[tuple, list[int]] = {}
        for i, request in enumerate(requests):
            groups.setdefault((request.max_tokens, request.stop), []).append(i)
        out: list[str] = [""] * len(requests)
        for (max_tokens, stop), where in groups.items():
            ids = [self.prompt_ids(requests[i].prompt, requests[i].answer_prefix) for i in where]
            for i, answer in zip(where, self.generate_ids(ids, max_tokens, list(stop) or None)):  # type: ignore[attr-defined]
                out[i] = answer
        return out


def chat_text(tokenizer: Any, model: str, messages: Sequence[Message]) -> str:
    """``messages`` in the tokenizer's chat template with the generation prompt; one line where it fails."""
    if not getattr(tokenizer, "chat_template", None):
        raise ModelError(f"model {model!r} has no chat template (tokenizer.chat_template is empty); "
                         "drop --chat to use the plain prompt, or use an instruction-tuned model")
    try:
        return tokenizer.apply_chat_template([{"role": m.role, "content": m.content} for m in messages],
                                             tokenize=False, add_generation_prompt=True)
    except Exception as err:  # noqa: BLE001 - jinja2 raises TemplateError from inside the template
        hint = (" (some chat templates reject a system message: use a template without `system`)"
                if any(m.role == "system" for m in messages) else "")
        raise ModelError(f"the model's chat template failed on the prompt: {err}{hint}") from None


def _move_trailing_space(context: str, continuation: str) -> tuple[str, str]:
    """A trailing space of the context belongs to the continuation's first token."""
    trailing = len(context) - len(context.rstrip(" "))
    return (context[:-trailing], context[-trailing:] + continuation) if trailing else (context, continuation)


def until_stop(row: list[int], stops: list[int]) -> list[int]:
    for i, t in enumerate(row):
        if t in stops:
            return row[:i]
    return row


def cut_at_stop(text: str, stop: Sequence[str] | None) -> str:
    """``text`` up to the first of the ``stop`` strings (as an OpenAI-compatible server cuts it)."""
    for s in stop or ():
        if s and s in text:
            text = text[:text.index(s)]
    return text


def fit_context(ctx: tuple[int, ...], cont: tuple[int, ...], limit: int | None) -> tuple[tuple[int, ...], bool]:
    """(the context's end that fits ``limit`` positions with the continuation, whether it was cut);
    ``TooLong`` where the continuation leaves no position for one context token."""
    if not limit or len(ctx) + len(cont) <= limit:
        return ctx, False
    if len(cont) >= limit:
        raise TooLong(f"a continuation of {len(cont)} tokens does not fit the model's {limit} input positions")
    return ctx[len(ctx) + len(cont) - limit :], True


def tokenizer_limit(tokenizer) -> int | None:
    """The tokenizer's ``model_max_length`` where it is a real limit (not transformers' huge "none" value)."""
    limit = getattr(tokenizer, "model_max_length", None)
    return limit if isinstance(limit, int) and 0 < limit < 10**6 else None
