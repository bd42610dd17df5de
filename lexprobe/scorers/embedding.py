"""Embedding scorers: a text becomes one unit vector; a match score is a cosine.

Two sources: a sentence-transformers model, and static word vectors (fastText ``.vec``, word2vec
``.bin``, packaged ``glove-6b-50d``) where a text is the average of its words' vectors, as the WDLMPro
and CoDA21 authors' code does (definition_benchmark ``W2D/evaluate_with_word_embeddings.py:69-88``,
CoDA21 ``Evaluation/aligner.py:273-292``): every ``nltk.word_tokenize`` token looked up as it is, tokens
without a vector skipped. An uncased vocabulary (GloVe 6B) is looked up lower-cased. The word tokenizer
runs without punkt's sentence split (data NLTK downloads), which differs only where a text has a
sentence-internal full stop (docs/wdlmpro.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from lexprobe.asking.requests import Fit
from lexprobe.errors import DataError, ModelError
from lexprobe.scorers.base import Scorer


def word_tokenize(text: str) -> list[str]:
    """NLTK's word tokenizer (the Treebank-style one inside ``nltk.word_tokenize``), no punkt data needed."""
    from nltk.tokenize import word_tokenize as nltk_word_tokenize

    return nltk_word_tokenize(text, preserve_line=True)


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


class EmbeddingScorer(Scorer):
    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        raise NotImplementedError

    def embeddings(self, requests: Sequence[Any], progress: bool = False) -> list[np.ndarray]:
        """``asking.requests.Embed``: each text's vector (``encode``, which memoises and batches)."""
        return list(self.encode([r.text for r in requests], progress=progress))


class SentenceEmbeddingScorer(EmbeddingScorer):
    default_batch_size = 64

    def __init__(self, name: str, model, batch_size: int | str | None = None):
        super().__init__(name)
        self.kind = "embedding"
        self.model = model
        self.batch_size = batch_size
        self.tokenizer = getattr(model, "tokenizer", None)
        self.max_length = getattr(model, "max_seq_length", None)
        #: bytes of vectors kept for texts seen again (0: none), oldest out: WDLMPro's chunks ask for the same
        #: texts again and again (1.65M texts, 107k distinct)
        self.memo_bytes = 1 << 29
        self._memo: dict[str, np.ndarray] = {}
        self._memo_size = 0

    @classmethod
    def load(cls, name: str, path: str, device: torch.device, batch_size: int | str | None = None):
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(path, device=str(device), trust_remote_code=False)
        tokenizer = getattr(model, "tokenizer", None)
        if tokenizer is not None and getattr(tokenizer, "pad_token", "") is None:
            # a causal LM as a sentence encoder (GPT-2 has no pad token): pad with its end token; mean pooling
            # reads the attention mask, so padding never enters an embedding
            if tokenizer.eos_token is None:
                raise ModelError(f"the tokenizer of {path!r} has neither a pad nor an end token, so texts cannot "
                                 "be batched; use another --kind or model")
            tokenizer.pad_token = tokenizer.eos_token
        return cls(name, model, batch_size=batch_size)

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.model.get_sentence_embedding_dimension()), dtype=np.float32)
        if not self.memo_bytes:
            return self._encode(list(texts), progress)
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        fresh = dict(zip(missing, self._encode(missing, progress))) if missing else {}
        out = np.stack([fresh[t] if t in fresh else self._memo[t] for t in texts])
        self.count("texts_reused", len(texts) - len(missing))
        for text, vector in fresh.items():
            self._memo[text] = vector
            self._memo_size += vector.nbytes
        while self._memo_size > self.memo_bytes and self._memo:  # oldest out
            self._memo_size -= self._memo.pop(next(iter(self._memo))).nbytes
        return out

    def _encode(self, texts: list[str], progress: bool) -> np.ndarray:
        vecs = self.model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                 normalize_embeddings=True, show_progress_bar=progress)
        self.count("texts_encoded", len(texts))
        return vecs.astype(np.float32)

    def counts_embeddings(self, requests: Sequence[Any]) -> dict[str, int]:
        """``Embed`` (``Engine.counts``): how many of the texts the model cuts to its ``max_seq_length`` tokens
        (0 where it states none)."""
        limit = getattr(self.model, "max_seq_length", None)
        if not limit or self.tokenizer is None or not requests:
            return {"truncated_texts": 0}
        ids = self.tokenizer([r.text for r in requests], add_special_tokens=True, verbose=False)["input_ids"]
        return {"truncated_texts": sum(len(row) > limit for row in ids)}

    def fit_embeddings(self, requests: Sequence[Any]) -> list[Fit]:
        """``Embed``: ``cut`` for a text over ``max_seq_length`` tokens (sentence-transformers cuts without a
        word); ``tokens``: the text's tokens without special tokens."""
        if self.tokenizer is None or not requests:
            return [Fit() for _ in requests]
        texts, limit = [r.text for r in requests], getattr(self.model, "max_seq_length", None)
        whole = self.tokenizer(texts, add_special_tokens=True, verbose=False)["input_ids"]
        bare = self.tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]
        return [Fit(cut=bool(limit and len(w) > limit), tokens=len(b)) for w, b in zip(whole, bare)]


