#!/usr/bin/env python
"""The fast test tier from measured durations: the tests a JUnit XML report (``pytest --junitxml``) timed at or
over ``--seconds`` are written to ``tests/slow_tests.txt``, which ``tests/conftest.py`` marks ``slow``.

Why measured: a test's cost is what it does (a real model, a server, a full WordNet build), not its name or
folder; the list is regenerated from a full run when the suite changes:

    python -m pytest -q -n auto --dist loadfile --junitxml=/tmp/junit.xml   # the whole suite (CI's test command)
    python scripts/test_tiers.py /tmp/junit.xml             # tests/slow_tests.txt
    python -m pytest -q -n auto -m "not slow"               # the fast tier: a few minutes

Prints how many tests and seconds each tier holds. Tests that use the real corpora, real models or servers are
slow whatever this list says (``conftest.SLOW_FIXTURES``), so a new such test never lands in the fast tier.
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "slow_tests.txt"


def node_id(case: ET.Element) -> str:
    """pytest's node id of a JUnit test case (``classname`` is the dotted module path, then any class)."""
    parts = case.get("classname", "").split(".")
    path, rest = [], []
    for i in range(len(parts), 0, -1):
        candidate = ROOT.joinpath(*parts[:i]).with_suffix(".py")
        if candidate.is_file():
            path, rest = parts[:i], parts[i:]
            break
    return "::".join(["/".join(path) + ".py", *rest, case.get("name", "")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", type=Path, help="pytest --junitxml report of a full run")
    parser.add_argument("--seconds", type=float, default=1.5, help="a test this slow or slower is in the slow tier")
    args = parser.parse_args()
    cases = [(node_id(c), float(c.get("time", 0))) for c in ET.parse(args.junit).getroot().iter("testcase")]
    slow = sorted(n for n, t in cases if t >= args.seconds)
    OUT.write_text("# tests timed at or over %.1f s in a full run (scripts/test_tiers.py); conftest marks them slow\n"
                   % args.seconds + "".join(f"{n}\n" for n in slow), encoding="utf-8")
    fast = [t for n, t in cases if t < args.seconds]
    print(f"{len(cases)} tests, {sum(t for _, t in cases):.0f} s; slow tier {len(slow)} "
          f"({sum(t for _, t in cases) - sum(fast):.0f} s), fast tier {len(fast)} ({sum(fast):.0f} s): {OUT}")


if __name__ == "__main__":
    main()
