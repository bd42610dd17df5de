#!/usr/bin/env python
"""Ask-to-choose on CoDA21: the prompt fed once for all k x k row-and-letter continuations, against
the packing that fed it once per pair.

The label-likelihood reading of a CoDA21 group asks for every definition letter after
``prompt + " c:"`` for every context row c: k x k short continuations of one long prompt.
Packed units used to stop at ``pack_tokens`` (512) tokens, so a longer prompt (a chat
prompt of a k = 7 group on SmolLM2 is ~520 tokens) was fed once per pair; a unit may now
grow to twice its context (``CausalLMScorer.context_factor = 2``). Both settings run side by
side on the same groups and must give the same log-probabilities (max |diff| printed).

    python scripts/bench_choose_sharing.py                          # SmolLM2 (GGUF), first k = 7 noun group
    python scripts/bench_choose_sharing.py --model /path/to/model --k 10 --groups 3 --plain
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lexprobe.api  # noqa: E402,F401  (registers the benchmarks the run looks up)
from lexprobe.benchmarks.coda21 import choose as choose_coda  # noqa: E402
from lexprobe.benchmarks.coda21.cli import resolve_coda_file  # noqa: E402
from lexprobe.benchmarks.coda21.config import CodaConfig  # noqa: E402
from lexprobe.benchmarks.coda21.dataset import load_coda  # noqa: E402
from lexprobe.asking.engine import Engine  # noqa: E402
from lexprobe.asking.requests import Continuation  # noqa: E402
from lexprobe.models import load_scorer  # noqa: E402
from lexprobe.prompting.choose_cli import ChooseOptions  # noqa: E402
from lexprobe.prompting.templates import default_template, option_labels  # noqa: E402


def requests(items) -> list[Continuation]:
    """Each item's k x k row-and-letter requests, as ``prompting.choose.ask`` asks them."""
    t = default_template()
    return [Continuation(it["prompt"], " " + x, answer_prefix=t.answer, given=t.coda_row.format(context=c + 1))
            for it in items for c in range(len(it["shown"])) for x in option_labels(len(it["shown"]), "letters")]


def run(scorer, asked, factor: int):
    scorer.context_factor = factor
    scorer.stats.clear()
    for memo in ("_pair_ids", "_lengths", "_chat_texts"):  # tokenisation counted in each setting's time
        scorer.__dict__.pop(memo, None)
    t0 = time.perf_counter()
    out = Engine(scorer)(asked)  # a new engine: nothing memoised from the other setting
    return out, time.perf_counter() - t0, dict(scorer.stats)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--data", default="clean-easy")
    ap.add_argument("--pos", default="n")
    ap.add_argument("--k", type=int, default=7, help="groups of this size")
    ap.add_argument("--groups", type=int, default=1)
    ap.add_argument("--plain", action="store_true", help="no chat template")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    data = load_coda(resolve_coda_file(args.data))
    groups = [g for g in data.by_pos(args.pos) if g.k == args.k][: args.groups]
    if not groups:
        print(f"no {args.pos} group with k = {args.k} in {args.data}")
        return 2
    scorer = load_scorer(args.model, device=args.device)
    chat = not args.plain
    items = choose_coda.build_items(groups, CodaConfig(choose=ChooseOptions(chat=chat)), default_template())
    lengths = [len(scorer.prompt_ids(it["prompt"], default_template().answer)) for it in items]
    print(f"{args.model}: {len(items)} group(s) of k = {args.k}, prompts of {lengths} tokens, "
          f"pack_tokens {scorer.pack_tokens}")
    asked = requests(items)
    before, t_before, s_before = run(scorer, asked, factor=1)
    after, t_after, s_after = run(scorer, asked, factor=2)
    diff = max(float(np.abs(a - b).max()) for a, b in zip(before, after))
    print(f"{'packing':<28}{'context passes':>15}{'tokens fed':>12}{'seconds':>9}")
    for name, t, s in (("one unit per pair (before)", t_before, s_before), ("prompt once (after)", t_after, s_after)):
        print(f"{name:<28}{s['context_forwards']:>15}{s['packed_tokens']:>12}{t:>9.2f}")
    print(f"tokens fed: {s_before['packed_tokens'] / s_after['packed_tokens']:.1f}x fewer; "
          f"time: {t_before / t_after:.1f}x; max |log-prob diff| {diff:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
