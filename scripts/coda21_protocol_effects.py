"""Measure how much each choice of CoDA21's ``authors`` recipe (``--recipe authors``) moves a model's accuracy.

Usage: python scripts/coda21_protocol_effects.py --data CoDA-clean-hard.json [--model all-MiniLM-L6-v2]

Only groups whose inputs differ between the recipes need scoring: for substring
replacement, the groups where ``str.replace`` hides more than the whole word; for
the tie rule, groups whose score matrix has tied optimal alignments (found from the
paper recipe's scores). The accuracy change over the whole file is the change in
those groups divided by the number of groups per POS.
"""

from __future__ import annotations

import argparse

import numpy as np

from lexprobe.benchmarks.coda21.dataset import CodaData, load_coda
from lexprobe.benchmarks.coda21.config import CodaConfig
from lexprobe.benchmarks.coda21.likelihood import hide_target
from lexprobe.api import evaluate  # (registers the shipped benchmarks)
from lexprobe.models import load_scorer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    args = ap.parse_args()
    data = load_coda(args.data)
    changed = [g for g in data.groups
               if any(hide_target(c.context, c.word, "x") != hide_target(c.context, c.word, "x", "authors")
                      for c in g.candidates)]
    per_pos = {p: len(data.by_pos(p)) for p in ("n", "v")}
    print(f"{args.data}: {len(changed)} of {len(data.groups)} groups have a context that substring "
          f"replacement changes: {[g.id for g in changed]}")
    if not changed:
        return
    scorer = load_scorer(args.model)
    sub = CodaData(changed, source=data.source)
    paper, authors = (evaluate("coda21", scorer, CodaConfig(data=data.source, recipe=r), items=sub, progress=False)
                      for r in ("paper", "authors"))
    for p in ("n", "v"):
        a = [r["accuracy"] for r in authors["instances"] if r["pos"] == p]
        b = [r["accuracy"] for r in paper["instances"] if r["pos"] == p]
        if a:
            print(f"  {p}: changed groups' accuracy paper {np.mean(b):.3f} -> authors {np.mean(a):.3f}; "
                  f"file accuracy moves by {(sum(a) - sum(b)) / per_pos[p]:+.4f}")
    ties = sum(1 for r in paper["instances"] if len({round(x, 6) for row in r["scores"] for x in row}) < r["k"] ** 2)
    print(f"  groups with repeated scores among the changed ones: {ties}")


if __name__ == "__main__":
    main()
