"""Models behind an OpenAI-compatible endpoint (``--model http://HOST:PORT/v1``): vLLM, SGLang, APIs.

Two scorers, by what the server offers:

* ``OpenAICompletionsScorer`` (kind ``causal``): ``/v1/completions`` with prompt log-probabilities.
  Token ids, not text, are sent (``prompt: [ids]``, ``echo: true, logprobs: 1, max_tokens: 0``), so
  tokenisation is the local tokenizer's and a request is exactly the in-process scorer's
  (``CausalLMScorer.tokenize_pair`` is reused). Measured on vLLM 0.32 (CPU, SmolLM2 float32):
  ``echo`` and vLLM's ``prompt_logprobs`` extra give the log-probability of the actual prompt token,
  both within 2.3e-5 of transformers; ``echo`` is the portable one. The server's tokenizer is
  checked once against the local one (vLLM's ``/tokenize``, else the prompt-token count of a probe)
  and a mismatch is one line. Generation (ask-to-choose) sends token ids too, greedy.
* ``OpenAIChatScorer`` (kind ``chat``, or a server without ``/v1/completions``): ``/v1/chat/completions``
  only, so generation only; likelihood methods are refused before any request (``capabilities``).

Requests run ``concurrency`` at a time, ``batch_size`` prompts per request, each with a timeout and
retries (``http.Endpoint``). The benchmarks log each unit as it finishes (``ResumeLog``), so a server
that dies mid-run loses nothing: the run stops in one line and a rerun skips the logged units.
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from lexprobe.backends.http import Endpoint, api_key
from lexprobe.errors import ModelError
from lexprobe.scorers.base import Scorer
from lexprobe.scorers.causal import CausalTokenization, cut_at_stop

log = logging.getLogger(__name__)

#: ordinary text whose tokenisation both sides must agree on (with a word that splits, digits, a capital)
TOKENIZER_PROBE = "The dog's unbelievably quick runs, 1984 times: Zürich and the banks of rivers."
#: a chat-templated prompt for a chat endpoint: this marker, the messages as JSON, then the answer prefix
CHAT_MARK = "\u241echat-messages\u241f"


def load(reference: str, kind: str | None = None, batch_size: int | str | None = None,
         served_model: str | None = None, tokenizer: str | None = None, concurrency: int | None = None,
         request_timeout: float | None = None, device: str | None = None, dtype: str | None = None,
         attn: str | None = None, device_map: str | None = None, prefer: str | None = None, seed: int = 0,
         **options) -> Scorer:
    """The scorer of an endpoint, checked before any work: reachable, the model served, the tokenizer
    agreeing with the server's. ``device``/``dtype``/... are the server's business; set there, they are
    refused here rather than ignored."""
    for flag, value in (("--attn", attn), ("--device-map", device_map),
                        ("--dtype", None if dtype in (None, "float32") else dtype),
                        ("--device", None if device in (None, "auto") else device)):
        if value is not None:
            raise ModelError(f"{flag} {value} applies to models loaded here, not to an endpoint ({reference}): "
                             "set it where the model is served, and drop it here")
    if options:
        raise ModelError(f"options {', '.join(sorted(options))} do not apply to an endpoint ({reference})")
    endpoint = Endpoint(reference, api_key(), timeout=request_timeout or 120.0)
    listed = endpoint.get("/models", retries=1, timeout=min(endpoint.timeout, 20.0))
    models = [m for m in (listed or {}).get("data", []) if isinstance(m, dict) and m.get("id")]
    names = [m["id"] for m in models]
    if served_model is None:
        if len(names) != 1:
            raise ModelError(f"{reference} serves {len(names)} models ({', '.join(names[:5]) or 'none'}); "
                             "name one with --served-model")
        served_model = names[0]
    elif names and served_model not in names:
        raise ModelError(f"{reference} does not serve {served_model!r} (it serves {', '.join(names[:5])}); "
                         "fix --served-model")
    info = next((m for m in models if m["id"] == served_model), {"id": served_model})
    version = endpoint.get(f"{endpoint.root}/version", retries=0, missing_ok=True) \
        if endpoint.root != endpoint.base else None
    server = f"vllm {version['version']}" if isinstance(version, dict) and version.get("version") else \
        str(info.get("owned_by") or "unknown")
    record = {"backend": "openai", "endpoint": endpoint.base, "served_model": served_model, "server": server,
              "model_root": info.get("root"), "max_model_len": info.get("max_model_len")}
    if kind == "chat":
        return OpenAIChatScorer(served_model, endpoint, record, batch_size=batch_size, concurrency=concurrency)
    tok = _local_tokenizer(tokenizer, info, reference)
    scorer = OpenAICompletionsScorer(served_model, endpoint, record, tok, batch_size=batch_size,
                                     concurrency=concurrency)
    scorer.check_tokenizer(tokenizer or str(info.get("root") or served_model))
    return scorer


def _local_tokenizer(name: str | None, info: dict, reference: str):
    """``--tokenizer``, else the served model's root where it is a folder here, else its name (a hub id)."""
    from transformers import AutoTokenizer

    root = info.get("root")
    candidates = [name] if name else [c for c in (root, info.get("id")) if c]
    if not name and root and not Path(str(root)).is_dir() and info.get("id") and Path(str(info["id"])).is_dir():
        candidates = [info["id"]]
    errors = []
    for c in candidates:
        try:
            tok = AutoTokenizer.from_pretrained(str(c), use_fast=True, trust_remote_code=False)
        except (OSError, ValueError) as err:
            errors.append(f"{c}: {str(err).splitlines()[0][:120]}")
            continue
        return tok
    raise ModelError(f"cannot load a tokenizer for {reference} ({'; '.join(errors) or 'the server names none'}); "
                     "pass --tokenizer NAME_OR_PATH with the served model's tokenizer")


