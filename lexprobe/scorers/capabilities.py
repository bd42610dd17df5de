"""What a scorer can do, as structural ``typing.Protocol``s (after MTEB's model protocols).

A method names the capabilities it can use (``Method.requires``); ``require`` checks a scorer where it
enters a benchmark and names what is missing in one line, ``strategy`` picks from a ``{capability: fn}``
table. A scorer offers a capability by having its methods, whatever its class.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from lexprobe.errors import CapabilityError


@runtime_checkable
class TokenLogprobs(Protocol):
    """Causal LMs: log-probabilities of continuation tokens after a context."""

    def token_logprobs(self, requests: Sequence[tuple], progress: bool = False) -> list: ...

    def continuation_logprobs(self, requests: Sequence[tuple[str, str]], progress: bool = False) -> list: ...


@runtime_checkable
class SlotLogprobs(Protocol):
    """Masked LMs: log-probabilities of a word's tokens in masked slots."""

    def slot_logprobs(self, requests: Sequence[Any], progress: bool = False) -> list: ...


@runtime_checkable
class SentenceEmbeddings(Protocol):
    """Sentence-embedding models and static vectors: one (normalised) vector per text."""

    def encode(self, texts: Sequence[str], progress: bool = False) -> Any: ...


@runtime_checkable
class TokenEmbeddings(Protocol):
    """Contextual vectors of target words in sentences (sense ranking)."""

    def embed(self, instances: Sequence[Any], progress: bool = True) -> Any: ...


@runtime_checkable
class Generation(Protocol):
    """Models that serve ``core.requests.Generate`` (in process, an endpoint, a chat API)."""

    def generations(self, requests: Sequence[Any], progress: bool = False) -> list[str]: ...


@runtime_checkable
class RandomScores(Protocol):
    """The random baseline: seeded scores per key."""

    def scores(self, key: str, n: int) -> Any: ...


NAMES: dict[type, str] = {TokenLogprobs: "token log-probabilities (a causal LM)",
                          SlotLogprobs: "slot log-probabilities (a masked LM)",
                          SentenceEmbeddings: "sentence embeddings", TokenEmbeddings: "token embeddings",
                          Generation: "generation (a causal LM)", RandomScores: "random scores"}


def offers(scorer: Any) -> list[type]:  # noqa: D103
    return [cap for cap in NAMES if isinstance(scorer, cap)]


def require(scorer: Any, capabilities: Sequence[type], what: str) -> None:
    """One-line ``ModelError`` unless ``scorer`` offers one of ``capabilities``."""
    if not capabilities or any(isinstance(scorer, cap) for cap in capabilities):
        return
    has = ", ".join(NAMES[c] for c in offers(scorer)) or "none of them"
    if getattr(scorer, "kind", "") == "static":  # its "sentence embeddings" are averaged word vectors
        has = "only static word vectors (a text is their average; no word in context)"
    needs = " or ".join(NAMES[c] for c in capabilities)
    raise CapabilityError(f"{what} needs {needs}; model {getattr(scorer, 'name', scorer)!r} offers {has}: choose "
                          "another model, --kind or --method", needs=needs, offers=has)


def strategy(table: Mapping[Any, Callable[..., Any]], scorer: Any, what: str) -> Callable[..., Any]:
    """The first strategy of ``table`` (in its order) whose capability ``scorer`` offers."""
    for cap, fn in table.items():
        if isinstance(scorer, cap):
            return fn
    require(scorer, list(table), what)
    raise AssertionError("unreachable")  # pragma: no cover
