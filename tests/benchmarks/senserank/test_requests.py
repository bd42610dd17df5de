"""Sense ranking on the request layer: the similarity method asks ``TokenVector`` requests and nothing else, a
chunk of sentences per engine call (their answers go to the store as the chunk finishes), ranks exactly what a
plain reference ranks from the same vectors, and is refused in one line by a backend without token vectors; the
random baseline's numbers are its seeded embedder's; the authors' tokenisation travels in the request."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lexprobe.core.evaluate import evaluate
from lexprobe.benchmarks.senserank import similarity
from lexprobe.benchmarks.senserank.config import SenseConfig
from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import TokenVector
from lexprobe.data.instances import SenseInstance
from lexprobe.errors import LexprobeError, ModelError
from lexprobe.models import load_scorer
from tests.benchmarks.senserank.reference import brute_force_rank
from tests.benchmarks.senserank.test_evaluate import _instances
from tests.standins.embedding import EmbedOnly
from tests.standins.token_vector import TokenVectorOnly

CONFIG = SenseConfig(corpus="synthetic", k=10, min_sense_count=2)


def _corpus():
    """Two lemmas whose senses differ by context; the four longest sentences' targets are "!!" (no letter: no vector),
    so the first chunks of a small CHUNK hold no vector at all."""
    out = []
    for n, (lemma, label, context, split) in enumerate(
            [("bank", "bank_1", "money in the", "train")] * 5 + [("bank", "bank_2", "fish by the river", "train")] * 5
            + [("bank", "bank_1", "money at a", "test"), ("bank", "bank_2", "trees by the", "test")]
            + [("play", "play_1", "children", "train")] * 4 + [("play", "play_2", "actors on stage", "train")] * 4
            + [("play", "play_1", "kids", "test")]):
        words = tuple(f"{context} {lemma} {'x ' * (n % 3)}".split())
        out.append(SenseInstance(f"d{n}", words, words.index(lemma), lemma, "n", label, split, "1"))
    for n in range(4):  # long sentences, targets without a vector: unaligned database instances
        words = ("!!",) + ("padding",) * (12 + n)
        out.append(SenseInstance(f"u{n}", words, 0, "bank", "n", "bank_1", "train", "1"))
    return out


def test_similarity_asks_token_vectors_and_ranks_as_a_plain_reference():
    backend = TokenVectorOnly()
    result = evaluate("senserank", backend, CONFIG, items=_corpus(), progress=False)
    assert result["config"]["method"] == "similarity"
    insts = _corpus()
    db = [i for i in insts if i.split == "train" and backend.vector(i.tokens, i.index) is not None]
    queries = {f"{q.doc_id}#{q.sent_id}#{q.index}": q for q in insts if q.split == "test"}
    assert result["counts"]["database_unaligned"] == 4 and result["counts"]["ranked_queries"] == 3
    for record in result["instances"]:
        q = queries[record["id"]]
        expected = brute_force_rank(db, [backend.vector(d.tokens, d.index) for d in db], q,
                                    backend.vector(q.tokens, q.index), k=10)
        hits = "".join("1" if db[i].label == q.label else "0" for i in expected)
        assert record["hits"] == hits and record["top"] == [db[i].label for i in expected[:5]]
        pool = [d for d in db if d.lemma == q.lemma]
        assert (record["n_candidates"], record["n_relevant"]) == (len(pool), sum(d.label == q.label for d in pool))


def test_one_engine_call_per_chunk_whose_answers_are_stored_before_the_next(monkeypatch, tmp_path):
    """CHUNK = 3: each call asks the targets of three sentences (one request per target) and the store has every
    earlier chunk when the next is asked; chunks without any vector wait for the vectors' size (held back), and
    the result is the one of a single chunk."""
    whole = evaluate("senserank", TokenVectorOnly(), CONFIG, items=_corpus(), progress=False)
    monkeypatch.setattr(similarity, "CHUNK", 3)
    backend, stored = TokenVectorOnly(), []
    real = backend.token_vectors

    def asked(requests, progress=False):
        store = similarity.EmbeddingStore(tmp_path / "r.json.embeddings", {}).load_index()
        stored.append(len(store.entries))
        return real(requests, progress)

    backend.token_vectors = asked
    chunked = evaluate("senserank", backend, CONFIG, tmp_path / "r.json", items=_corpus(), progress=False)
    sentences = whole["counts"]["sentences_encoded"]
    assert len(backend.calls) == -(-sentences // 3) and all(n <= 3 for n in backend.calls)
    assert stored[:2] == [0, 0] and stored[2] == 6  # the first two chunks (no vector) waited for the third
    assert stored[3:] == [6 + 3 * i for i in range(1, len(stored) - 2)]
    for key in ("metrics", "baselines", "instances", "counts"):
        assert chunked[key] == whole[key], key


def test_a_backend_without_token_vectors_is_refused_in_one_line():
    with pytest.raises(ModelError) as err:
        evaluate("senserank", EmbedOnly(), CONFIG, items=_corpus(), progress=False)
    assert "needs contextual token embeddings" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(LexprobeError, match="has no layers") as err:  # a sweep needs a model's layers
        evaluate("senserank", TokenVectorOnly(), dataclasses.replace(CONFIG, layers="all"), items=_corpus(),
                 progress=False)
    assert "\n" not in str(err.value)


def test_random_vectors_are_seeded_by_document_and_sentence():
    """The random baseline's TokenVector answers are 64 standard normals seeded by (seed, CRC-32 of document,
    sentence, words and index), today's numbers: two documents' identical sentences get different vectors;
    without sentence ids (WSD) the ids are empty."""
    import zlib

    words = ("the", "bank", "of", "the", "river")

    def expected(doc: str, sent: str) -> np.ndarray:
        key = f"{doc}\0{sent}\0the bank of the river\0{1}".encode("utf-8")
        return np.random.default_rng([7, zlib.crc32(key)]).standard_normal(64).astype(np.float32)

    got = Engine(load_scorer("random", seed=7))([TokenVector(words, 1, sentence=("doc1", "3")),
                                                 TokenVector(words, 1, sentence=("doc2", "3")), TokenVector(words, 1)])
    np.testing.assert_array_equal(np.stack(got), np.stack([expected("doc1", "3"), expected("doc2", "3"),
                                                           expected("", "")]))
    assert not np.array_equal(got[0], got[1])


def test_token_vectors_take_the_tokenisation_and_layers_of_the_request(tiny_roberta):
    """``words_alone`` (the authors' recipe) and the layer are the request's: the answers equal the embedder set
    that way, whatever else is asked in the same call, and every layer of a sentence comes from one forward pass."""
    from lexprobe.scorers.token_embeddings import TokenEmbedder

    emb: TokenEmbedder = load_scorer(str(tiny_roberta), kind="token", device="cpu")
    inst = SenseInstance("d", ("the", "dog", "barks", "loudly"), 1, "dog", "n", "dog_1", "train", "1")
    requests = [TokenVector(inst.tokens, 1, layer, alone) for alone in (False, True) for layer in (0, -1)]
    before = emb.stats["forward_batches"]
    got = Engine(emb)(requests)
    assert emb.stats["forward_batches"] - before == 2  # one pass per tokenisation, both layers in it
    for r, vector in zip(requests, got):
        plain = emb.view(layer=r.layer, words_alone=r.words_alone).embed_sentence(inst.tokens, [inst.index])[0][0]
        np.testing.assert_allclose(vector, plain, atol=1e-5)
    assert not np.allclose(got[1], got[3])  # the two tokenisations differ (byte-level BPE: "Ġdog" vs "dog")
