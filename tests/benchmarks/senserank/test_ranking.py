"""Per-lemma blocked ranking against a brute-force reference."""

import numpy as np
import pytest

from lexprobe.benchmarks.senserank import ranking
from tests.benchmarks.senserank.reference import brute_force_rank, rank_same_lemma
from lexprobe.data.instances import SenseInstance


def _make(n, split, rng, lemmas=("run", "bank", "on")):
    out = []
    for i in range(n):
        lemma = lemmas[rng.integers(len(lemmas))]
        pos = "v" if rng.random() < 0.5 else "n"
        sense = int(rng.integers(3))
        out.append(SenseInstance(f"doc{i}", (f"w{i}", lemma, "x"), 1, lemma, pos, f"{lemma}_{sense}", split, "1"))
    return out


@pytest.mark.parametrize("match_pos", [False, True])
@pytest.mark.parametrize("block_cells", [8_000_000, 7])
def test_matches_brute_force(monkeypatch, match_pos, block_cells):
    monkeypatch.setattr(ranking, "MAX_BLOCK_CELLS", block_cells)
    rng = np.random.default_rng(0)
    db, qs = _make(300, "train", rng), _make(60, "test", rng)
    dv = rng.normal(size=(len(db), 8)).astype(np.float32)
    qv = rng.normal(size=(len(qs), 8)).astype(np.float32)
    k = 20
    rep = rank_same_lemma(db, dv, qs, qv, k=k, min_sense_count=5, match_pos=match_pos)
    assert rep.ranked, "nothing ranked"
    assert len(rep.ranked) + rep.dropped_rare_sense == len(qs)
    for rq in rep.ranked:
        q = qs[rq.query]
        ref = brute_force_rank(db, dv, q, qv[rq.query], k=k, match_pos=match_pos)
        assert rq.top.tolist() == ref
        key = (q.lemma, q.pos) if match_pos else q.lemma
        pool = [d for d in db if ((d.lemma, d.pos) if match_pos else d.lemma) == key]
        assert rq.n_candidates == len(pool)
        assert rq.n_relevant == sum(d.label == q.label for d in pool)
        assert rq.hits.tolist() == [int(db[i].label == q.label) for i in ref]
        cos = [float(dv[i] @ qv[rq.query] / np.linalg.norm(dv[i]) / np.linalg.norm(qv[rq.query])) for i in ref]
        assert np.allclose(rq.scores, cos, atol=1e-5)


def test_rare_senses_and_unaligned_are_dropped_and_counted():
    db = [SenseInstance("d", ("a", "bank"), 1, "bank", "n", "bank_1", "train", str(i)) for i in range(5)]
    db += [SenseInstance("d", ("a", "bank"), 1, "bank", "n", "bank_2", "train", f"x{i}") for i in range(4)]
    qs = [SenseInstance("q", ("the", "bank"), 1, "bank", "n", lab, "test", str(i))
          for i, lab in enumerate(["bank_1", "bank_2", "bank_1", "bank_3"])]
    rng = np.random.default_rng(1)
    dv, qv = rng.normal(size=(len(db), 4)), rng.normal(size=(len(qs), 4))
    rep = rank_same_lemma(db, dv, qs, qv, k=50, q_ok=np.array([True, True, False, True]))
    assert [r.query for r in rep.ranked] == [0]
    assert rep.dropped_rare_sense == 2  # bank_2 (4 in D) and bank_3 (0 in D)
    assert rep.dropped_unaligned == 1
    r = rep.ranked[0]
    assert (r.n_candidates, r.n_relevant, len(r.top)) == (9, 5, 9)  # short list: all 9 candidates


def test_ties_are_broken_by_database_order():
    db = [SenseInstance("d", ("x",), 0, "x", "n", "x_1", "train", str(i)) for i in range(6)]
    q = [SenseInstance("q", ("x",), 0, "x", "n", "x_1", "test", "0")]
    dv = np.ones((6, 3))
    rep = rank_same_lemma(db, dv, q, np.ones((1, 3)), k=4)
    assert rep.ranked[0].top.tolist() == [0, 1, 2, 3]
