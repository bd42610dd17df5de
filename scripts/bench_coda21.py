#!/usr/bin/env python
"""CoDA21 engine vs a plain per-pair reference: forward passes, wall time, speed-up.

The reference scores every (context, definition) pair of every group on its own:
causal LMs run prompt + definition in one forward pass per pair (k passes over the
same prompt); masked LMs run one forward pass per masked definition token of every
pair. The engine encodes each prompt once for its k definitions (causal, KV cache)
or pools all (pair, position) masked copies of all groups into longest-first
batches (masked). Both must give the same match scores (checked, max |diff|).

    python scripts/bench_coda21.py                      # tiny random BERT and GPT-2
    python scripts/bench_coda21.py --model gpt2 --model roberta-base --groups 10
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexprobe.benchmarks.coda21.cli import default_coda_dir  # noqa: E402
from lexprobe.benchmarks.coda21.dataset import load_coda  # noqa: E402
from lexprobe.benchmarks.coda21.config import CodaConfig  # noqa: E402
from lexprobe.benchmarks.coda21.likelihood import match_matrices, prompt  # noqa: E402
from lexprobe.models import load_scorer  # noqa: E402
from lexprobe.scorers import reference  # noqa: E402
from lexprobe.scorers.pll import pll_reference  # noqa: E402
from scripts.bench_report import report  # noqa: E402


def reference_matrices(scorer, groups, config: CodaConfig) -> list[np.ndarray]:
    out = []
    for g in groups:
        m = np.empty((g.k, g.k))
        for i, c in enumerate(g.candidates):
            p = prompt(c.context, c.word, g.pos, config.nonce, config.pattern)
            for j, d in enumerate(g.candidates):
                if scorer.kind == "causal":
                    lp = reference.causal_continuation_logprobs(scorer, p, " " + d.definition)
                    m[i, j] = lp[: config.max_definition_tokens].sum()
                else:
                    m[i, j] = pll_reference(scorer, p, " " + d.definition, config.pll,
                                            config.max_definition_tokens).sum()
        out.append(m)
    return out


def bench(model: str, groups, device: str, config: CodaConfig) -> None:
    scorer = load_scorer(model, device=device)
    if scorer.kind not in ("masked", "causal"):
        print(f"{model}: kind {scorer.kind} has no forward-pass engine to compare; skipped")
        return
    scorer.stats.clear()
    t0 = time.perf_counter()
    engine = match_matrices(groups, scorer, config)
    t_engine = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = reference_matrices(scorer, groups, config)
    t_ref = time.perf_counter() - t0
    diff = max(float(np.max(np.abs(a - b))) for a, b in zip(engine, ref))
    pairs = sum(g.k * g.k for g in groups)
    report(model, scorer, f"{len(groups)} groups, {pairs} context-definition pairs", t_ref, t_engine, diff)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", help="model name/path (repeatable); default: tiny random BERT and GPT-2")
    ap.add_argument("--data", help="CoDA21 file (default: the official clean-hard file)")
    ap.add_argument("--groups", type=int, default=2, help="N groups per POS (those with the shortest texts)")
    ap.add_argument("--pll", choices=("token", "word-l2r"), default="token")
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()
    data = load_coda(args.data or default_coda_dir() / "CoDA-clean-hard.json")
    groups = []
    for pos in ("n", "v"):  # the groups with the shortest texts: tiny test models have short position tables
        by_length = sorted(data.by_pos(pos), key=lambda g: max(len(c.context) + len(c.definition) for c in g.candidates))
        groups += by_length[: args.groups]
    config = CodaConfig(pll=args.pll)
    models = args.model
    if not models:
        from tests.tiny_models import build_tiny_bert, build_tiny_gpt2

        tmp = Path(tempfile.mkdtemp())
        models = [str(build_tiny_bert(tmp / "bert")), str(build_tiny_gpt2(tmp / "gpt2"))]
    for model in models:
        bench(model, groups, args.device, config)


if __name__ == "__main__":
    main()
