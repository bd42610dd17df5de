"""A backend that serves only ``Continuation``: each whitespace word of a continuation is a "token" whose
log-probability is minus its length over ten, so scores are known by hand; ``limit`` words of context +
continuation fit (longer: the context's start is cut; a continuation over the limit is too long; ``max_tokens``
scores the first words, fitted with the whole continuation, as ``asking.requests.Continuation`` says). A context
of chat messages counts their words (a chat model's template is the backend's business), the answer prefix
and the ``given`` text count as context (fed, not scored)."""

from __future__ import annotations

import numpy as np

from lexprobe.asking.requests import Fit


def words(request) -> int:
    """Words before the scored continuation: the context (each message's), the answer prefix, ``given``."""
    texts = [request.context] if isinstance(request.context, str) else [m.content for m in request.context]
    return sum(len(t.split()) for t in texts + [request.answer_prefix, request.given])


class ContinuationOnly:
    name = "continuation-only"
    kind = "stand-in"

    def __init__(self, limit: int | None = None):
        self.limit = limit
        self.asked: list = []

    @staticmethod
    def logprobs(continuation: str, max_tokens: int | None = None) -> np.ndarray:
        return np.array([-len(w) / 10 for w in continuation.split()[:max_tokens]], dtype=np.float64)

    def fit_continuations(self, requests):
        out = []
        for r in requests:
            n_ctx, n_cont = words(r), len(r.continuation.split())  # fitted with the whole continuation
            if self.limit is not None and n_cont >= self.limit:
                out.append(Fit(too_long=f"a continuation of {n_cont} words does not fit {self.limit}"))
            else:
                out.append(Fit(cut=self.limit is not None and n_ctx + n_cont > self.limit))
        return out

    def continuations(self, requests, progress=False):
        self.asked += list(requests)
        return [self.logprobs(r.continuation, r.max_tokens) for r in requests]
