"""The memory-mapped embedding store, resuming sense ranking, and ranking on torch vs numpy."""

import dataclasses
import json

import numpy as np
import pytest

from lexprobe.core.evaluate import evaluate
from lexprobe.benchmarks.senserank import similarity as se
from lexprobe.benchmarks.senserank.config import SenseConfig
from lexprobe.benchmarks.senserank.ranking import top_k_cosine
from lexprobe.benchmarks.senserank.store import EmbeddingStore, sentence_digest
from lexprobe.errors import OutputBusyError
from lexprobe.cache import partial_path
from lexprobe.models import load_scorer
from tests.benchmarks.senserank.reference import rank_same_lemma
from tests.distributed_cases import sense_instances

ID = {"model": "sha256:x", "embedder": {"layer": -1}, "dtype": "torch.float32"}


def _rows(n, layers=2, dim=3, start=0):
    return np.arange(start, start + n * layers * dim, dtype=np.float32).reshape(n, layers, dim)


def test_store_round_trip_multi_layer_and_tail_repair(tmp_path):
    store = EmbeddingStore(tmp_path / "s", ID)
    store.prepare()
    w = store.writer(0)
    w.append([("a", "b"), ("c",)], [[0, 1], [0]], [_rows(2), _rows(1, start=100)],
             [np.array([True, False]), np.array([True])])
    with pytest.raises(OutputBusyError):  # one writer per file at a time
        store.writer(0)
    w.close()
    store.load_index()
    assert store.entries[sentence_digest(("a", "b"))] == (0, 0, (0, 1), "10")  # writer, first row, targets, aligned
    assert store.entries[sentence_digest(("c",))] == (0, 2, (0,), "1") and sentence_digest(("z",)) not in store.entries
    np.testing.assert_array_equal(store.fetch([[0, 2], [0, 0]], layer=1), [_rows(1, start=100)[0, 1], _rows(2)[0, 1]])
    # an interruption between the vectors and the index, and half an index line
    with (store.root / "vectors.r0.f32").open("ab") as f:
        f.write(b"\0" * 24)
    with (store.root / "index.r0.jsonl").open("a") as f:
        f.write('{"s": "cut')
    assert len(EmbeddingStore(tmp_path / "s", ID).load_index().entries) == 2
    w = store.writer(0)  # repairs both tails, then appends after the last indexed row
    assert w.rows == 3 and (store.root / "vectors.r0.f32").stat().st_size == 3 * 6 * 4
    w.append([("d",)], [[0]], [_rows(1, start=7)], [np.array([True])])
    store.load_index()
    np.testing.assert_array_equal(store.fetch([[0, 3]], layer=0), _rows(1, start=7)[:, 0])
    with pytest.raises(ValueError, match="row shape"):
        w.append([("e",)], [[0]], [np.zeros((1, 4), np.float32)], [np.array([True])])


def test_store_of_another_model_is_set_aside(tmp_path, caplog):
    store = EmbeddingStore(tmp_path / "s", ID)
    store.prepare()
    w = store.writer(0)
    w.append([("a",)], [[0]], [np.ones((1, 3), np.float32)], [np.array([True])])
    w.close()
    other = EmbeddingStore(tmp_path / "s", dict(ID, model="sha256:y"))
    other.prepare()
    assert not other.load_index().entries and "set aside" in caplog.text
    assert (tmp_path / "s.stale" / "index.r0.jsonl").exists()


