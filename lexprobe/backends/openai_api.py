"""Models behind an OpenAI-compatible endpoint (``--model http://HOST:PORT/v1``): vLLM, SGLang, APIs.

``OpenAICompletionsScorer`` (kind ``causal``) sends token ids of the local tokenizer to ``/v1/completions``
with ``echo``, so a request is exactly the in-process scorer's (``echo`` log-probabilities were within 2.3e-5
of transformers on vLLM 0.32); the server's tokenizer is checked once against the local one.
``OpenAIChatScorer`` (kind ``chat``) uses ``/v1/chat/completions``: generation only. Every answer is checked
(``server_answers``) before use; ``describe`` holds what the server reports it serves, so a server restarted
with another model under the same name starts a new resume log.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from lexprobe.asking.requests import Generate
from lexprobe.backends import server_answers as answers
from lexprobe.backends.client import Endpoint, api_key
from lexprobe.batching import chunks
from lexprobe.errors import ModelError
from lexprobe.scorers.base import Scorer
from lexprobe.scorers.causal_tokens import CausalTokenization, cut_at_stop, tokenizer_limit

log = logging.getLogger(__name__)

#: ordinary text whose tokenisation both sides must agree on (with a word that splits, digits, a capital)
TOKENIZER_PROBE = "The dog's unbelievably quick runs, 1984 times: Zürich and the banks of rivers."
#: what the server says it serves, in ``run.backend.server_reports`` and in the resume key
REPORTED = ("id", "root", "max_model_len", "owned_by", "version", "dtype")
#: the fix of a tokenizer problem where the user chose the tokenizer (``--tokenizer``)
TOKENIZER_FIX = "pass --tokenizer NAME_OR_PATH with the served model's tokenizer"


class TokenizerError(ModelError):
    """A local tokenizer that cannot be loaded or does not tokenise as the server: ``problem`` says which, the
    message adds ``TOKENIZER_FIX``. A command that chooses the tokenizer itself (``check-endpoint`` takes it
    from ``--against``) words its own fix from ``problem``, so no message names an option it does not take."""

    def __init__(self, problem: str):
        super().__init__(f"{problem}; {TOKENIZER_FIX}")
        self.problem = problem


def load(reference: str, kind: str | None = None, batch_size: int | str | None = None,
         served_model: str | None = None, tokenizer: str | None = None, concurrency: int | None = None,
         request_timeout: float | None = None, served_dtype: str | None = None, prefer: str | None = None,
         seed: int = 0) -> Scorer:
    """The scorer of an endpoint, checked before any work: the URL and the key, the server reachable, the
    model served, the tokenizer agreeing with the server's."""
    endpoint = Endpoint(reference, api_key(), timeout=request_timeout or 120.0, concurrency=concurrency or 8)
    cards = endpoint.get("/models", answers.models, retries=1, timeout=min(endpoint.timeout, 20.0))
    names = [c.id for c in cards]
    if served_model is None:
        if len(names) != 1:
            raise ModelError(f"{endpoint.base} serves {len(names)} models ({', '.join(names[:5]) or 'none'}); "
                             "name one with --served-model")
        served_model = names[0]
    elif names and served_model not in names:
        raise ModelError(f"{endpoint.base} does not serve {served_model!r} (it serves {', '.join(names[:5])}); "
                         "fix --served-model")
    card = next((c for c in cards if c.id == served_model), answers.ModelCard(id=served_model))
    version = _version(endpoint)
    reports = {**{k: getattr(card, k) for k in REPORTED if k != "version"}, "version": version}
    server = f"vllm {version}" if version else str(card.owned_by or "unknown")
    record = {"backend": "openai", "endpoint": endpoint.base, "served_model": served_model, "server": server,
              "served_dtype": served_dtype, "server_reports": {k: reports[k] for k in REPORTED}}
    if kind == "chat":
        return OpenAIChatScorer(served_model, endpoint, record, batch_size=batch_size)
    tok, source, label = _local_tokenizer(tokenizer, card, reference)
    scorer = OpenAICompletionsScorer(served_model, endpoint, record, tok, batch_size=batch_size)
    if Path(source).exists():  # a local folder read: an input no output may overwrite (outputs.guard)
        scorer.input_paths[label] = Path(source)
    scorer.check_tokenizer(source)
    return scorer


def _version(endpoint: Endpoint) -> str | None:
    """vLLM's version from ``/version`` at the server's root; None for any other server."""
    if endpoint.root == endpoint.base:
        return None
    try:
        return endpoint.get(f"{endpoint.root}/version", answers.version, retries=0, missing_ok=True)
    except ModelError:
        return None


