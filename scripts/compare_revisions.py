#!/usr/bin/env python
"""Two revisions of lexprobe, side by side: the same ``lexprobe`` commands run on each, alternated, timed, and
their result files compared whole (apart from what differs between any two runs: the run record but its ``job``,
timing and plot paths).

Why: a refactor (issue #37) must not move a number or slow a run. Alternating the revisions in one session
spreads a shared machine's noise over both; the first repetition warms caches and builds (not counted).

    python scripts/compare_revisions.py --before 1b3d05b --after HEAD --reps 2 \\
        "wdlmpro eval --model smollm2-135m-instruct --limit 25 --seed 3" \\
        "coda21 eval --data clean-hard --limit 3 --model smollm2-135m-instruct"

Each revision is checked out once into a temporary git worktree and run with this interpreter (its installed
packages), ``PYTHONPATH`` pointing at that worktree. Prints a line per run and a table: mean wall seconds per
command and revision, the change, and the number of differing fields in the result files.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lexprobe.reporting import format_table  # noqa: E402

#: top-level result fields that differ between two runs of the same job
VOLATILE = {"run", "timing", "plot"}


def compared(result: dict) -> dict:
    """A result without what differs between two runs of the same job, keeping the run record's ``job`` (the digest
    of the resume key: the same job must keep it, or an interrupted run would not resume across the change)."""
    kept = {k: v for k, v in result.items() if k not in VOLATILE}
    kept["run.job"] = (result.get("run") or {}).get("job")
    return kept


def differences(a, b, path: str = "") -> list[str]:
    """Paths where two JSON values differ (floats within 1e-12 count as equal)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b))
                for d in ([f"{path}/{k}"] if k not in a or k not in b else differences(a[k], b[k], f"{path}/{k}"))]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path} (length {len(a)} vs {len(b)})"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if abs(a - b) <= 1e-12 else [path]
    return [] if a == b else [path]


def run(tree: Path, command: str, out: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "lexprobe", *shlex.split(command), "--out", str(out)], env=env,
                          cwd=out.parent, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"compare_revisions: `lexprobe {command}` failed on {tree.name} (exit {done.returncode}): "
                 f"{done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commands", nargs="+", help="lexprobe commands without --out (one quoted string each)")
    parser.add_argument("--before", required=True, help="git revision")
    parser.add_argument("--after", default="HEAD", help="git revision (default: HEAD)")
    parser.add_argument("--reps", type=int, default=2, help="timed repetitions after the warm-up (default 2)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lexprobe-revisions-") as scratch:
        work = Path(scratch)
        trees = {}
        for label, rev in (("before", args.before), ("after", args.after)):
            trees[label] = work / label
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(trees[label]), rev],
                           check=True)
        try:
            times: dict[tuple[int, str], list[float]] = {}
            diffs: dict[int, set[str]] = {}
            for rep in range(args.reps + 1):
                for c, command in enumerate(args.commands):
                    files = {}
                    for label, tree in trees.items():
                        files[label] = work / f"{label}-{c}-{rep}.json"
                        seconds = run(tree, command, files[label])
                        print(f"rep {rep}{' (warm-up)' if rep == 0 else ''}  {label:6}  {seconds:8.1f} s  "
                              f"lexprobe {command}", flush=True)
                        if rep:
                            times.setdefault((c, label), []).append(seconds)
                    a, b = (json.loads(files[k].read_text()) for k in ("before", "after"))
                    diffs.setdefault(c, set()).update(differences(compared(a), compared(b)))
        finally:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    rows = []
    for c, command in enumerate(args.commands):
        before, after = (sum(times[(c, k)]) / len(times[(c, k)]) for k in ("before", "after"))
        rows.append([command, f"{before:.1f}", f"{after:.1f}", f"{100 * (after - before) / before:+.1f}%",
                     len(diffs[c]), ", ".join(sorted(diffs[c])[:3])])
    print(format_table(["command", f"{args.before} (s)", f"{args.after} (s)", "change", "differing fields",
                        "first of them"], rows, title=f"mean of {args.reps} timed runs each"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