def test_interrupted_sense_ranking_keeps_embedded_sentences(tiny_bert, tmp_path, monkeypatch):
    out = tmp_path / "r.json"
    cfg = SenseConfig(corpus="synthetic", k=10)
    monkeypatch.setattr(se, "CHUNK", 4)
    emb = load_scorer(str(tiny_bert), kind="token", device="cpu")
    real, calls = emb.encode_jobs, []

    def dying(jobs, *layers):
        calls.append(len(jobs))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(jobs, *layers)

    monkeypatch.setattr(emb, "encode_jobs", dying)
    with pytest.raises(KeyboardInterrupt):
        evaluate("senserank", emb, cfg, out, items=sense_instances(), progress=False)
    assert (tmp_path / "r.json.embeddings" / "index.r0.jsonl").exists()
    monkeypatch.setattr(emb, "encode_jobs", real)
    resumed = evaluate("senserank", emb, cfg, out, items=sense_instances(), progress=False)
    assert resumed["counts"]["sentences_from_store"] == 8  # two chunks of 4 survived
    assert json.loads(out.read_text())["instances"] == resumed["instances"]  # the API wrote the result
    assert not partial_path(out).exists() and not (tmp_path / "r.json.embeddings").exists()  # both cleaned up
    fresh = evaluate("senserank", emb, cfg, items=sense_instances(), progress=False)
    assert resumed["instances"] == fresh["instances"] and resumed["metrics"] == fresh["metrics"]
    # --keep-embeddings: a rerun with the same model encodes nothing
    evaluate("senserank", emb, dataclasses.replace(cfg, keep_embeddings=True), out, items=sense_instances(), progress=False)
    again = evaluate("senserank", emb, cfg, out, items=sense_instances(), progress=False)
    assert again["counts"]["sentences_encoded"] == 0 and again["instances"] == fresh["instances"]


def test_the_vector_store_is_removed_also_when_the_plot_fails(tiny_bert, tmp_path, monkeypatch, capsys):
    """The store beside ``--out`` (gigabytes on a whole corpus) goes after the result is written, whether or not
    its figure could be drawn: a failing plot is a warning, never a store left behind."""
    from lexprobe.benchmarks.senserank import plot

    def failing(result, path):
        raise ValueError("the figure cannot be drawn")

    monkeypatch.setattr(plot, "save_curves_plot", failing)
    out = tmp_path / "r.json"
    emb = load_scorer(str(tiny_bert), kind="token", device="cpu")
    result = evaluate("senserank", emb, SenseConfig(corpus="synthetic", k=10), out, items=sense_instances(),
                      progress=False)
    assert result is not None and json.loads(out.read_text())["instances"] == result["instances"]
    assert "the figure cannot be drawn" in capsys.readouterr().err
    assert not (tmp_path / "r.json.embeddings").exists() and not partial_path(out).exists()


def test_torch_ranking_equals_numpy_with_ties(monkeypatch):
    from lexprobe.benchmarks.senserank import ranking

    rng = np.random.default_rng(1)
    pool = rng.normal(size=(40, 6)).astype(np.float32)
    pool[10] = pool[3]  # exact ties: the lower index must come first
    pool[25] = pool[3]
    q = np.vstack([pool[3], rng.normal(size=(6, 6)).astype(np.float32)])
    monkeypatch.setattr(ranking, "MAX_BLOCK_CELLS", 90)  # several query blocks
    top_np, val_np = top_k_cosine(q, pool, 12)
    top_t, val_t = top_k_cosine(q, pool, 12, device="cpu")
    np.testing.assert_array_equal(top_np, top_t)
    np.testing.assert_allclose(val_np, val_t, atol=1e-6)
    assert top_np[0, :3].tolist() == [3, 10, 25]


def test_rank_same_lemma_on_torch_matches_numpy():
    insts = sense_instances()
    db = [i for i in insts if i.split == "train"]
    qs = [i for i in insts if i.split != "train"]
    rng = np.random.default_rng(0)
    dv, qv = rng.normal(size=(len(db), 5)), rng.normal(size=(len(qs), 5))
    a = rank_same_lemma(db, dv, qs, qv, k=7)
    b = rank_same_lemma(db, dv, qs, qv, k=7, device="cpu")
    assert [r.top.tolist() for r in a.ranked] == [r.top.tolist() for r in b.ranked] and a.ranked
