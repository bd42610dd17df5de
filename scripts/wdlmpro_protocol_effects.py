"""How much each choice of the authors' code moves WDLMPro results, one choice at a time.

Runs the paper protocol, each authors' choice alone on top of it, and the full authors
protocol on the same seeded sample, and prints P@1 / RS per task and POS and how many
instances got a different gold rank than under the paper protocol.

    python scripts/wdlmpro_protocol_effects.py --model all-MiniLM-L6-v2 --limit 500

Figures are only as meaningful as the model: a random-weight model ranks at chance, so
for it only the count of changed ranks says anything (how often a choice matters).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from lexprobe.benchmarks.wdlmpro.dataset import default_dataset, sample_groups
from lexprobe.benchmarks.wdlmpro.evaluate import rank_of_gold
from lexprobe.benchmarks.wdlmpro.protocol import AUTHORS, PAPER
from lexprobe.benchmarks.wdlmpro.scoring import score_groups
from lexprobe.metrics.ranking import summarize
from lexprobe.models import load_scorer
from lexprobe.reporting import format_table

TASKS = ("w2d", "d2w")

SINGLE_CHOICES = {
    "capitalisation (str.capitalize, definition at start)": dict(python_capitalize=True, capitalize_definition=True),
    "D2W verb patterns capitalised": dict(
        masked_patterns=AUTHORS.masked_patterns, causal_patterns=AUTHORS.causal_patterns),
    "definitions cut to 48 tokens": dict(max_definition_tokens=AUTHORS.max_definition_tokens),
    "W2D averages probabilities": dict(w2d_average="prob"),
    "ties by np.argsort position": dict(ties="argsort"),
}


def recipe_key(protocol, kind: str) -> str:
    """What the scores depend on for this kind of model (the tie rule never changes scores)."""
    if kind not in ("masked", "causal"):
        return "any"
    irrelevant = dict(name="", ties=PAPER.ties)
    if kind == "causal":  # one pattern: nothing to average
        irrelevant.update(masked_patterns=PAPER.masked_patterns, w2d_average=PAPER.w2d_average)
    else:
        irrelevant.update(causal_patterns=PAPER.causal_patterns)
    return repr(dataclasses.replace(protocol, **irrelevant))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--kind")
    ap.add_argument("--limit", type=int, default=200, help="groups per POS")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()

    groups = []
    for pos in ("n", "v"):
        groups += sample_groups(default_dataset(pos), args.limit, seed=args.seed)
    scorer = load_scorer(args.model, kind=args.kind, device=args.device, seed=args.seed)
    variants = {"paper": PAPER}
    variants.update({name: dataclasses.replace(PAPER, name=f"paper+{i}", **change)
                     for i, (name, change) in enumerate(SINGLE_CHOICES.items())})
    variants["authors (all choices)"] = AUTHORS

    scored: dict = {}  # the tie rule does not change scores; embeddings ignore every other choice
    rows, base = [], None
    for name, protocol in variants.items():
        start = time.perf_counter()
        key = recipe_key(protocol, scorer.kind)
        if key not in scored:
            scored[key] = score_groups(scorer, groups, TASKS, progress=True, protocol=protocol)
        scores = scored[key]
        ranks = {(t, i): rank_of_gold(scores[(t, i)], protocol)[0] for t in TASKS for i in range(len(groups))}
        base = base or ranks
        changed = sum(ranks[k] != base[k] for k in ranks)
        cells = []
        for t in TASKS:
            for pos in ("n", "v"):
                idx = [i for i, g in enumerate(groups) if g.pos == pos]
                m = summarize([ranks[(t, i)] for i in idx], [groups[i].size for i in idx])
                cells.append(f"{100 * m['p_at_1']:.1f} / {m['rank_score']:.3f}")
        rows.append([name] + cells + [f"{changed} / {len(ranks)}", f"{time.perf_counter() - start:.0f}"])
    headers = ["protocol", "W2D noun P@1/RS", "W2D verb", "D2W noun", "D2W verb", "ranks changed", "s"]
    print(format_table(headers, rows, title=f"{scorer.name} ({scorer.kind}), {args.limit} groups per POS, seed {args.seed}"))


if __name__ == "__main__":
    main()
