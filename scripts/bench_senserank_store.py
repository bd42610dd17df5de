#!/usr/bin/env python
"""Sense ranking at scale: memory of the memory-mapped store path vs all vectors in RAM.

A synthetic corpus (Zipf-distributed lemmas, 3 senses each, 90 % database) goes through
the product's own pipeline, ``embed_to_store`` (``TokenVector`` requests, a chunk of
sentences per engine call, appended to the store) then ``rank_from_store``, with a
stand-in backend that answers seeded random vectors (the model is not what is measured).
Then the same vectors are loaded into one matrix and ranked from it (``InMemoryVectors``),
as before the store existed. Printed: wall time and peak traced allocations (tracemalloc,
which numpy reports to) of each path, and whether the rankings agree.

    python scripts/bench_senserank_store.py                        # 200k targets, 768 dims
    python scripts/bench_senserank_store.py --instances 1000000 --device cuda
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexprobe.benchmarks.senserank.config import SenseConfig  # noqa: E402
from lexprobe.benchmarks.senserank.similarity import InMemoryVectors, embed_to_store, rank_from_store  # noqa: E402
from lexprobe.benchmarks.senserank.store import EmbeddingStore  # noqa: E402
from lexprobe.data.instances import SenseInstance  # noqa: E402


class RandomEncoder:
    """A backend serving ``TokenVector``: seeded random target vectors (one sentence per target); no tokenizer
    (costs in words)."""

    name = path = "random-encoder"

    def __init__(self, dim: int):
        self.dim = dim

    def describe(self) -> dict:
        return {"name": "random-encoder", "dim": self.dim}

    def token_vectors(self, requests, progress=False):
        return [np.random.default_rng(int(r.words[0][1:])).standard_normal(self.dim, dtype=np.float32)
                for r in requests]


def corpus(n: int, lemmas: int, seed: int = 0) -> list[SenseInstance]:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, lemmas + 1)
    which = rng.choice(lemmas, size=n, p=weights / weights.sum())
    senses = rng.integers(0, 3, size=n)
    split = np.where(rng.random(n) < 0.9, "train", "test")
    return [SenseInstance(f"d{i}", (f"w{i}", f"lemma{l}"), 1, f"lemma{l}", "n", f"lemma{l}_{s}", sp, "1")
            for i, (l, s, sp) in enumerate(zip(which, senses, split))]


def traced(fn):
    tracemalloc.start()
    t = time.time()
    result = fn()
    seconds = time.time() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, seconds, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=200_000)
    ap.add_argument("--lemmas", type=int, default=5_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--device", default="cpu", help="cpu (numpy) or cuda (torch blocked top-k)")
    args = ap.parse_args()
    insts = corpus(args.instances, args.lemmas)
    db = [i for i in insts if i.split == "train"]
    qs = [i for i in insts if i.split != "train"]
    cfg = SenseConfig(k=50, min_sense_count=5)
    enc = RandomEncoder(args.dim)
    device = None if args.device == "cpu" else args.device
    mb = 1024 ** 2
    print(f"{len(insts):,} targets ({len(db):,} database, {len(qs):,} queries), {args.lemmas:,} lemmas, "
          f"dim {args.dim}: all vectors in RAM = {len(insts) * args.dim * 4 / mb:,.0f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        store = EmbeddingStore(Path(tmp) / "store", {"model": "random", "dim": args.dim})
        (loc, ok, _), t_embed, m_embed = traced(lambda: embed_to_store(enc, db + qs, store, [0], False,
                                                                         progress=False))
        disk = sum(p.stat().st_size for p in store.root.iterdir())
        rep, t_rank, m_rank = traced(lambda: rank_from_store(cfg, store, db, loc[: len(db)], ok[: len(db)], qs,
                                                              loc[len(db):], ok[len(db):], device=device))

        def in_ram():
            memory = InMemoryVectors(store.identity)
            memory.vectors = store.fetch(loc)
            rows = np.stack([np.zeros(len(loc), np.int64), np.arange(len(loc))], axis=1)
            return rank_from_store(cfg, memory, db, rows[: len(db)], ok[: len(db)], qs, rows[len(db):],
                                   ok[len(db):], device=device)

        ref, t_ram, m_ram = traced(in_ram)
    same = [r.top.tolist() for r in rep.ranked] == [r.top.tolist() for r in ref.ranked]
    print(f"  store on disk: {disk / mb:,.0f} MB")
    print(f"  embed -> store:          {t_embed:7.1f} s   peak traced {m_embed / mb:8.0f} MB")
    print(f"  rank from store:         {t_rank:7.1f} s   peak traced {m_rank / mb:8.0f} MB")
    print(f"  rank all-in-RAM matrix:  {t_ram:7.1f} s   peak traced {m_ram / mb:8.0f} MB")
    print(f"  {len(rep.ranked):,} queries ranked; rankings identical: {same}")
    if not same:
        raise SystemExit("store and in-RAM rankings differ")


if __name__ == "__main__":
    main()