class _Remote(Scorer):
    """What both endpoint scorers share: the endpoint, the record, the thread pool."""

    default_batch_size = 8  # prompts per HTTP request

    def __init__(self, name: str, endpoint: Endpoint, record: dict, batch_size=None, concurrency: int | None = None):
        super().__init__(name)
        self.endpoint = endpoint
        self.path = endpoint.base
        self.backend_record = record
        self.batch_size = batch_size  # an int; auto: the default (the server batches as it likes)
        self.concurrency = int(concurrency or 8)
        self.revision = f"{record['server']}:{name}"
        self.max_length = record.get("max_model_len") if isinstance(record.get("max_model_len"), int) else None

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "backend": "openai", "endpoint": self.endpoint.base,
                "served_model": self.name, "server": self.backend_record.get("server")}

    def _map(self, fn, jobs: list) -> list:
        """``fn`` over ``jobs`` with ``concurrency`` requests in flight, results in order."""
        if len(jobs) <= 1 or self.concurrency == 1:
            out = [fn(j) for j in jobs]
        else:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(jobs))) as pool:
                out = list(pool.map(fn, jobs))
        self.stats["retried_requests"] = self.endpoint.retried
        return out

    def _batches(self, items: list) -> list[list]:
        size = max(1, int(self.batch_size))
        return [items[i:i + size] for i in range(0, len(items), size)]


