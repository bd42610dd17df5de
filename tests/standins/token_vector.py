"""A backend that serves only ``TokenVector``: a word's vector counts its letters (a-z), plus a tenth of the letters
of the sentence around it (its "context": two uses of a word in different sentences differ), so cosines are known
by hand; a word without a letter has no vector (None: "its subwords were not found")."""

from __future__ import annotations

import numpy as np


def letters(text: str) -> np.ndarray:
    v = np.zeros(26, dtype=np.float32)
    for ch in text.lower():
        if "a" <= ch <= "z":
            v[ord(ch) - ord("a")] += 1
    return v


class TokenVectorOnly:
    name = "token-vector-only"
    kind = "stand-in"

    def __init__(self):
        self.calls: list[int] = []  #: requests per call

    @staticmethod
    def vector(words, index: int) -> np.ndarray | None:
        own = letters(words[index])
        return own + letters(" ".join(words)) / 10 if own.any() else None

    def token_vectors(self, requests, progress=False):
        self.calls.append(len(requests))
        return [self.vector(r.words, r.index) for r in requests]
