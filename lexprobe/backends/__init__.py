"""Where a model runs: one registry of backends (after lm-evaluation-harness's ``@register_model``).

A backend turns a ``--model`` reference into a scorer: it declares the references it takes (``detect``;
the first in ``order`` that accepts one takes it, ``transformers`` the rest), the kinds of scorer it makes,
the model options it takes (``backends.options``) and a loader whose heavy imports happen only when it runs,
so ``lexprobe --help`` stays torch-free. ``lexprobe.models`` registers the shipped backends; adding one is a
module with ``load(reference, **options) -> scorer`` and one ``register_backend`` line there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from lexprobe.backends.options import check_options
from lexprobe.errors import ModelError


@dataclass(frozen=True)
class Backend:
    name: str
    #: ``loader(reference, kind=..., device=..., ..., **options) -> scorer`` (its heavy imports inside it)
    loader: Callable[..., Any]
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
    #: ((option name, value), why): values of options it takes that it cannot honour (an endpoint's
    #: ``--batch-size auto``)
    refuses: tuple[tuple[tuple[str, Any], str], ...] = ()

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", f"a {self.name} model")

    def check(self, reference: str, kind: str | None = None, parsed: bool = False, **options) -> dict[str, Any]:
        """The options this backend gets for ``reference``, checked (``options.check_options``; no loading)."""
        return check_options(self, reference, kind, options, backends(), parsed)

    def load(self, reference: str, kind: str | None = None, **checked) -> Any:
        """The scorer of ``reference`` from options ``check`` returned."""
        return self.loader(reference, kind=kind, **checked)


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
    if not _REGISTRY:  # a caller below lexprobe.models, before it was imported
        raise ModelError("no backend is registered in this process: import lexprobe.models first (it registers "
                         "lexprobe's backends)")
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


def is_llamacpp(reference: str) -> bool:
    return str(reference).startswith("llamacpp:")
