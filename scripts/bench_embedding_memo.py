#!/usr/bin/env python
"""WDLMPro with a sentence encoder: the text memo of ``SentenceEmbeddingScorer`` against none.

Sister groups share their words and definitions, and the resumable chunks (32 groups) each
ask for their own texts, so without the memo the same text is encoded once per chunk that
holds it. Runs the first N groups of the dataset (WordNet order: sisters are neighbours) both
ways in one process, side by side, and prints texts encoded, wall time and the largest score
difference (0 up to float noise: a text's vector is the same whichever batch it is in).

    python scripts/bench_embedding_memo.py --groups 640
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexprobe.api import evaluate  # noqa: E402  (registers the shipped benchmarks)
from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems  # noqa: E402
from lexprobe.benchmarks.wdlmpro.dataset import default_dataset  # noqa: E402
from lexprobe.models import load_scorer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--groups", type=int, default=640)
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    args = ap.parse_args()
    groups = default_dataset("n", progress=False)[: args.groups]
    items = WDLMProItems(groups, None)
    distinct = len({t for g in groups for c in g.candidates for t in (c.word, c.definition)})
    print(f"{len(groups)} noun groups, {sum(len(g.candidates) for g in groups)} candidates, {distinct} distinct texts")
    scores = {}
    for name, memo in (("no memo", 0), ("memo", 1 << 29)):
        scorer = load_scorer(args.model, device="cpu")
        scorer.memo_bytes = memo
        started = time.perf_counter()
        result = evaluate("wdlmpro", scorer, WDLMProConfig(), items=items, progress=False)
        seconds = time.perf_counter() - started
        scores[name] = result["metrics"]
        print(f"{name:8s}: {scorer.stats.get('texts_encoded', 0):7d} texts encoded, {seconds:7.1f} s, "
              f"W2D P@1 {result['metrics']['w2d']['all']['p_at_1']:.4f}, D2W P@1 {result['metrics']['d2w']['all']['p_at_1']:.4f}")
    same = all(np.isclose(scores["memo"][t]["all"][m], scores["no memo"][t]["all"][m])
               for t in ("w2d", "d2w") for m in ("p_at_1", "rank_score"))
    print("metrics equal:", same)


if __name__ == "__main__":
    main()
