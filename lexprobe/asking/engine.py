"""The engine: resolves a method's requests (``asking.requests``) on the run's backend.

De-duplication, fitting, cost estimates, memoised answers and the capability check were once written
per benchmark, each a little differently; here they are done once for every request type:
``require`` (the first alternative of request types the backend serves, or one line before any work),
``fit`` (the backend's ``fit_<serve>``), ``__call__`` (answers in order, identical requests asked once and
memoised across calls: a method's chunks share requests), ``counts`` (what a result's ``counts`` say) and
``costs`` (tokens per text, what ``distributed.run_units`` deals by). The memo never changes an answer: a
backend's answer does not depend on what else is asked with it (tests check every request type).
"""

from __future__ import annotations

from typing import Any, Sequence

from lexprobe.asking.requests import FITS, REQUEST_TYPES, Fit, Request
from lexprobe.errors import CapabilityError, ModelError

#: bytes of answers kept for reuse; past this, the older half is dropped (a memo, not a store)
MEMO_BYTES = 256 << 20


def serves(backend: Any, kind: type[Request]) -> bool:
    """Does ``backend`` serve requests of type ``kind`` (has a callable ``kind.serve``)?"""
    return callable(getattr(backend, kind.serve, None))


def served(backend: Any) -> list[type[Request]]:
    """Every request type ``backend`` serves, in ``REQUEST_TYPES`` order."""
    return [kind for kind in REQUEST_TYPES if serves(backend, kind)]


def describe_served(backend: Any) -> str:
    kinds = served(backend)
    if getattr(backend, "kind", "") == "static":  # its text embeddings are averaged word vectors
        return "only static word vectors (a text is their average; no word in context)"
    return ", ".join(k.what for k in kinds) or "no request type lexprobe asks"


def require(backend: Any, alternatives: Sequence[tuple[type[Request], ...]], what: str) -> tuple[type[Request], ...]:
    """The first of ``alternatives`` whose request types ``backend`` all serves; otherwise one line naming what
    ``what`` needs and what the backend serves (a ``CapabilityError``: ``lexprobe run`` skips such a part)."""
    for option in alternatives:
        if all(serves(backend, kind) for kind in option):
            return option
    needs = " or ".join(" and ".join(k.what for k in option) for option in alternatives)
    offers = describe_served(backend)
    raise CapabilityError(f"{what} needs {needs}; model {getattr(backend, 'name', backend)!r} offers "
                          f"{offers}: choose another model, --kind or --method", needs=needs, offers=offers)


class Engine:
    """One run's requests on one backend (a scorer: in process, a server, the random baseline)."""

    def __init__(self, backend: Any, progress: bool = False):
        self.backend = backend
        self.progress = progress
        self._memo: dict[Any, Any] = {}
        self._memo_bytes = 0
        self.asked = 0  #: requests asked, repeats included
        self.scored = 0  #: requests the backend answered (the rest came from the memo or repeats)

    @property
    def name(self) -> str:
        return str(getattr(self.backend, "name", self.backend))

    def serves(self, kind: type[Request]) -> bool:
        return serves(self.backend, kind)

    def fresh(self) -> "Engine":
        """An engine on the same backend with an empty memo (answers that go to a store, not to be asked again)."""
        return Engine(self.backend, self.progress)

    def require(self, alternatives: Sequence[tuple[type[Request], ...]], what: str) -> tuple[type[Request], ...]:
        return require(self.backend, alternatives, what)

    def fit(self, requests: Sequence[Any]) -> list[Fit]:
        """How each request fits the backend's input, in order (one ``fit_<serve>`` call per request type)."""
        out: list[Fit] = [FITS] * len(requests)
        for kind, where in _by_type(requests).items():
            fit = getattr(self.backend, f"fit_{kind.serve}", None)
            if fit is None:
                continue
            unique = list(dict.fromkeys(requests[i] for i in where))
            fits = dict(zip(unique, fit(unique)))
            for i in where:
                out[i] = fits[requests[i]]
        return out

    def __call__(self, requests: Sequence[Any], progress: bool | None = None) -> list[Any]:
        """The answers to ``requests``, in order."""
        self.asked += len(requests)
        out: list[Any] = [None] * len(requests)
        for kind, where in _by_type(requests).items():
            if not self.serves(kind):
                raise ModelError(f"model {self.name!r} does not serve {kind.what} ({kind.__name__} requests)")
            todo = [r for r in dict.fromkeys(requests[i] for i in where) if r not in self._memo]
            if todo:
                answers = getattr(self.backend, kind.serve)(todo, progress=self.progress if progress is None
                                                           else progress)
                if len(answers) != len(todo):
                    raise ModelError(f"model {self.name!r} answered {len(answers)} of {len(todo)} "
                                     f"{kind.__name__} requests")
                self.scored += len(todo)
                self._remember(dict(zip(todo, answers)))
            for i in where:
                out[i] = self._memo[requests[i]]
        return out

    def _remember(self, answers: dict) -> None:
        self._memo.update(answers)
        self._memo_bytes += sum(_size(a) for a in answers.values())
        if self._memo_bytes > MEMO_BYTES:  # the answers just made stay: the caller reads them next
            drop = [k for k in list(self._memo)[: len(self._memo) // 2] if k not in answers]
            for k in drop:
                self._memo_bytes -= _size(self._memo.pop(k))

    def counts(self, requests: Sequence[Any]) -> dict[str, int]:
        """What the backend counts of these requests, each distinct one once (its ``counts_<serve>``: static
        vectors' coverage, texts a sentence encoder cuts); {} where it counts nothing."""
        out: dict[str, int] = {}
        for kind, where in _by_type(requests).items():
            count = getattr(self.backend, f"counts_{kind.serve}", None)
            if count is not None:
                out.update(count(list(dict.fromkeys(requests[i] for i in where))))
        return out

    def costs(self, texts: Sequence[str]) -> list[int]:
        """Tokens per text with the backend's tokenizer (whitespace words when it has none)."""
        from lexprobe.distributed import token_counts

        return token_counts(self.backend, texts)

    def stats(self) -> dict[str, int]:
        return {"requests": self.asked, "requests_scored": self.scored}


def as_engine(engine_or_backend: Any) -> Engine:
    """An ``Engine`` as given, or one for a backend (functions that scripts and tests call with a scorer)."""
    return engine_or_backend if isinstance(engine_or_backend, Engine) else Engine(engine_or_backend)


def _size(answer: Any) -> int:
    """Bytes an answer holds (an array's buffer, a text's characters; 64 for anything else)."""
    return int(getattr(answer, "nbytes", 0) or (len(answer) if isinstance(answer, str) else 64))


def _by_type(requests: Sequence[Any]) -> dict[type[Request], list[int]]:
    groups: dict[type[Request], list[int]] = {}
    for i, r in enumerate(requests):
        if not isinstance(r, Request):
            raise TypeError(f"not a request: {r!r}")
        groups.setdefault(type(r), []).append(i)
    return groups
