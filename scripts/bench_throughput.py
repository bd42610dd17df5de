#!/usr/bin/env python
"""Throughput of lexprobe's scorers next to lm-evaluation-harness and minicons, side by side.

Per scorer kind and model it prints requests/s, tokens/s (tokens of the requests
as written: context + continuation, the same count for every tool), peak memory
(CUDA: peak allocated; CPU: peak resident-set growth) and, on a GPU, the achieved
TFLOP/s against the device's peak. Every tool scores the same requests on the same
model in the same process; the scores are compared (max |diff| printed, the script
fails above --tolerance).

  causal  WDLMPro causal requests ("<definition> is the definition of" + " word") on a
          GPT-2-small-sized model: lexprobe (packed rows, 4-D mask), lexprobe's
          previous design (key/value cache copied per continuation), lm-eval's
          HFLM.loglikelihood at batch 32.
  pll     CoDA21 PLL requests (prompt + " definition", every definition token masked in
          turn) on a BERT-base-sized model: lexprobe vs minicons MaskedLMScorer.conditional_score.
  masked  WDLMPro masked-LM slot queries on the BERT-base-sized model (lexprobe only).

The default models are random-weight GPT-2 small / BERT-base shapes with real-size
tokenizers built offline (scripts/base_models.py); --gpt2/--bert take real ones.

    pip install -r requirements-bench.txt
    python scripts/bench_throughput.py                       # all kinds, CPU
    python scripts/bench_throughput.py --kind causal --groups 10 --device cuda --dtype auto
    torchrun --standalone --nproc-per-node 2 scripts/bench_throughput.py --kind causal --threads 1 --peers ''

Under torchrun (gloo on CPU, nccl on GPUs) rank 0 first prints the 1-process row, then every
rank scores its share of the same requests, dealt as lexprobe's evaluate paths deal units
(lexprobe.distributed.run_units: token cost, longest first; requests sharing a context or
query stay on one rank); rank 0 gathers, checks the scores against the 1-process ones
(--tolerance) and prints the N-process row: aggregate requests/s and tokens/s (wall time from
a barrier until rank 0 holds every score), peak memory per rank.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexprobe.models import load_scorer  # noqa: E402

# dense peak TFLOP/s per device-name fragment and dtype (vendor figures, no sparsity)
PEAK_TFLOPS = {
    "H200": {"bfloat16": 989.0, "float16": 989.0, "float32": 67.0},
    "H100": {"bfloat16": 989.0, "float16": 989.0, "float32": 67.0},
    "A100": {"bfloat16": 312.0, "float16": 312.0, "float32": 19.5},
    "L4": {"bfloat16": 121.0, "float16": 121.0, "float32": 30.3},
}


# ---------------------------------------------------------------------------- measuring
class PeakMemory:
    """Peak memory during a block: CUDA peak allocated, else peak RSS growth sampled every 5 ms."""

    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"
        self.peak = 0

    @staticmethod
    def _rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._rss() - self.base)
            time.sleep(0.005)

    def __enter__(self):
        if self.cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            self.base = torch.cuda.memory_allocated()
        else:
            self.base = self._rss()
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self.cuda:
            torch.cuda.synchronize()
            self.peak = torch.cuda.max_memory_allocated() - self.base
        else:
            self._stop.set()
            self._thread.join()


def timed(fn, device):
    with PeakMemory(device) as mem:
        t0 = time.perf_counter()
        out = fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
    return out, seconds, mem.peak


def non_embedding_params(model) -> int:
    skip = {id(p) for m in model.modules() if isinstance(m, torch.nn.Embedding) for p in m.parameters()}
    return sum(p.numel() for p in model.parameters() if id(p) not in skip)


def tflops(model, forwarded_tokens: int, seconds: float, device, dtype: str) -> str:
    if device.type != "cuda" or not forwarded_tokens:
        return "-"
    achieved = 2 * non_embedding_params(model) * forwarded_tokens / seconds / 1e12
    name = torch.cuda.get_device_name(device)
    peak = next((v.get(dtype) for k, v in PEAK_TFLOPS.items() if k in name), None)
    return f"{achieved:.1f}" + (f" / {peak:.0f} ({100 * achieved / peak:.0f}%)" if peak else " (peak unknown)")


ROWS: list[tuple] = []


def race(kind, model, tools, n_requests, n_tokens, repeat, device, floor_reset=None):
    """Run each (name, fn, forwarded-tokens fn, dtype) ``repeat`` times, alternating tools round by
    round so that machine load drifts over all of them alike; record each tool's fastest run.

    With ``floor_reset`` (called after the untimed tracing runs, to reset the scorer's counters)
    each tool's linear layers are also replayed alone in the same rounds (``linear_floor``)."""
    floors = {}
    if floor_reset is not None:
        from scripts.linear_floor import replayer, trace_linears

        for name, fn, _, _ in list(tools):
            trace = trace_linears(model_of[kind], fn)
            floors[name] = f"floor: {name.split(' (')[0]}, linear layers alone", trace.flops
            tools = tools + [(floors[name][0], replayer(trace), None, None)]
        floor_reset()
    best: dict[str, tuple] = {}
    outputs = {}
    for _ in range(repeat):
        for name, fn, forwarded, dtype in tools:
            out, sec, peak = timed(fn, device)
            outputs[name] = out
            if name not in best or sec < best[name][0]:
                best[name] = (sec, peak, forwarded() if forwarded else 0, dtype)
    for name, _, _, _ in tools:
        sec, peak, fwd, dtype = best[name]
        tf = tflops(model_of[kind], fwd, sec, device, dtype) if fwd else "-"
        record(kind, model, name, n_requests, n_tokens, sec, peak, tf)
    for name, (floor_name, flops) in floors.items():
        wall, alone = best[name][0], best[floor_name][0]
        FLOORS.append((kind, name, wall, alone))
        print(f"  {name}: {flops / 1e9:.0f} GFLOP in linear layers; alone they take {alone:.2f} s "
              f"({flops / alone / 1e9:.0f} GFLOP/s), {100 * alone / wall:.0f}% of its {wall:.2f} s")
    return outputs


#: (kind, tool, wall seconds, its linear layers alone in seconds), for the closing lines
FLOORS: list[tuple[str, str, float, float]] = []


model_of: dict[str, torch.nn.Module] = {}


def record(kind, model, tool, n_requests, n_tokens, seconds, peak, tf="-", peaks=None):
    """``peaks``: per-rank peak MiB ("a / b") for an N-process row; else the one peak."""
    peaks = peaks or f"{peak / 2**20:.0f}"
    ROWS.append((kind, model, tool, n_requests / seconds, n_tokens / seconds, seconds, peaks, tf))
    print(f"  {tool:<34} {seconds:8.2f} s  {n_requests / seconds:9.1f} req/s  {n_tokens / seconds:9.0f} tok/s"
          f"  peak {peaks:>7} MiB  TFLOP/s {tf}", flush=True)


def check(name, a, b, tolerance):
    diff = float(np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))))
    print(f"  max |score diff| {name}: {diff:.2e}")
    if diff > tolerance:
        raise SystemExit(f"scores differ by {diff:.2e} (> {tolerance:g}): {name}")


