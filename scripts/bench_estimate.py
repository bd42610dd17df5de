"""How good is ``--estimate``? The estimate of a whole WDLMPro run, scaled to a 1/F sample, against that sample's
measured time (each in a process of its own, as a user runs them).

    python scripts/bench_estimate.py --model all-MiniLM-L6-v2 --fraction 50
    python scripts/bench_estimate.py --model smollm2-135m-instruct --fraction 500

Prints the estimate (the whole run, its loading), the sample's ``--limit`` (keeping 1/F of the groups), the
time the estimate gives it (loading as measured, the units in proportion) and the time it took. Needs the
WDLMPro dataset built (``lexprobe wdlmpro build``, or any full ``wdlmpro eval``: cached once).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path


def child(argv: list[str]) -> None:
    """``lexprobe`` with ``argv``, printing the estimate it made and its sample's group sizes as JSON."""
    from lexprobe import estimate
    from lexprobe.cli import main

    made: list = []
    original = estimate.Watch._estimate

    def recorded(self, finished: bool) -> None:
        try:
            original(self, finished)
        finally:
            made.append({**asdict(self.estimate), "sizes": list(self.sizes), "batches": list(self._batches)}
                        if self.estimate else None)

    estimate.Watch._estimate = recorded  # type: ignore[method-assign]
    main(argv)
    print("ESTIMATE " + json.dumps(made[0] if made else None))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--fraction", type=int, default=50, help="the sample is 1/F of the groups")
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        base = ["wdlmpro", "eval", "--model", args.model]
        done = subprocess.run([sys.executable, __file__, "--child", *base, "--estimate", "--out", f"{tmp}/e.json"],
                              capture_output=True, text=True, check=True)
        line = [x for x in done.stdout.splitlines() if x.startswith("ESTIMATE ")][-1]
        est = json.loads(line.removeprefix("ESTIMATE "))
        sizes, units = est["sizes"], sum(est["sizes"])
        limit = 1
        while sum(min(limit + 1, s) for s in sizes) <= units / args.fraction:
            limit += 1
        kept = sum(min(limit, s) for s in sizes) / units
        from lexprobe.estimate import Estimate

        fields = {k: v for k, v in est.items() if k not in ("sizes", "batches")}
        predicted = Estimate(**fields).seconds_for(kept)
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "lexprobe", *base, "--limit", str(limit), "--out", f"{tmp}/s.json"],
                       capture_output=True, text=True, check=True)
        measured = time.monotonic() - started
    print(f"model {args.model}: estimate of the whole run {est['total']:.0f} s ({est['measured']} of {est['units']} "
          f"groups measured in {est['measured_seconds']:.1f} s; loading {est['before']:.1f} s)")
    print("probe batches (units, cost, seconds): " + ", ".join(f"({u}, {c:.0f}, {t:.2f})" for u, c, t in est["batches"]))
    print(f"1/{args.fraction} sample: --limit {limit} ({kept:.2%} of the groups): estimate {predicted:.1f} s, "
          f"measured {measured:.1f} s (ratio {predicted / measured:.2f})")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