def _local_tokenizer(name: str | None, card: answers.ModelCard, reference: str) -> tuple[Any, str, str]:
    """(tokenizer, its source, what named it): ``--tokenizer``, else the served model's root, else its id."""
    from transformers import AutoTokenizer

    root, served = card.root, card.id
    candidates = [(name, "--tokenizer")] if name else [(c, label) for c, label in
                                                        ((root, "the served model's root"),
                                                         (served, "the served model's id")) if c]
    if not name and root and not Path(root).is_dir() and Path(served).is_dir():
        candidates = [(served, "the served model's id")]
    errors = []
    for source, label in candidates:
        try:
            tok = AutoTokenizer.from_pretrained(str(source), use_fast=True, trust_remote_code=False)
        except (OSError, ValueError) as err:
            errors.append(f"{source}: {str(err).splitlines()[0][:120]}")
            continue
        return tok, str(source), label
    raise TokenizerError(f"cannot load a tokenizer for {reference} ({'; '.join(errors) or 'the server names none'})")


class _Remote(Scorer):
    """What both endpoint scorers share: the endpoint, the record, what the server reports."""

    default_batch_size = 8  # prompts per HTTP request

    def __init__(self, name: str, endpoint: Endpoint, record: dict, batch_size=None):
        super().__init__(name)
        self.endpoint = endpoint
        self.path = endpoint.base
        self.backend_record = record
        self.batch_size = batch_size  # an int; auto: the default (the server batches as it likes)
        self.concurrency = endpoint.concurrency
        self.revision = f"{record['server']}:{name}"
        self.max_length = record["server_reports"].get("max_model_len")
        #: the local paths this scorer reads (option -> path): outputs may not overwrite them
        self.input_paths: dict[str, Path] = {}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "backend": "openai", "endpoint": self.endpoint.base,
                "served_model": self.name, "server": self.backend_record.get("server"),
                "served_dtype": self.backend_record.get("served_dtype"),
                "server_reports": dict(self.backend_record["server_reports"])}

    def _post_all(self, path: str, bodies: list[dict], checks: Sequence[Callable[[Any], Any]]) -> list:
        """Each body posted (``concurrency`` at a time), each answer through its check; in order."""
        out = self.endpoint.post_all(path, bodies, checks) if bodies else []
        self.stats["retried_requests"] = self.endpoint.retried
        return out

    def _batches(self, items: list) -> list:
        return list(chunks(items, max(1, int(self.batch_size))))