# ---------------------------------------------------------------------------- N processes
def nproc_race(kind, model, score, requests, costs, bundles, n_tokens, repeat, device, one_process, tolerance):
    """Score ``requests`` split over the torchrun ranks, dealt as lexprobe's evaluate paths deal
    their units (``run_units``: longest processing time first by token cost, bundled units on one
    rank); rank 0 gathers, checks against the 1-process scores and records the fastest round.

    Aggregate wall time: from a barrier (all ranks ready) until rank 0 holds every score.
    """
    from lexprobe.distributed import barrier, context, gather, run_units

    ctx = context()
    units = [str(i) for i in range(len(requests))]
    best, peak_all = None, 0  # a rank's peak: the largest of any round (later rounds reuse memory)
    for _ in range(repeat):
        spent = {"seconds": 0.0, "peak": 0, "requests": 0, "tokens": 0}

        def compute(indices):
            mine = [requests[i] for i in indices]
            out, sec, peak = timed(lambda: score(mine), device)
            spent.update(seconds=spent["seconds"] + sec, peak=max(spent["peak"], peak),
                         requests=spent["requests"] + len(indices),
                         tokens=spent["tokens"] + int(sum(costs[i] for i in indices)))
            return [float(x) for x in out]

        barrier()
        t0 = time.perf_counter()
        gathered = run_units(units, compute, costs, step=len(units), bundles=bundles)
        wall = time.perf_counter() - t0
        peak_all = spent["peak"] = max(peak_all, spent["peak"])
        per_rank = gather(spent)
        if ctx.is_main and (best is None or wall < best[0]):
            best = (wall, per_rank, gathered)
    if not ctx.is_main:
        return
    wall, per_rank, gathered = best
    check(f"{ctx.world_size} processes vs 1 process", gathered, one_process, tolerance)
    peaks = " / ".join(f"{r['peak'] / 2**20:.0f}" for r in per_rank)
    record(kind, model, f"lexprobe, {ctx.world_size} processes ({ctx.backend})", len(requests), n_tokens, wall,
           max(r["peak"] for r in per_rank), "-", peaks)
    for rank, r in enumerate(per_rank):
        print(f"    rank {rank}: {r['requests']} requests, {r['tokens']} tokens, scoring {r['seconds']:.2f} s, "
              f"peak {r['peak'] / 2**20:.0f} MiB")
    if device.type == "cpu":
        print("    (CPU peaks are resident-set growth: rank 0 reuses memory freed after its 1-process pass, "
              "so its figure reads low; the other ranks' figures are the fair per-rank peak)")


