#!/usr/bin/env python
"""WDLMPro's likelihood method vs a plain per-pair reference: forward passes, wall time, speed-up.

The reference follows the paper literally: for every (group, candidate, pattern) it
builds the filled-in sentence, tokenises it whole and runs one forward pass. The
method asks requests (``likelihood.Chunk``, as a chunk of the run scores them): the engine
de-duplicates them across groups and tasks, the masked backend runs each distinct query
(pattern, definition, number of masks) once, the causal one packs each context's continuations.
Both must give the same scores (checked, max |diff| printed).

    python scripts/bench_wdlmpro.py                      # tiny random BERT and GPT-2
    python scripts/bench_wdlmpro.py --model bert-base-uncased --model gpt2 --groups 50
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexprobe.benchmarks.wdlmpro.dataset import wordnet_sample  # noqa: E402
from lexprobe.benchmarks.wdlmpro.likelihood import Chunk, fill  # noqa: E402
from lexprobe.benchmarks.wdlmpro.recipe import PAPER  # noqa: E402
from lexprobe.asking.engine import Engine  # noqa: E402
from lexprobe.models import load_scorer  # noqa: E402
from lexprobe.scorers import reference  # noqa: E402
from scripts.bench_report import report  # noqa: E402


def reference_scores(scorer, groups):
    out = {}
    for i, g in enumerate(groups):
        for task in ("w2d", "d2w"):
            vals = []
            for c in g.candidates:
                word, definition = (g.word, c.definition) if task == "w2d" else (c.word, g.definition)
                if scorer.kind == "masked":
                    per_pattern = []
                    for pattern in PAPER.masked_patterns[("w2d", g.pos)]:
                        left, right = fill(pattern, definition)
                        r = scorer.slot_request(left, PAPER.show_word(word, left == ""), right)
                        lp = reference.masked_slot_logprobs(scorer, r.prefix, r.word, r.suffix)
                        per_pattern.append(lp.sum() if task == "w2d" else lp.mean())
                    # the paper: W2D averages the patterns' probabilities, D2W their average log-probabilities
                    vals.append(np.log(np.mean(np.exp(per_pattern))) if task == "w2d" else np.mean(per_pattern))
                else:
                    left, _ = fill(PAPER.causal_patterns[("w2d", g.pos)], definition)
                    lp = reference.causal_continuation_logprobs(scorer, left.rstrip(), " " + word)
                    vals.append(lp.sum() if task == "w2d" else lp[0])
            out[(task, i)] = np.array(vals)
    return out


def bench(model: str, groups, device: str) -> None:
    scorer = load_scorer(model, device=device)
    if scorer.kind not in ("masked", "causal"):
        print(f"{model}: kind {scorer.kind} has no forward-pass engine to compare; skipped")
        return
    scorer.stats.clear()
    t0 = time.perf_counter()
    engine = Chunk(Engine(scorer), groups, ("w2d", "d2w"), PAPER).scores
    t_engine = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = reference_scores(scorer, groups)
    t_ref = time.perf_counter() - t0
    diff = max(float(np.max(np.abs(engine[k] - ref[k]))) for k in ref)
    pairs = sum(len(g.candidates) for g in groups)
    report(model, scorer, f"{len(groups)} groups, {pairs} candidates x 2 tasks", t_ref, t_engine, diff,
           extra=f"  ({scorer.stats.get('queries', scorer.stats.get('context_forwards', 0))} distinct queries/contexts)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", help="model name/path (repeatable); default: tiny random BERT and GPT-2")
    ap.add_argument("--groups", type=int, default=20, help="groups per POS")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()
    groups = wordnet_sample("n", args.groups, args.seed) + wordnet_sample("v", args.groups, args.seed)
    models = args.model
    if not models:
        from tests.tiny_models import build_tiny_bert, build_tiny_gpt2

        tmp = Path(tempfile.mkdtemp())
        models = [str(build_tiny_bert(tmp / "bert")), str(build_tiny_gpt2(tmp / "gpt2"))]
    for model in models:
        bench(model, groups, args.device)


if __name__ == "__main__":
    main()
