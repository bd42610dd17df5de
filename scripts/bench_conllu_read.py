#!/usr/bin/env python
"""STREUSLE conllulex read time: the ``conllu``-based reader vs the hand parser it replaced.

The hand parser is taken from a git commit before the change (``--old-commit``) and
both read the same files alternately in one process (the machine is shared: compare the
ratio, not the absolute times). Also prints whether both give the same instances.

    python scripts/bench_conllu_read.py --streusle ../shared/data/streusle-4.4
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _old_reader(commit: str):
    source = subprocess.run(["git", "show", f"{commit}:lexprobe/data/streusle.py"], check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "old_streusle.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_streusle", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.read_streusle_conllulex


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streusle", required=True, help="the streusle-4.4 folder")
    ap.add_argument("--old-commit", default="079328a", help="a commit with the hand-written conllulex parser")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    from lexprobe.data.streusle import read_streusle_conllulex

    files = sorted(Path(args.streusle).glob("*/*.conllulex*"))
    if not files:
        sys.exit(f"no .conllulex files under {args.streusle}")
    readers = {"hand parser": _old_reader(args.old_commit), "conllu": read_streusle_conllulex}
    times: dict[str, list[float]] = {name: [] for name in readers}
    results = {}
    for _ in range(args.repeats):
        for name, read in readers.items():
            start = time.perf_counter()
            results[name] = [inst for f in files for inst in read(f, f.parent.name)]
            times[name].append(time.perf_counter() - start)
    print(f"files: {', '.join(f.name for f in files)}")
    for name, ts in times.items():
        print(f"{name:12s} median {statistics.median(ts) * 1000:6.0f} ms  min {min(ts) * 1000:6.0f} ms  "
              f"({len(results[name])} instances, {args.repeats} runs)")
    ratio = statistics.median(times["conllu"]) / statistics.median(times["hand parser"])
    print(f"conllu / hand parser: {ratio:.2f}x; same instances: {results['conllu'] == results['hand parser']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