class OpenAICompletionsScorer(_Remote, CausalTokenization):
    """Token log-probabilities and generation from ``/v1/completions`` (``TokenLogprobs``, ``Generation``);
    tokenised as the in-process scorer tokenises (``CausalTokenization``), so both send the same token ids."""

    def __init__(self, name: str, endpoint: Endpoint, record: dict, tokenizer, batch_size=None,
                 concurrency: int | None = None):
        super().__init__(name, endpoint, record, batch_size, concurrency)
        self.kind = "causal"
        self.tokenizer = tokenizer
        fallback = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else fallback
        self.prefix_id = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else fallback
        if self.max_length is None:
            limit = getattr(tokenizer, "model_max_length", None)
            self.max_length = limit if isinstance(limit, int) and 0 < limit < 10**6 else None

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "tokenizer": self.backend_record.get("tokenizer")}

    def continuation_logprobs(self, requests: Sequence[tuple[str, str]], progress: bool = False) -> list[np.ndarray]:
        """Per-token log-probabilities of each continuation given its context (text pairs)."""
        return self.token_logprobs([self.split(c, x) for c, x in requests], progress=progress)

    def check_tokenizer(self, tokenizer_name: str) -> None:
        """The server tokenises as the local tokenizer does, or one line before any work."""
        self.backend_record["tokenizer"] = tokenizer_name
        local: object = list(self.tokenizer(TOKENIZER_PROBE, add_special_tokens=True)["input_ids"])
        answer = self.endpoint.post(f"{self.endpoint.root}/tokenize",
                                    {"model": self.name, "prompt": TOKENIZER_PROBE, "add_special_tokens": True},
                                    retries=1, missing_ok=True) if self.endpoint.root != self.endpoint.base else None
        remote: object
        if isinstance(answer, dict) and "tokens" in answer:
            remote, how = list(answer["tokens"]), "/tokenize"
        else:  # no /tokenize: the number of prompt tokens the server counts for the probe text
            probe = self.endpoint.post("/completions", {"model": self.name, "prompt": TOKENIZER_PROBE,
                                                        "max_tokens": 1, "temperature": 0}, retries=1)
            remote, how = (probe.get("usage") or {}).get("prompt_tokens"), "its prompt-token count"
            local = len(local)  # type: ignore[arg-type]
        self.backend_record["tokenizer_check"] = how
        if remote != local:
            raise ModelError(f"the tokenizer {tokenizer_name!r} does not tokenise as {self.endpoint.base} does "
                             f"(checked with {how}); pass --tokenizer with the served model's tokenizer")

    def token_logprobs(self, requests: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
                       progress: bool = False) -> list[np.ndarray]:
        """Per-token log-probabilities of each continuation: the server's log P of the prompt's tokens
        (``echo``), for the continuation's positions. Identical requests are asked once."""
        if not requests:
            return []
        unique = list(dict.fromkeys((tuple(c), tuple(x)) for c, x in requests))
        self.count("remote_requests", len(unique))
        self.count("remote_tokens", sum(len(c) + len(x) for c, x in unique))

        def ask(batch: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> list[np.ndarray]:
            answer = self.endpoint.post("/completions", {
                "model": self.name, "prompt": [list(c + x) for c, x in batch], "echo": True, "logprobs": 1,
                "max_tokens": 0, "temperature": 0})
            choices = sorted(answer.get("choices") or [], key=lambda ch: ch.get("index", 0))
            if len(choices) != len(batch):
                raise ModelError(f"{self.endpoint.base} answered {len(choices)} choices for {len(batch)} prompts; "
                                 "the server does not take a batch of token-id prompts: use --batch-size 1")
            out = []
            for (ctx, cont), ch in zip(batch, choices):
                lps = (ch.get("logprobs") or {}).get("token_logprobs")
                if not lps or len(lps) < len(ctx) + len(cont) or any(v is None for v in lps[len(ctx):]):
                    raise ModelError(f"{self.endpoint.base} gives no prompt log-probabilities (echo with logprobs); "
                                     "likelihood methods need them: serve the model with vLLM or SGLang, or use "
                                     "--kind chat and --method choose --reading generation")
                out.append(np.asarray(lps[len(ctx):len(ctx) + len(cont)], dtype=np.float64))
            self.count("remote_calls")
            return out

        scored = [lp for part in self._map(ask, self._batches(unique)) for lp in part]
        by_request = dict(zip(unique, scored))
        return [by_request[(tuple(c), tuple(x))].copy() for c, x in requests]

    def generate(self, prompts: Sequence[str], max_new_tokens: int, stop: Sequence[str] | None = None,
                 templated: bool = False) -> list[str]:
        """Greedy continuation of each prompt, sent as token ids (``templated``: no special tokens added)."""
        ids = [list(self.tokenizer(p, add_special_tokens=not templated)["input_ids"]) for p in prompts]

        def ask(batch: list[list[int]]) -> list[str]:
            body = {"model": self.name, "prompt": batch, "max_tokens": int(max_new_tokens), "temperature": 0}
            if stop:
                body["stop"] = list(stop)
            answer = self.endpoint.post("/completions", body)
            choices = sorted(answer.get("choices") or [], key=lambda ch: ch.get("index", 0))
            self.count("generate_calls")
            return [cut_at_stop(ch.get("text") or "", stop) for ch in choices]

        return [t for part in self._map(ask, self._batches(ids)) for t in part]


class ChatWire:
    """The ``tokenizer`` a chat endpoint's scorer shows the prompt builders: the chat template is the
    server's, so "applying" it keeps the messages (as JSON after ``CHAT_MARK``) for ``generate`` to send."""

    chat_template = "(applied by the server)"

    def apply_chat_template(self, messages, tokenize: bool = False, add_generation_prompt: bool = True) -> str:
        return CHAT_MARK + json.dumps(list(messages), ensure_ascii=False)


def chat_messages(prompt: str) -> tuple[list[dict], str]:
    """(messages, answer prefix) of a prompt: a ``ChatWire`` prompt, or plain text as one user message."""
    if not prompt.startswith(CHAT_MARK):
        return [{"role": "user", "content": prompt}], ""
    messages, end = json.JSONDecoder().raw_decode(prompt, len(CHAT_MARK))
    return messages, prompt[end:]


class OpenAIChatScorer(_Remote):
    """Generation only, from ``/v1/chat/completions`` (``Generation``): API chat models.

    With ``--chat`` the answer prefix of a template (e.g. ``Answer:``) is pre-filled in the assistant's
    turn where the server can continue a message (vLLM's ``continue_final_message``); elsewhere it ends
    the user's turn. ``describe`` records which (``answer_prefix``)."""

    def __init__(self, name: str, endpoint: Endpoint, record: dict, batch_size=None, concurrency: int | None = None):
        super().__init__(name, endpoint, record, batch_size, concurrency)
        self.kind = "chat"
        self.tokenizer = ChatWire()
        self.max_length = None  # no local tokenizer counts the prompt: the server refuses one too long
        self.prefill = str(record.get("server", "")).startswith("vllm")

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "answer_prefix": "assistant prefill" if self.prefill else "end of user turn"}

    def generate(self, prompts: Sequence[str], max_new_tokens: int, stop: Sequence[str] | None = None,
                 templated: bool = False) -> list[str]:
        def ask(prompt: str) -> str:
            messages, prefix = chat_messages(prompt)
            body: dict[str, Any] = {"model": self.name, "max_tokens": int(max_new_tokens), "temperature": 0}
            if prefix.strip() and self.prefill:
                messages = messages + [{"role": "assistant", "content": prefix}]
                body.update(continue_final_message=True, add_generation_prompt=False)
            elif prefix.strip():
                messages = messages[:-1] + [{**messages[-1], "content": messages[-1]["content"] + "\n" + prefix}]
            body["messages"] = messages
            if stop:
                body["stop"] = list(stop)
            answer = self.endpoint.post("/chat/completions", body)
            self.count("generate_calls")
            choice = (answer.get("choices") or [{}])[0]
            return cut_at_stop(str((choice.get("message") or {}).get("content") or ""), stop)

        return self._map(ask, list(prompts))