class StaticVectorsScorer(EmbeddingScorer):
    """Average of the vectors of a text's NLTK tokens that have one (none: the zero vector); ``can_embed``
    says whether a text has any, ``coverage()`` counts what ``encode`` skipped."""

    def __init__(self, name: str, vectors: dict[str, np.ndarray], dim: int, lowercase: bool | None = None):
        super().__init__(name)
        self.kind = "static"
        self.vectors = vectors
        self.dim = dim
        #: None: lower-case tokens only when the vocabulary has no upper-case word (an uncased model)
        self.lowercase = (not any(w != w.lower() for w in vectors)) if lowercase is None else lowercase
        self._tokens: dict[str, list[str]] = {}

    @classmethod
    def load(cls, path: str | Path, name: str | None = None, limit: int | None = None):
        from lexprobe.scorers.vector_files import PACKAGED, package_root, read_packaged, read_vectors

        if str(path) in PACKAGED and not Path(path).exists():
            vectors, dim = read_packaged(str(path))
            scorer = cls(name or str(path), vectors, dim)
            scorer.path = str(package_root(str(path)))  # type: ignore[attr-defined]  # the revision is the SHA-256 of the package's files
            return scorer
        path = Path(path)
        if not path.is_file():
            raise DataError(f"static vectors file not found: {path}; pass a .vec (text) or .bin (word2vec) file")
        vectors, dim = read_vectors(path, limit)
        if not vectors or dim < 1:
            raise DataError(f"no vectors read from {path}; is it a fastText .vec or word2vec .bin file?")
        return cls(name or path.name, vectors, dim)

    def tokens(self, text: str) -> list[str]:
        """The lookup keys of a text: its NLTK tokens (lower-cased for an uncased vocabulary)."""
        if text not in self._tokens:
            toks = word_tokenize(text)
            self._tokens[text] = [t.lower() for t in toks] if self.lowercase else toks
        return self._tokens[text]

    def can_embed(self, text: str) -> bool:
        """Whether any token of ``text`` has a vector (the authors' ``can_embed``)."""
        return any(t in self.vectors for t in self.tokens(text))

    def encode(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            toks = self.tokens(text)
            found = [self.vectors[t] for t in toks if t in self.vectors]
            self.count("static_tokens", len(toks))
            self.count("static_oov_tokens", len(toks) - len(found))
            if found:
                out[i] = np.mean(np.asarray(found, dtype=np.float64), axis=0)
            else:
                self.count("static_texts_without_vectors")
        self.count("texts_encoded", len(texts))
        return _normalise(out)

    def counts_embeddings(self, requests: Sequence[Any]) -> dict[str, int]:
        """``Embed`` (``Engine.counts``) on the distinct texts: their tokens, the tokens without a vector (left
        out of the averages), the texts with none at all (the zero vector)."""
        distinct = sorted({r.text for r in requests})
        tokens = [tok for t in distinct for tok in self.tokens(t)]
        return {"static_texts": len(distinct), "zero_vector_texts": sum(not self.can_embed(t) for t in distinct),
                "static_tokens": len(tokens), "skipped_oov_tokens": sum(tok not in self.vectors for tok in tokens)}

    def vector_coverage(self, requests: Sequence[Any], progress: bool = False) -> list[tuple[int, int]]:
        """``asking.requests.VectorCoverage``: (tokens, tokens with a vector) of each text."""
        return [(len(toks), sum(t in self.vectors for t in toks)) for toks in (self.tokens(r.text) for r in requests)]

    def coverage(self) -> dict[str, int]:
        """Tokens and texts ``encode`` has seen, and how many had no vector."""
        return {"tokens": self.stats.get("static_tokens", 0), "oov_tokens": self.stats.get("static_oov_tokens", 0),
                "texts": self.stats.get("texts_encoded", 0),
                "texts_without_vectors": self.stats.get("static_texts_without_vectors", 0)}