def is_main_rank() -> bool:
    from lexprobe.distributed import context

    return context().is_main


# ---------------------------------------------------------------------------- requests
def wdlmpro_groups(seeds_per_pos: int, seed: int):
    """Seeded groups with all their co-hyponyms as targets too, so requests share contexts as in
    the full dataset (every synset a target: ~48 continuations per definition context)."""
    from lexprobe.benchmarks.wdlmpro.dataset import wordnet_sample
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups

    groups = []
    for pos in ("n", "v"):
        targets = dict.fromkeys(c.synset for g in wordnet_sample(pos, seeds_per_pos, seed) for c in g.candidates)
        groups += build_groups(pos, targets=list(targets))
    return groups


def wdlmpro_pairs(seeds_per_pos: int, seed: int) -> list[tuple[str, str, str]]:
    """Distinct (pos, word, definition) pairs that both tasks need, in a fixed order."""
    from lexprobe.benchmarks.wdlmpro.likelihood import pair

    groups = wdlmpro_groups(seeds_per_pos, seed)
    return sorted({(g.pos, *pair(task, g, c)) for g in groups for c in g.candidates for task in ("w2d", "d2w")})


def wdlmpro_causal_requests(seeds_per_pos: int, seed: int) -> list[tuple[str, str]]:
    from lexprobe.benchmarks.wdlmpro.likelihood import Asker
    from lexprobe.asking.requests import Continuation

    ask = Asker(Continuation)
    return [(r.context, r.continuation) for pos, word, definition in wdlmpro_pairs(seeds_per_pos, seed)
            for r in ask.of("w2d", pos, word, definition)]


def wdlmpro_masked_requests(scorer, seeds_per_pos: int, seed: int):
    from lexprobe.benchmarks.wdlmpro.likelihood import Asker
    from lexprobe.asking.requests import Slot

    ask = Asker(Slot)
    return [scorer.slot_request(r.left, r.word, r.right) for pos, word, definition in wdlmpro_pairs(seeds_per_pos, seed)
            for r in ask.of("w2d", pos, word, definition)]


