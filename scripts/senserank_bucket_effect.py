"""Where queries fall under the two definitions of ℓ, and the exact oracle/random rows (no model).

Usage: python scripts/senserank_bucket_effect.py [--corpus semcor] [--path P] [--recipe paper|authors]

ℓ = the query sense's frequency in D (the authors' ``label_freq_in_train``, lexprobe's
default) or the lemma's (the paper's text, ``--bucket-by lemma``). Oracle and random
figures depend only on R and N, so the whole corpus is bucketed in seconds.
"""

from __future__ import annotations

import argparse
from collections import Counter

from lexprobe.benchmarks.senserank.config import SenseConfig
from lexprobe.benchmarks.senserank.similarity import load_instances, rarity_group, select_instances
from lexprobe.metrics import retrieval as R


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="semcor")
    ap.add_argument("--path")
    ap.add_argument("--recipe", default="paper", choices=("paper", "authors"))
    args = ap.parse_args()
    cfg = SenseConfig(corpus=args.corpus, path=args.path, recipe=args.recipe)
    database, queries, info = select_instances(load_instances(cfg), cfg)
    n = Counter(d.lemma for d in database)
    r = Counter((d.lemma, d.label) for d in database)
    ranked = [q for q in queries if r[(q.lemma, q.label)] >= cfg.min_sense_count]
    # r's denominator where it is not the pool (OntoNotes: lemma+POS; the authors' SemCor: the lemma name)
    denom = Counter(rarity_group(cfg, d) for d in database) if rarity_group(cfg, database[0]) is not None else None
    print(f"{args.corpus} ({args.recipe}): D = {len(database)}, Q = {len(queries)}, ranked = {len(ranked)}")
    names = R.bucket_names()
    for by in ("sense", "lemma"):
        cells: dict = {}
        for q in ranked:
            big_r, big_n = r[(q.lemma, q.label)], n[q.lemma]
            freq = big_r if by == "sense" else big_n
            bucket = R.bucket_of(freq, big_r / (denom[rarity_group(cfg, q)] if denom else big_n))
            if bucket:
                cells.setdefault(bucket, []).append(R.QueryOutcome([], big_r, big_n))
        print(f"\nl = the {'query sense' if by == 'sense' else 'lemma'}'s frequency in D")
        print(f"{'':10s}" + "".join(f"{b:>20s}" for b in names))
        for label, key in (("queries", None), ("random", "pooled_random"), ("oracle", "pooled_oracle")):
            row = []
            for b in names:
                s = R.summarize(cells.get(b, []))
                row.append(str(s["queries"]) if key is None else (f"{100 * s[key]:.2f}" if s["queries"] else "-"))
            print(f"{label:10s}" + "".join(f"{x:>20s}" for x in row))


if __name__ == "__main__":
    main()
