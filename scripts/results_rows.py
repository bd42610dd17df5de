"""Collect the headline rows of a folder of result files into one compact JSON (docs/results/).

Why: docs/results.md quotes figures from result files too large to commit (per-item records);
this keeps every quoted number, its 95% interval, n, the random baseline on the same units,
the model revision and the exact command, so each row of the doc can be checked against a
small committed file and regenerated with the command it names.

    python scripts/results_rows.py RESULTS_DIR --out docs/results-rows.json [--markdown]

``--markdown`` also prints the tables of docs/results.md (figures x100 where the paper uses
percentages or two decimals, each P@1 / accuracy with its 95% bootstrap interval).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lexprobe.core import result_schema


def _slices(result: dict) -> list[dict]:
    rows = []
    base = (result.get("baselines") or {}).get("random") or {}
    oracle = (result.get("baselines") or {}).get("oracle") or {}
    bias = result.get("breakdowns") or {}
    for task, slices in (result.get("metrics") or {}).items():
        for pos, metrics in slices.items():
            row = {"task": task, "pos": pos, "n": metrics.get("n"),
                   "metrics": {k: v for k, v in metrics.items() if k not in ("n", "ci")},
                   "ci": metrics.get("ci") or {}}
            rnd = (base.get(task) or {}).get(pos)
            if rnd:
                row["random"] = {k: v for k, v in rnd.items() if k not in ("n", "ci")}
            orc = (oracle.get(task) or {}).get(pos)
            if orc:
                row["oracle"] = {k: v for k, v in orc.items() if k not in ("n", "ci")}
            others = {name: ((b.get(task) or {}).get(pos)) for name, b in (result.get("baselines") or {}).items()
                      if name not in ("random", "oracle")}
            if any(others.values()):  # WSD's WordNet first sense and SemCor MFS
                row["baselines"] = {name: {k: v for k, v in b.items() if k not in ("n", "ci")}
                                    for name, b in others.items() if b}
            pb = ((bias.get(task) or {}).get("position_bias") or {}).get(pos)
            if pb:
                row["position_bias"] = {r: {k: v for k, v in b.items() if k in (
                    "n", "most_chosen", "most_chosen_share", "gold_share_there", "tv_distance")}
                    for r, b in pb.items()}
            rows.append(row)
    return rows


def collect(folder: Path) -> list[dict]:
    out = []
    for path in sorted(folder.glob("*.json")):
        try:
            result = result_schema.load(path)
        except Exception as exc:  # a file that is not a result: say so, keep the rest
            print(f"skipped {path.name}: {exc}")
            continue
        run = result.get("run") or {}
        out.append({
            "file": path.name, "benchmark": result["benchmark"], "model": result["model"].get("name"),
            "kind": result["model"].get("kind"), "method": result["method"], "recipe": result["recipe"],
            "readings": result.get("readings") or [], "config": result.get("config"),
            "revision": run.get("model_revision"), "weights": run.get("weights"),
            "git_commit": run.get("git_commit"), "items_digest": run.get("items_digest"),
            "n_items": run.get("n_items"), "command": run.get("command"),
            "seconds": (result.get("timing") or {}).get("seconds"),
            "counts": result.get("counts"), "slices": _slices(result)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--markdown", action="store_true", help="also print the doc's tables")
    args = parser.parse_args()
    rows = collect(args.folder)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1, sort_keys=False) + "\n")
    print(f"{len(rows)} result files -> {args.out}")
    if args.markdown:
        from results_markdown import tables  # scripts/ is on sys.path when run as a script
        print(tables(rows))


if __name__ == "__main__":
    main()
