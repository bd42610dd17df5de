"""What the authors' SemCor path changes, on all of SemCor, without a model.

Usage: python scripts/senserank_semcor_authors_effect.py [--path SEMCOR]

Random and oracle figures depend only on R (instances of the query's label in its
pool) and N (the pool), so each variant is bucketed exactly in seconds once read:

* ``paper``: lexprobe's default (document split, sense keys, pools by lemma);
* ``sentence split``: the sentence split with ``random.Random(42)`` only (what
  ``--protocol authors`` did before the rest of the authors' SemCor path);
* ``authors, lemma pools``: the authors' labels, sentence-final drop and query filter,
  but pools keyed by the label's WordNet lemma name (isolates the pool key);
* ``authors``: ``authors_semcor_instances``, pools keyed by ``label.split("_")[0]``.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace

from lexprobe.data.semcor import authors_lemma_of_label, authors_semcor_instances, semcor_instances
from lexprobe.metrics import retrieval as R


def table(name: str, instances, rarity_key=None) -> None:
    """Buckets as the benchmark makes them (ℓ = R; r = R / N, or R / count of ``rarity_key``)."""
    database = [i for i in instances if i.split == "train"]
    queries = [i for i in instances if i.split != "train" and i.query]
    n = Counter(d.lemma for d in database)
    r = Counter((d.lemma, d.label) for d in database)
    denom = Counter(rarity_key(d) for d in database) if rarity_key else None
    ranked = [q for q in queries if r[(q.lemma, q.label)] >= 5]
    cells: dict = {"all": []}
    single = 0
    for q in ranked:
        big_r, big_n = r[(q.lemma, q.label)], n[q.lemma]
        rarity = big_r / (denom[rarity_key(q)] if denom else big_n)
        single += rarity == 1.0
        outcome = R.QueryOutcome([], big_r, big_n)
        cells["all"].append(outcome)
        bucket = R.bucket_of(big_r, rarity)
        if bucket:
            cells.setdefault(bucket, []).append(outcome)
    print(f"\n{name}: D = {len(database)}, Q = {len(queries)} queries "
          f"({sum(1 for i in instances if i.split != 'train' and not i.query)} never queries), "
          f"{len(ranked)} ranked, {len(n)} pools; ranked queries whose pool is one label: "
          f"{sum(r[(q.lemma, q.label)] == n[q.lemma] for q in ranked)}; r = 1 (in no r bucket): {single}")
    names = R.bucket_names() + ["all"]
    print(f"{'':8s}" + "".join(f"{b:>20s}" for b in names))
    for label, key in (("queries", None), ("random", "pooled_random"), ("oracle", "pooled_oracle")):
        row = []
        for b in names:
            s = R.summarize(cells.get(b, []))
            row.append(str(s["queries"]) if key is None else (f"{100 * s[key]:.2f}" if s["queries"] else "-"))
        print(f"{label:8s}" + "".join(f"{x:>20s}" for x in row))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--path", help="SemCor NAF archive (default: the data directory)")
    args = ap.parse_args()
    table("paper (document split)", semcor_instances(args.path, seed=0))
    table("sentence split (seed 42) only", semcor_instances(args.path, seed=42, split_by="sentence"))
    counts: dict = {}
    authors = authors_semcor_instances(args.path, counts=counts)
    print(f"\nauthors' reader: {dict(counts)}")
    by_name = [replace(i, lemma=authors_lemma_of_label(i.label)) for i in authors]
    table("authors, pools by the WordNet lemma name", by_name)
    table('authors (pools by label.split("_")[0])', authors, rarity_key=lambda i: authors_lemma_of_label(i.label))


if __name__ == "__main__":
    main()
