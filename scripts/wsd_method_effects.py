"""The measured effect of the WSD methods' switches on one model: every likelihood pattern x reduction, or every
embedding vector (and layer), on the same seeded sample, F1 (%) per set and ALL, with seconds.

    python scripts/wsd_method_effects.py --model smollm2-135m-instruct --limit 40          # likelihood switches
    python scripts/wsd_method_effects.py --model all-MiniLM-L6-v2 --embedding --layers -1 3  # embedding switches

The model is loaded once and each request is scored once (the engine's memo): the reductions of a pattern share
its answers. The numbers are those of ``lexprobe wsd eval`` with the same options (the same code path).
"""

from __future__ import annotations

import argparse
import time

from lexprobe.benchmarks.wsd import results as res
from lexprobe.benchmarks.wsd.config import PATTERNS, WsdConfig
from lexprobe.benchmarks.wsd.items import load_items
from lexprobe.benchmarks.wsd.methods import Embedding, Likelihood
from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import Continuation, Embed, TokenVector
from lexprobe.data.wsd import SHORT
from lexprobe.models import load_scorer


def f1_row(label: str, records: list[dict], seconds: float) -> list[str]:
    figures = {s: res.aggregate(m) for s, m in res.slices(records, res.unit_values(records)).items()}
    sets = [s for s in figures if s in SHORT and s != "all"]
    return [label, *[f"{100 * figures[s]['f1']:.1f}" for s in sets], f"{100 * figures['all']['f1']:.1f}",
            f"{seconds:.0f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--limit", type=int, default=40, help="instances per set (seeded sample)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--embedding", action="store_true", help="the embedding method's switches")
    parser.add_argument("--layers", type=int, nargs="+", default=[-1], help="token-vector layers (embedding)")
    args = parser.parse_args()
    items = load_items(WsdConfig(limit=args.limit, seed=args.seed))
    instances = items.instances
    rows = []
    if args.embedding:
        scorer = load_scorer(args.model, prefer="token")
        engine = Engine(scorer)
        for layer in args.layers:
            start = time.time()
            config = WsdConfig(method="embedding", vector="token", layer=layer)
            records = Embedding().score(engine, (TokenVector,), config, items, instances)
            rows.append(f1_row(f"token vectors, layer {layer}", records, time.time() - start))
        sentence = load_scorer(args.model)
        if hasattr(sentence, "embeddings"):
            start = time.time()
            records = Embedding().score(Engine(sentence), (Embed,), WsdConfig(method="embedding", vector="sentence"),
                                        items, instances)
            rows.append(f1_row("sentence vectors", records, time.time() - start))
    else:
        engine = Engine(load_scorer(args.model, kind="causal"))
        for pattern in PATTERNS:
            for reduce in ("mean", "sum"):
                start = time.time()
                config = WsdConfig(pattern=pattern, reduce=reduce)
                records = Likelihood().score(engine, (Continuation,), config, items, instances)
                rows.append(f1_row(f"--pattern {pattern} --reduce {reduce}", records, time.time() - start))
    sets = [SHORT[s] for s in dict.fromkeys(i.set_name for i in instances)]
    headers = ["setting", *sets, "ALL", "s"]
    print(f"WSD switches, {args.model}, {len(instances)} instances ({args.limit} per set, seed {args.seed}), F1 (%)")
    print("| " + " | ".join(headers) + " |")
    print("|" + "---|" * len(headers))
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
