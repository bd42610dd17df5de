"""How much each choice of the WDLMPro recipes moves results, one choice at a time.

Runs the paper recipe, each authors' choice alone on top of it, the other pattern
aggregations, and the full authors recipe on the same seeded sample, and prints P@1 / RS
per task and POS, how many instances got a different gold rank than under the paper
recipe, and how many the recipe dropped (static vectors under ``authors``).

    python scripts/wdlmpro_recipe_effects.py --model glove-6b-50d --limit 200
    python scripts/wdlmpro_recipe_effects.py --model smollm2-135m-instruct-q4 --limit 20

``--model`` takes anything ``load_scorer`` does and the GGUF short names of
``scripts/gguf_models.py`` (de-quantised Q4 weights). Choices that cannot change a
kind of model's scores are left out of its table (the pattern aggregation for one-pattern
causal LMs, the text shown for static vectors, ...), and so is the synset-word rule when no
sampled group holds a name with a full stop in its lemma. Each distinct set of inputs is
scored once (the tie rule reuses the scores), so the ``s`` column is 0 where nothing new
was scored. Figures are only as meaningful as
the model: a random-weight model ranks at chance, so for it only the count of changed
ranks says anything (how often a choice matters).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gguf_models import load_any  # noqa: E402

from lexprobe.benchmarks.wdlmpro.dataset import default_dataset, sample_groups  # noqa: E402
from lexprobe.benchmarks.wdlmpro.likelihood import Likelihood, instance_records  # noqa: E402
from lexprobe.asking.engine import Engine  # noqa: E402
from lexprobe.benchmarks.wdlmpro.recipe import AUTHORS, PAPER  # noqa: E402
from lexprobe.metrics.ranking import summarize  # noqa: E402
from lexprobe.reporting import format_table  # noqa: E402

TASKS = ("w2d", "d2w")
LM = ("masked", "causal")

#: (label, change to the paper recipe, kinds it can matter for)
CHOICES = [
    ("W2D patterns: mean of log-probabilities (former default)", dict(pattern_aggregation="mean-logprob"), ("masked",)),
    ("best pattern per target (authors' notebook, oracle)", dict(pattern_aggregation="best"), ("masked",)),
    ("capitalisation (str.capitalize, definition at start)", dict(python_capitalize=True, capitalize_definition=True), LM),
    ("D2W verb patterns capitalised", dict(masked_patterns=AUTHORS.masked_patterns,
                                           causal_patterns=AUTHORS.causal_patterns), LM),
    ("definitions cut to 48 tokens", dict(max_definition_tokens=AUTHORS.max_definition_tokens), LM),
    ("words: synset name split at the first '.'", dict(string_form="authors"), None),
    ("GPT-2 W2D batch context shift", dict(causal_batch_shift=AUTHORS.causal_batch_shift), ("causal",)),
    ("static: skip what has no vector (authors)", dict(static_drop=True), ("static",)),
    ("ties by np.argsort position", dict(ties="argsort"), None),
]


class RegexTokens:
    """lexprobe's static tokenisation before issue 18: a regex, exact lookup, then lower-case."""

    _re = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]", re.UNICODE)

    def __init__(self, scorer):
        self.scorer = scorer
        scorer.tokens = lambda text: [w if w in scorer.vectors else w.lower() for w in self._re.findall(text)]
        scorer._tokens = {}


def run(engine, groups, recipe) -> tuple[dict, int, float]:
    """One recipe's ranks. The engine is shared by the recipes: a request two recipes ask (the tie rule and the
    recipe's name never change one) is scored once."""
    start = time.perf_counter()
    kind = engine.require(Likelihood.requests, "wdlmpro --method likelihood")[0]
    recs = [r for per in instance_records(engine, kind, groups, TASKS, [{} for _ in groups], recipe) for r in per]
    ranks = {(r["task"], r["target"]): r.get("gold_rank") for r in recs}
    sizes = {(r["task"], r["target"]): r.get("n_candidates") for r in recs}
    return {k: (ranks[k], sizes[k]) for k in ranks}, sum(r.get("gold_rank") is None for r in recs), \
        time.perf_counter() - start


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
    scorer = load_any(args.model, kind=args.kind, device=args.device, seed=args.seed)
    variants = [("paper", PAPER)]
    variants += [(label, dataclasses.replace(PAPER, name=f"paper+{i}", **change))
                 for i, (label, change, kinds) in enumerate(CHOICES) if kinds is None or scorer.kind in kinds]
    variants.append(("authors (all choices)", AUTHORS))

    if not any(c.synset.count(".") > 2 for g in groups for c in g.candidates):  # nothing to cut short
        variants = [(label, p) for label, p in variants if p.string_form == "paper" or p is AUTHORS]
    engine = Engine(scorer)
    headers = ["recipe", "W2D noun P@1/RS", "W2D verb", "D2W noun", "D2W verb", "ranks changed", "dropped", "s"]
    title = f"{scorer.name} ({scorer.kind}), {args.limit} groups per POS, seed {args.seed}"
    rows, base = [], None
    for label, recipe in variants:
        ranks, dropped, seconds = run(engine, groups, recipe)
        rows.append(_row(label, ranks, base, dropped, seconds, groups))
        base = base or ranks
        print(" | ".join(map(str, rows[-1])), file=sys.stderr, flush=True)  # progress: the table comes at the end
    if scorer.kind == "static":
        RegexTokens(scorer)
        ranks, dropped, seconds = run(Engine(scorer), groups, PAPER)  # other tokens: other answers
        rows.append(_row("paper, regex tokens + lower-case fallback (before)", ranks, base, dropped, seconds, groups))
    print(format_table(headers, rows, title=title))


def _row(label, ranks, base, dropped, seconds, groups):
    base = base or ranks
    changed = sum(ranks[k][0] != base[k][0] for k in ranks if ranks[k][0] is not None and base[k][0] is not None)
    cells = []
    for t in TASKS:
        for pos in ("n", "v"):
            keys = [(t, g.target) for g in groups if g.pos == pos and ranks[(t, g.target)][0] is not None]
            m = summarize([ranks[k][0] for k in keys], [ranks[k][1] for k in keys])
            cells.append(f"{100 * m['p_at_1']:.1f} / {m['rank_score']:.3f}")
    return [label] + cells + [f"{changed} / {len(ranks)}", dropped, f"{seconds:.0f}"]


if __name__ == "__main__":
    main()