def coda21_requests(path: str | None, n_groups: int, limit: int | None = None) -> list[tuple[str, str]]:
    from lexprobe.benchmarks.coda21.cli import resolve_coda_file
    from lexprobe.benchmarks.coda21.dataset import load_coda
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.benchmarks.coda21.likelihood import group_requests
    from lexprobe.asking.requests import Continuation

    # a file, or the official clean-hard file of the data directory (`lexprobe data fetch coda21-clean-hard`)
    data = load_coda(resolve_coda_file(path or "clean-hard"))
    groups = data.by_pos("n")[: n_groups // 2] + data.by_pos("v")[: n_groups - n_groups // 2]
    return [(r.context, r.continuation) for g in groups
            for r in group_requests(Continuation, g, CodaConfig())][:limit]


# ---------------------------------------------------------------------------- kinds
def bench_causal(args, model_path, device):
    from lexprobe.scorers import reference

    requests = wdlmpro_causal_requests(args.groups, args.seed)
    scorer = load_scorer(model_path, kind="causal", device=args.device, dtype=args.dtype, batch_size=args.batch_size)
    tokens = sum(sum(map(len, scorer.split(c, x))) for c, x in requests)
    print(f"causal: {len(requests)} WDLMPro requests, {len({c for c, _ in requests})} contexts, "
          f"{tokens} request tokens; {model_path} on {scorer.device}")
    model_of["causal"] = scorer.model
    score = lambda reqs: [float(lp.sum()) for lp in scorer.continuation_logprobs(reqs)]  # noqa: E731
    costs = [sum(map(len, scorer.split(c, x))) for c, x in requests]
    nproc = lambda one: nproc_race("causal", model_path, score, requests, costs,  # noqa: E731
                                   [c for c, _ in requests],  # requests sharing a context share its forward pass
                                   tokens, args.repeat, scorer.device, one, args.tolerance)
    if not is_main_rank():
        return nproc(None)
    tools = [("lexprobe (packed, 4-D mask)", lambda: scorer.continuation_logprobs(requests),
              lambda: scorer.stats.get("packed_tokens", 0) // args.repeat, scorer_dtype(scorer))]
    if args.with_previous:
        def previous():
            scorer.strategy = "cache"
            try:
                return scorer.continuation_logprobs(requests)
            finally:
                scorer.strategy = "packed"

        tools.append(("lexprobe (previous: KV cache copies)", previous, None, None))
    if "lm-eval" in args.peers:
        from lm_eval.api.instance import Instance
        from lm_eval.models.huggingface import HFLM

        lm = HFLM(pretrained=scorer.model, tokenizer=scorer.tokenizer, batch_size=32, device=str(scorer.device),
                  logits_cache=True)
        instances = [Instance("loglikelihood", {}, (c, x), i) for i, (c, x) in enumerate(requests)]
        tools.append(("lm-eval loglikelihood (batch 32)", lambda: lm.loglikelihood(instances, disable_tqdm=True),
                      None, None))
    scorer.stats.clear()
    outputs = race("causal", model_path, tools, len(requests), tokens, args.repeat, scorer.device,
                   scorer.stats.clear if args.floor else None)
    packed = [float(lp.sum()) for lp in outputs[tools[0][0]]]
    if args.with_previous:
        check("packed vs previous", packed, [float(lp.sum()) for lp in outputs[tools[1][0]]], args.tolerance)
    if "lm-eval" in args.peers:
        check("lexprobe vs lm-eval", packed, [lp for lp, _ in outputs[tools[-1][0]]], args.tolerance)
    sample = requests[:: max(1, len(requests) // 20)]
    ref = [float(reference.causal_continuation_logprobs(scorer, c, x).sum()) for c, x in sample]
    check("lexprobe vs plain reference (sample)", packed[:: max(1, len(requests) // 20)], ref, args.tolerance)
    if args.world_size > 1:
        nproc(packed)
    if args.bf16_check:
        low = load_scorer(model_path, kind="causal", device=args.device, dtype="bfloat16", batch_size=args.batch_size)
        bf16_report("causal", packed, [float(lp.sum()) for lp in low.continuation_logprobs(requests)], low)
        bf16_report("causal, batch size 1", [float(lp.sum()) for lp in low.continuation_logprobs(requests[:64])],
                    [float(lp.sum()) for lp in _with_batch(low, 1).continuation_logprobs(requests[:64])], low)


def _with_batch(scorer, size):
    scorer.batch_size = size
    return scorer


def bf16_report(what, fp32, bf16, scorer):
    d = np.abs(np.asarray(fp32) - np.asarray(bf16))
    print(f"  bfloat16 vs float32 ({what}, {scorer.device}): max |diff| {d.max():.3g}, mean {d.mean():.3g}, "
          f"median {np.median(d):.3g} nats per request")


def bench_pll(args, model_path, device):
    from lexprobe.scorers.pll import pll_reference, pll_token_logprobs

    requests = coda21_requests(args.coda, args.coda_groups, args.coda_requests)
    scorer = load_scorer(model_path, kind="masked", device=args.device, dtype=args.dtype, batch_size=args.batch_size)
    no_cut = {"max_tokens": None} if "max_tokens" in inspect.signature(pll_token_logprobs).parameters else {}
    tokens = sum(len(scorer.tokenizer(p + c)["input_ids"]) for p, c in requests)
    print(f"pll: {len(requests)} CoDA21 (prompt, definition) requests, {tokens} request tokens; "
          f"{model_path} on {scorer.device}")
    model_of["pll"] = scorer.model
    score = lambda reqs: [float(lp.sum()) for lp in pll_token_logprobs(scorer, reqs, "token", **no_cut)]  # noqa: E731
    costs = [len(scorer.tokenizer(p + c)["input_ids"]) for p, c in requests]
    nproc = lambda one: nproc_race("pll", model_path, score, requests, costs, None, tokens,  # noqa: E731
                                   args.repeat, scorer.device, one, args.tolerance)
    if not is_main_rank():
        return nproc(None)
    tools = [("lexprobe PLL", lambda: pll_token_logprobs(scorer, requests, "token", **no_cut),
              lambda: scorer.stats.get("pll_tokens", 0) // args.repeat, scorer_dtype(scorer))]
    if args.with_full_last_layer:
        tools.append(_full_last_layer_tool("lexprobe PLL", scorer, lambda: pll_token_logprobs(
            scorer, requests, "token", **no_cut)))
    b = args.minicons_batch
    if "minicons" in args.peers:
        from minicons.scorer import MaskedLMScorer

        tok = scorer.tokenizer
        if not hasattr(tok, "batch_encode_plus"):  # removed in transformers 5; minicons still calls it
            tok.batch_encode_plus = tok.__call__
        mlm = MaskedLMScorer(scorer.model, device=str(scorer.device), tokenizer=tok)

        def run():
            out = []
            for i in range(0, len(requests), b):
                chunk = requests[i:i + b]
                out += mlm.conditional_score([p for p, _ in chunk], [c[1:] for _, c in chunk],
                                             reduction=lambda x: x.tolist())
            return out

        tools.append((f"minicons conditional_score (batch {b})", run, None, None))
    scorer.stats.clear()
    outputs = race("pll", model_path, tools, len(requests), tokens, args.repeat, scorer.device,
                   scorer.stats.clear if args.floor else None)
    per_token = outputs["lexprobe PLL"]
    ours = [float(lp.sum()) for lp in per_token]
    if args.with_full_last_layer:
        _report_last_layer_cut("pll", per_token, outputs[FULL_LAST_LAYER.format("lexprobe PLL")], args.tolerance)
    if "minicons" in args.peers:
        theirs = outputs[next(t[0] for t in tools if t[0].startswith("minicons"))]
        # per-token terms (sums of ~15 float32 terms of -10 each differ by float32 rounding alone)
        check("lexprobe vs minicons, per token", np.concatenate(per_token), np.concatenate(theirs), args.tolerance)
    step = max(1, len(requests) // 10)
    ref = [float(pll_reference(scorer, p, c, "token", **no_cut).sum()) for p, c in requests[::step]]
    check("lexprobe vs plain reference (sample)", ours[::step], ref, args.tolerance)
    if args.world_size > 1:
        nproc(ours)
    if args.bf16_check:
        low = load_scorer(model_path, kind="masked", device=args.device, dtype="bfloat16", batch_size=args.batch_size)
        bf16_report("pll", ours, [float(lp.sum()) for lp in pll_token_logprobs(low, requests, "token", **no_cut)], low)


def bench_masked(args, model_path, device):
    scorer = load_scorer(model_path, kind="masked", device=args.device, dtype=args.dtype, batch_size=args.batch_size)
    requests = wdlmpro_masked_requests(scorer, args.groups, args.seed)
    tokens = sum(len(r.prefix) + len(r.word) + len(r.suffix) for r in requests)
    print(f"masked: {len(requests)} WDLMPro slot requests ({len({r.query for r in requests})} distinct queries), "
          f"{tokens} request tokens; {model_path} on {scorer.device}")
    model_of["masked"] = scorer.model
    score = lambda reqs: [float(lp.sum()) for lp in scorer.slot_logprobs(reqs)]  # noqa: E731
    costs = [len(r.prefix) + len(r.word) + len(r.suffix) for r in requests]
    nproc = lambda one: nproc_race("masked", model_path, score, requests, costs,  # noqa: E731
                                   [r.query for r in requests],  # one forward pass per distinct query
                                   tokens, args.repeat, scorer.device, one, args.tolerance)
    if not is_main_rank():
        return nproc(None)
    scorer.stats.clear()
    tools = [("lexprobe slot scoring", lambda: scorer.slot_logprobs(requests),
              lambda: scorer.stats.get("query_tokens", 0) // args.repeat, scorer_dtype(scorer))]
    if args.with_full_last_layer:
        tools.append(_full_last_layer_tool("lexprobe slot scoring", scorer, lambda: scorer.slot_logprobs(requests)))
    out = race("masked", model_path, tools, len(requests), tokens, args.repeat, scorer.device,
               scorer.stats.clear if args.floor else None)
    if args.with_full_last_layer:
        _report_last_layer_cut("masked", out["lexprobe slot scoring"],
                               out[FULL_LAST_LAYER.format("lexprobe slot scoring")], args.tolerance)
    if args.world_size > 1:
        nproc([float(lp.sum()) for lp in out["lexprobe slot scoring"]])


FULL_LAST_LAYER = "{}, full last layer"  # no " (": --floor names rows by the text before it


def _full_last_layer_tool(name, scorer, fn):
    """The same scoring with the encoder's last layer run at every position (encoder_tail off)."""
    from lexprobe.scorers.encoder_tail import full_last_layer

    def run():
        with full_last_layer(scorer.model):
            return fn()

    return FULL_LAST_LAYER.format(name), run, None, scorer_dtype(scorer)


def _report_last_layer_cut(kind, cut, full, tolerance):
    from lexprobe.scorers.encoder_tail import last_layer_cut

    model = model_of[kind]
    seconds = {r[2]: r[5] for r in ROWS if r[0] == kind}
    name = next(n for n in seconds if n.startswith("lexprobe") and "full last layer" not in n)
    print(f"  last layer at scored positions only ({'on' if last_layer_cut(model) else 'NOT supported: off'}): "
          f"{seconds[FULL_LAST_LAYER.format(name)] / seconds[name]:.3f}x the full-last-layer speed")
    check("last-layer cut vs full last layer, per token", np.concatenate(cut), np.concatenate(full), tolerance)


def scorer_dtype(scorer) -> str:
    return str(scorer.model.dtype).replace("torch.", "")


def print_table():
    print("\n| kind | model | tool | requests/s | tokens/s | wall s | peak MiB (per rank) | TFLOP/s |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for kind, model, tool, rps, tps, sec, mib, tf in ROWS:
        print(f"| {kind} | {Path(model).name} | {tool} | {rps:.1f} | {tps:.0f} | {sec:.2f} | {mib} | {tf} |")
    by: dict[tuple[str, str], float] = {}
    for r in ROWS:  # the first row of each tool family: lexprobe's current path comes first
        by.setdefault((r[0], r[2].split(" ")[0]), r[5])
    for kind, name in {(r[0], r[2]) for r in ROWS if r[2].startswith("lexprobe, ")}:
        n = next(r for r in ROWS if r[0] == kind and r[2] == name)
        one = next(r for r in ROWS if r[0] == kind and r[2].split(" ")[0] == "lexprobe")
        print(f"{kind}: {name.split(', ')[1]} give {n[3] / one[3]:.2f}x the 1-process requests/s")
    for kind, peer in (("causal", "lm-eval"), ("pll", "minicons")):
        if (kind, "lexprobe") in by and (kind, peer) in by:
            print(f"{kind}: lexprobe is {by[(kind, peer)] / by[(kind, 'lexprobe')]:.1f}x faster than {peer}")
    for kind, tool, wall, alone in FLOORS:
        if tool.startswith("lexprobe") and (kind, "lexprobe") in by and by[(kind, "lexprobe")] == wall:
            peers = [(p, by[(kind, p)]) for k, p in (("causal", "lm-eval"), ("pll", "minicons")) if k == kind
                     and (kind, p) in by]
            for peer, theirs in peers:
                print(f"{kind}: a tool that ran lexprobe's linear layers and nothing else would be "
                      f"{theirs / alone:.1f}x faster than {peer} (the ceiling for lexprobe's exact work on this device)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kind", action="append", choices=("causal", "pll", "masked"),
                    help="scorer kinds to measure (repeatable; default all)")
    ap.add_argument("--gpt2", help="causal model (default: random GPT-2-small shape, built offline)")
    ap.add_argument("--bert", help="masked model (default: random BERT-base shape, built offline)")
    ap.add_argument("--groups", type=int, default=2,
                    help="WDLMPro seed groups per POS (each expanded to its co-hyponyms' groups)")
    ap.add_argument("--coda", help="CoDA21 file or variant name (default: clean-hard from the data directory; "
                                   "`lexprobe data fetch coda21-clean-hard`)")
    ap.add_argument("--coda-groups", type=int, default=6, help="CoDA21 groups (half nouns, half verbs)")
    ap.add_argument("--coda-requests", type=int, default=None, help="keep only the first N CoDA21 requests")
    ap.add_argument("--minicons-batch", type=int, default=8, help="requests per minicons call")
    ap.add_argument("--peers", default="lm-eval,minicons", help="peer tools to run (comma list; '' for none)")
    ap.add_argument("--with-previous", action="store_true", help="also time lexprobe's previous causal design")
    ap.add_argument("--with-full-last-layer", action="store_true",
                    help="pll/masked: also time lexprobe with the last encoder layer run at every position")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--batch-size", default=None, help="lexprobe batch size (int or auto; default per scorer)")
    ap.add_argument("--tolerance", type=float, default=1e-5)
    ap.add_argument("--repeat", type=int, default=1,
                    help="rounds; tools alternate within a round and each keeps its fastest run (noisy machines)")
    ap.add_argument("--bf16-check", action="store_true",
                    help="also score in bfloat16 and print its distance from float32 (and across batch sizes)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--nproc", type=int, default=1,
                    help="N-process figures: launch this script with torchrun --standalone --nproc-per-node N "
                         "(this option only checks that the launch matches); rank 0 also prints the 1-process row")
    ap.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    ap.add_argument("--floor", action="store_true",
                    help="also replay each tool's linear layers alone (same shapes, nothing else), in the same "
                         "rounds: how close each tool is to its floor, and the ceiling of any exact speed-up")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.batch_size not in (None, "auto"):
        args.batch_size = int(args.batch_size)
    args.peers = [p for p in args.peers.split(",") if p]
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if args.nproc > 1 and world != args.nproc:
        raise SystemExit(f"--nproc {args.nproc} needs the script started by torchrun with {args.nproc} processes: "
                         f"torchrun --standalone --nproc-per-node {args.nproc} scripts/bench_throughput.py ...")
    if world > 1:
        from lexprobe.distributed import context

        ctx = context()  # gloo on CPU, nccl (one GPU per rank) on GPUs
        if not ctx.is_main:  # one report, from rank 0
            sys.stdout = open(os.devnull, "w")
    args.world_size = world
    kinds = args.kind or ["causal", "pll", "masked"]
    models = {}
    if not (args.gpt2 and args.bert):
        from scripts.base_models import base_model_dirs

        models = {k: str(v) for k, v in base_model_dirs().items()}
    gpt2, bert = args.gpt2 or models.get("gpt2"), args.bert or models.get("bert")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads"
          f"{f' per process, {world} processes' if world > 1 else ''}; "
          f"dtype {args.dtype}; batch size {args.batch_size or 'default'}")
    device = torch.device("cpu")
    if "causal" in kinds:
        bench_causal(args, gpt2, device)
    if "pll" in kinds:
        bench_pll(args, bert, device)
    if "masked" in kinds:
        bench_masked(args, bert, device)
    if is_main_rank():
        print_table()


if __name__ == "__main__":
    from lexprobe.errors import LexprobeError

    try:
        main()
    except LexprobeError as err:
        sys.exit(f"bench_throughput: error: {err}")
