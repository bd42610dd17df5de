"""Where a model runs: one registry of backends (after lm-evaluation-harness's ``@register_model``).

A backend turns a ``--model`` reference into a scorer. Each declares how it recognises the
references it takes (``detect``), the kinds of scorer it makes (``--kind``; the CLI's list of
kinds is the union), what it can run, in words, and where its loader lives (imported only
when used, so ``lexprobe --help`` and the resume keys stay torch-free). ``load_scorer`` is a
lookup here; what a scorer can do is asked through ``scorers.capabilities``, never through its
kind or backend.

Each backend also names the model options it takes (``takes``: names declared once in
``backends.options``, with their CLI flags and checkers); ``Backend.load`` checks the options given
against them first (``options.check_options``), for the CLI and Python callers alike, so a refusal
names the flag, the backends that take it and the one that does not.

Adding a backend: one module with ``load(reference, **options) -> scorer`` and one
``register_backend`` line below (docs/ARCHITECTURE.md; ``tests/backends/test_registry.py``
registers a stand-in and runs every benchmark method it offers). The first backend, in
``order``, whose ``detect`` accepts a reference takes it; ``transformers`` takes the rest.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from lexprobe.errors import ModelError


@dataclass(frozen=True)
class Backend:
    name: str
    #: ``"module:function"``: ``function(reference, kind=..., device=..., ..., **options) -> scorer``
    loader: str
    #: does a ``--model`` reference name this backend?
    detect: Callable[[str], bool]
    #: the kinds of scorer it makes (``--kind``); the first is the default where detection does not decide
    kinds: tuple[str, ...]
    #: what it can and cannot run, in words (``lexprobe models``-style listings, docs, errors)
    offers: str
    #: lower first; the catch-all backend comes last
    order: int = 50
    #: the model options it takes besides the common ones (names in ``backends.options.MODEL_OPTIONS``)
    takes: frozenset[str] = frozenset()
    #: one model it runs, as a refusal names it ("a model run by vLLM in this process")
    label: str = ""
    #: the form of its ``--model`` references, as a refusal shows them ("vllm:PATH")
    form: str = "..."
    #: what a refusal of another backend's option tells its user to do
    foreign_hint: str = "drop it"

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", f"a {self.name} model")

    def check(self, reference: str, kind: str | None = None, **options) -> dict[str, Any]:
        """The options this backend gets for ``reference``, checked (``options.check_options``; no loading)."""
        from lexprobe.backends.options import check_options

        return check_options(self, reference, kind, options, backends())

    def load(self, reference: str, kind: str | None = None, **options) -> Any:
        """The scorer of ``reference``, once every option given is checked (``check``)."""
        checked = self.check(reference, kind, **options)
        module, _, function = self.loader.partition(":")
        return getattr(importlib.import_module(module), function)(reference, kind=kind, **checked)


_REGISTRY: dict[str, Backend] = {}


def register_backend(backend: Backend) -> Backend:
    """Add (or replace, by name) a backend; returns it."""
    _REGISTRY[backend.name] = backend
    return backend


def unregister_backend(name: str) -> None:
    _REGISTRY.pop(name, None)


def backends() -> list[Backend]:
    return sorted(_REGISTRY.values(), key=lambda b: (b.order, b.name))


def backend_for(reference: str) -> Backend:
    for backend in backends():
        if backend.detect(str(reference)):
            return backend
    raise ModelError(f"no backend takes --model {reference!r}")  # pragma: no cover (transformers takes all)


def kinds() -> tuple[str, ...]:
    """Every ``--kind`` some backend makes (the catch-all's first: the order ``--help`` always showed)."""
    out: list[str] = []
    for backend in reversed(backends()):
        out += [k for k in backend.kinds if k not in out]
    return tuple(out)


def is_endpoint(reference: str) -> bool:
    """An http(s) URL (surrounding whitespace too: the endpoint backend refuses it in one line)."""
    return str(reference).strip().lower().startswith(("http://", "https://"))


def is_vllm(reference: str) -> bool:
    return str(reference).startswith("vllm:")


# ---------------------------------------------------------------- the registry: one line per backend
register_backend(Backend(
    "openai", "lexprobe.backends.openai_api:load", is_endpoint, ("causal", "chat"), order=10,
    offers="an OpenAI-compatible server (vLLM, SGLang, ...): with /v1/completions prompt log-probabilities, "
           "every causal-LM method and ask-to-choose; a chat-only endpoint (--kind chat): ask-to-choose by "
           "generation only",
    takes=frozenset({"served_model", "tokenizer", "concurrency", "request_timeout", "served_dtype"}),
    label="an OpenAI-compatible endpoint", form="http://HOST:PORT/v1",
    foreign_hint="set it where the model is served, and drop it here"))
register_backend(Backend(
    "vllm", "lexprobe.backends.vllm_local:load", is_vllm, ("causal",), order=20,
    offers="vLLM in this process (--model vllm:PATH): every causal-LM method and ask-to-choose",
    takes=frozenset({"device", "dtype", "tokenizer", "tensor_parallel_size"}),
    label="a model run by vLLM in this process", form="vllm:PATH"))
register_backend(Backend(
    "transformers", "lexprobe.models:load_transformers", lambda reference: True,
    ("masked", "causal", "embedding", "static", "token", "random"), order=100,
    offers="models loaded in this process with transformers / sentence-transformers (safetensors or GGUF), "
           "static vectors and the random baseline: every method of their kind",
    takes=frozenset({"device", "dtype", "attn", "device_map"}),
    label="a model loaded here with transformers", form="NAME_OR_PATH"))
