"""Cost of the bootstrap intervals in result building: synthetic WDLMPro and sense-ranking results.

Prints CPU seconds of building the result with and without intervals (same process, side by side).
Run: PYTHONPATH=. python3 scripts/bench_intervals.py
"""
import random
import time

import numpy as np

import lexprobe.metrics.retrieval as R
import lexprobe.stats.bootstrap as B
from lexprobe.api import benchmark as get  # (registers the shipped benchmarks)
from lexprobe.core.contract import Records

rng = random.Random(0)
recs = []
for task in ("w2d", "d2w"):
    for i in range(20000):
        L = rng.randint(5, 30); k = rng.randint(1, L)
        recs.append({"task": task, "target": f"t{i}", "pos": "n" if i % 5 else "v", "word": "w", "n_candidates": L,
                     "gold_rank": k, "rank_score": (L - k) / (L - 1), "predicted": "p", "word_tokens": rng.randint(1, 5),
                     "frequency_band": rng.choice(["rare", "medium", "frequent"]), "depth_band": rng.choice(["3–5", "6–8"])})
outs = [R.QueryOutcome(np.random.default_rng(i).integers(0, 2, 50), 10, 60) for i in range(50000)]
def run(label):
    t = time.process_time(); sections(get("wdlmpro"), Records(recs, tasks=["w2d", "d2w"]), "likelihood", {}); a = time.process_time() - t
    t = time.process_time(); R.summarize(outs); b = time.process_time() - t
    print(f"{label}: wdlmpro sections 2 tasks x 20k targets {a:.2f} s CPU; senserank summarize 50k queries {b:.2f} s CPU")
run("with intervals")
B.mean_intervals = lambda d: {}
R.mean_intervals = lambda d: {}
run("without intervals")
