import struct

import numpy as np
import pytest

from lexprobe.errors import DataError
from lexprobe.scorers.embedding import StaticVectorsScorer, word_tokenize
from lexprobe.scorers.random import RandomScorer


def _write_vec(path):
    path.write_text("3 2\ndog 1 0\ncat 0 1\nsmall 1 1\n")
    return path


def test_vec_file_averages_word_vectors(tmp_path):
    s = StaticVectorsScorer.load(_write_vec(tmp_path / "v.vec"))
    v = s.encode(["dog cat", "Dog", "unknownword"])
    np.testing.assert_allclose(v[0], [2 ** -0.5, 2 ** -0.5], atol=1e-6)
    np.testing.assert_allclose(v[1], [1, 0], atol=1e-6)  # lower-case fallback
    np.testing.assert_allclose(v[2], [0, 0])  # no known word: zero vector, cosine 0
    assert s.kind == "static"


def test_word2vec_binary(tmp_path):
    path = tmp_path / "v.bin"
    with path.open("wb") as f:
        f.write(b"2 3\n")
        for word, vec in (("dog", (1.0, 2.0, 2.0)), ("cat", (0.0, 0.0, 1.0))):
            f.write(word.encode() + b" " + struct.pack("3f", *vec) + b"\n")
    s = StaticVectorsScorer.load(path)
    np.testing.assert_allclose(s.encode(["dog"])[0], [1 / 3, 2 / 3, 2 / 3], atol=1e-6)


def test_bad_vector_files(tmp_path):
    with pytest.raises(DataError, match="not found"):
        StaticVectorsScorer.load(tmp_path / "missing.vec")
    bad = tmp_path / "bad.vec"
    bad.write_text("dog 1 0\ncat 1\n")
    with pytest.raises(DataError, match="bad.vec:2"):
        StaticVectorsScorer.load(bad)


def test_word_tokenize():
    assert word_tokenize("one's hands, or a warm-up.") == ["one's", "hands", ",", "or", "a", "warm-up", "."]


def test_random_scores_are_order_independent():
    a = RandomScorer(seed=3)
    first = a.scores("x", 4)
    a.scores("y", 10)
    np.testing.assert_array_equal(first, RandomScorer(seed=3).scores("x", 4))
    assert not np.array_equal(first, RandomScorer(seed=4).scores("x", 4))


def test_minilm_sentence_embeddings(minilm_path):
    from lexprobe.models import load_scorer

    s = load_scorer("all-MiniLM-L6-v2")
    assert s.kind == "embedding"
    v = s.encode(["a young dog", "puppy", "a tax form"])
    assert v.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2
