"""Print CoDA21 build statistics beside the release's Table 1 (groups / unique synsets).

Usage: python scripts/coda21_build_counts.py [--variant clean-hard] [--embed-model all-MiniLM-L6-v2]
Counts do not depend on the context model, so contexts are the first SemCor sentence.
Builds with and without the shared-word rule and with both cluster rules.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from lexprobe.benchmarks.coda21.builder import BuildConfig, build_coda
from lexprobe.benchmarks.coda21.contexts import collect_contexts
from lexprobe.benchmarks.coda21.dataset import CodaData, coda_stats
from lexprobe.data.semcor import iter_semcor_sentences
from lexprobe.data.wordnet import load_wordnet
from lexprobe.models import load_scorer

PAPER = {"clean-hard": (106, 740, 102, 711), "clean-easy": (274, 1999, 103, 758),
         "noisy-hard": (691, 4633, 350, 2527), "noisy-easy": (1188, 8910, 370, 2766)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", default="clean-hard", choices=tuple(PAPER))
    ap.add_argument("--embed-model", default="all-MiniLM-L6-v2")
    args = ap.parse_args()
    wn = load_wordnet()
    t0 = time.time()
    contexts = collect_contexts(iter_semcor_sentences(), wn)
    print(f"SemCor contexts of {len(contexts)} synsets in {time.time() - t0:.0f} s")
    encode = load_scorer(args.embed_model, kind="embedding").encode
    memo: dict[str, np.ndarray] = {}

    def embed(texts):  # definitions are embedded once for all four builds
        missing = [t for t in dict.fromkeys(texts) if t not in memo]
        if missing:
            memo.update(zip(missing, np.asarray(encode(missing), dtype=np.float64)))
        return np.stack([memo[t] for t in texts])
    p = PAPER[args.variant]
    print(f"{'build':40s} noun G / USC   verb G / USC")
    print(f"{'release (Table 1)':40s} {p[0]:6d} / {p[1]:4d}   {p[2]:6d} / {p[3]:4d}")
    for skip in (False, True):
        for rule in ("paper", "authors"):
            t1 = time.time()
            cfg = BuildConfig(variant=args.variant, cluster=rule, skip_shared_words=skip)
            groups = build_coda(wn, None, embed, cfg, contexts=contexts)
            s = coda_stats(CodaData(groups))
            name = f"cluster={rule}, shared words {'skipped' if skip else 'kept'}"
            print(f"{name:40s} {s['n']['groups']:6d} / {s['n']['unique_synsets']:4d}   "
                  f"{s['v']['groups']:6d} / {s['v']['unique_synsets']:4d}   ({time.time() - t1:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
