"""Embedding scorers: a text becomes one unit vector; a match score is a cosine.

Two sources: a sentence-transformers model (the bundled all-MiniLM-L6-v2 by default)
and static word vectors (fastText ``.vec`` text or word2vec ``.bin``), where a text
is the average of its words' vectors, as in the WDLMPro and CoDA21 fastText baselines.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from lexprobe.errors import DataError
from lexprobe.scorers.base import Scorer

_WORD_RE = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]", re.UNICODE)


def word_tokenize(text: str) -> list[str]:
    """Treebank-like word tokens without NLTK's punkt data (words, inner hyphens, punctuation)."""
    return _WORD_RE.findall(text)


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


class EmbeddingScorer(Scorer):
    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        raise NotImplementedError


class SentenceEmbeddingScorer(EmbeddingScorer):
    def __init__(self, name: str, model, batch_size: int = 64):
        super().__init__(name)
        self.kind = "embedding"
        self.model = model
        self.batch_size = batch_size
        self.tokenizer = getattr(model, "tokenizer", None)

    @classmethod
    def load(cls, name: str, path: str, device: torch.device, batch_size: int = 64):
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(path, device=str(device), trust_remote_code=False)
        return cls(name, model, batch_size=batch_size)

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.model.get_sentence_embedding_dimension()), dtype=np.float32)
        vecs = self.model.encode(
            list(texts), batch_size=self.batch_size, convert_to_numpy=True,
            normalize_embeddings=True, show_progress_bar=progress,
        )
        self.count("texts_encoded", len(texts))
        return vecs.astype(np.float32)


class StaticVectorsScorer(EmbeddingScorer):
    def __init__(self, name: str, vectors: dict[str, np.ndarray], dim: int, lowercase_fallback: bool = True):
        super().__init__(name)
        self.kind = "static"
        self.vectors = vectors
        self.dim = dim
        self.lowercase_fallback = lowercase_fallback

    @classmethod
    def load(cls, path: str | Path, name: str | None = None, limit: int | None = None):
        path = Path(path)
        if not path.is_file():
            raise DataError(f"static vectors file not found: {path}; pass a .vec (text) or .bin (word2vec) file")
        loader = _read_word2vec_bin if path.suffix == ".bin" else _read_vec_text
        vectors, dim = loader(path, limit)
        if not vectors:
            raise DataError(f"no vectors read from {path}; is it a fastText .vec or word2vec .bin file?")
        return cls(name or path.name, vectors, dim)

    def _vector(self, word: str):
        v = self.vectors.get(word)
        if v is None and self.lowercase_fallback:
            v = self.vectors.get(word.lower())
        return v

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            found = [v for w in word_tokenize(text) if (v := self._vector(w)) is not None]
            if found:
                out[i] = np.mean(found, axis=0)
        self.count("texts_encoded", len(texts))
        return _normalise(out)


def _read_vec_text(path: Path, limit: int | None):
    vectors: dict[str, np.ndarray] = {}
    dim = None
    with path.open(encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip().split(" ")
            if lineno == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                dim = int(parts[1])  # fastText header: count dim
                continue
            if len(parts) < 2:
                continue
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise DataError(f"{path}:{lineno}: expected {dim} numbers after the word, got {len(parts) - 1}")
            try:
                vectors[parts[0]] = np.asarray(parts[1:], dtype=np.float32)
            except ValueError:
                raise DataError(f"{path}:{lineno}: not a vector line") from None
            if limit and len(vectors) >= limit:
                break
    return vectors, dim or 0


def _read_word2vec_bin(path: Path, limit: int | None):
    vectors: dict[str, np.ndarray] = {}
    with path.open("rb") as f:
        header = f.readline().split()
        if len(header) != 2:
            raise DataError(f"{path}: not a word2vec binary file (header should be 'count dim')")
        count, dim = int(header[0]), int(header[1])
        for _ in range(count if not limit else min(count, limit)):
            word = bytearray()
            while (ch := f.read(1)) not in (b" ", b""):
                if ch != b"\n":
                    word.extend(ch)
            data = f.read(4 * dim)
            if len(data) < 4 * dim:
                raise DataError(f"{path}: file ends inside a vector; is it truncated?")
            vectors[word.decode("utf-8", errors="replace")] = np.frombuffer(data, dtype=np.float32).copy()
    return vectors, dim