class OpenAICompletionsScorer(_Remote, CausalTokenization):
    """Token log-probabilities and generation from ``/v1/completions``, tokenised as in process
    (``CausalTokenization``)."""

    def __init__(self, name: str, endpoint: Endpoint, record: dict, tokenizer, batch_size=None):
        super().__init__(name, endpoint, record, batch_size)
        self.kind = "causal"
        self.use_tokenizer(tokenizer)
        if self.max_length is None:
            self.max_length = tokenizer_limit(tokenizer)
        #: vLLM echoes the prompt's token ids when asked (``return_tokens_as_token_ids``): they are compared;
        #: where a server echoes its tokens' text instead, that is compared with the local text of each id sent
        self.echo_ids = str(record.get("server", "")).startswith("vllm ")
        self._special_ids = frozenset(tokenizer.all_special_ids)
        self._texts: dict[int, frozenset[str] | None] = {}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "tokenizer": self.backend_record.get("tokenizer")}

    def check_tokenizer(self, tokenizer_name: str) -> None:
        """The server tokenises as the local tokenizer does, or one line before any work."""
        self.backend_record["tokenizer"] = tokenizer_name
        local: object = list(self.tokenizer(TOKENIZER_PROBE, add_special_tokens=True)["input_ids"])
        endpoint = self.endpoint
        remote: object = endpoint.post(
            f"{endpoint.root}/tokenize", {"model": self.name, "prompt": TOKENIZER_PROBE, "add_special_tokens": True},
            answers.tokenized, retries=1, missing_ok=True) if endpoint.root != endpoint.base else None
        how = "/tokenize"
        if remote is None:  # no /tokenize: the number of prompt tokens the server counts for the probe text
            remote = endpoint.post("/completions", {"model": self.name, "prompt": TOKENIZER_PROBE, "max_tokens": 1,
                                                    "temperature": 0}, answers.prompt_tokens, retries=1)
            how, local = "its prompt-token count", len(local)  # type: ignore[arg-type]
        self.backend_record["tokenizer_check"] = how
        if remote != local:
            raise TokenizerError(f"the tokenizer {tokenizer_name!r} does not tokenise as {endpoint.base} does "
                                 f"(checked with {how})")

    def token_logprobs(self, requests: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
                       progress: bool = False) -> list[np.ndarray]:
        """Per-token log-probabilities of each continuation from the echoed prompt; identical requests asked once."""
        return self._each_pair_once(requests, self._echoed)

    def _echoed(self, unique: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> list[np.ndarray]:
        self.count("remote_requests", len(unique))
        self.count("remote_tokens", sum(len(c) + len(x) for c, x in unique))
        batches = self._batches(unique)
        extra = {"return_tokens_as_token_ids": True} if self.echo_ids else {}
        prompts = [[list(c + x) for c, x in batch] for batch in batches]
        bodies = [{"model": self.name, "prompt": p, "echo": True, "logprobs": 1, "max_tokens": 0, "temperature": 0,
                   **extra} for p in prompts]
        base = self.endpoint.base
        checks = [functools.partial(answers.echo_logprobs, prompts=p, base=base, render=self._token_texts)
                  for p in prompts]
        scored = []
        for batch, checked in zip(batches, self._post_all("/completions", bodies, checks)):
            self.count("remote_calls")
            self.count("echo_ids_compared", checked.ids_compared)
            self.count("echo_texts_compared", checked.texts_compared)
            scored += [np.asarray(values[len(ctx):], dtype=np.float64) for (ctx, _), values in zip(batch, checked)]
        return scored

    def _token_texts(self, token_id: int) -> frozenset[str] | None:
        """The texts a server may echo for ``token_id`` (``server_answers.Renderer``): its decoded text and its
        vocabulary entry, normalised; None for a special token, a piece of a character, or whitespace."""
        if token_id not in self._texts:
            decoded = answers.token_text(self.tokenizer.decode([token_id]))
            texts: frozenset[str] | None = None
            if token_id not in self._special_ids and decoded and "\ufffd" not in decoded:
                entry = answers.token_text(str(self.tokenizer.convert_ids_to_tokens(token_id)))
                texts = frozenset({decoded, entry} - {""})
            self._texts[token_id] = texts
        return self._texts[token_id]

    def generate_ids(self, prompts: Sequence[Sequence[int]], max_new_tokens: int,
                     stop: Sequence[str] | None = None) -> list[str]:
        """Greedy continuation of each prompt, sent as token ids (``CausalTokenization.generations``)."""
        batches = self._batches([list(p) for p in prompts])
        extra = {"stop": list(stop)} if stop else {}
        bodies = [{"model": self.name, "prompt": batch, "max_tokens": int(max_new_tokens), "temperature": 0, **extra}
                  for batch in batches]
        checks = [functools.partial(answers.texts, n=len(batch)) for batch in batches]
        out = [t for part in self._post_all("/completions", bodies, checks) for t in part]
        self.count("generate_calls", len(bodies))
        return [cut_at_stop(t, stop) for t in out]


class OpenAIChatScorer(_Remote):
    """Generation only, from ``/v1/chat/completions``. The answer prefix of chat messages is pre-filled in the
    assistant's turn where the server can continue a message (vLLM), else it ends the user's turn."""

    def __init__(self, name: str, endpoint: Endpoint, record: dict, batch_size=None):
        super().__init__(name, endpoint, record, batch_size)
        self.kind = "chat"
        self.max_length = None  # no local tokenizer counts the prompt: the server refuses one too long
        self.prefill = str(record.get("server", "")).startswith("vllm")

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "answer_prefix": "assistant prefill" if self.prefill else "end of user turn"}

    def generations(self, requests: Sequence[Generate], progress: bool = False) -> list[str]:
        bodies = [self._body(r) for r in requests]
        out = self._post_all("/chat/completions", bodies, [answers.chat_text] * len(bodies))
        self.count("generate_calls", len(bodies))
        return [cut_at_stop(text, r.stop) for text, r in zip(out, requests)]

    def _body(self, request: Generate) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.name, "max_tokens": int(request.max_tokens), "temperature": 0}
        prefix = request.answer_prefix
        if isinstance(request.prompt, str):
            messages = [{"role": "user", "content": request.prompt + prefix}]
        else:
            messages = [{"role": m.role, "content": m.content} for m in request.prompt]
            if prefix.strip() and self.prefill:
                messages.append({"role": "assistant", "content": prefix})
                body.update(continue_final_message=True, add_generation_prompt=False)
            elif prefix.strip():
                messages[-1] = {**messages[-1], "content": messages[-1]["content"] + "\n" + prefix}
        body["messages"] = messages
        if request.stop:
            body["stop"] = list(request.stop)
        return body
