"""The same GGUF file, the same requests, the same threads: llama.cpp in process (``--model llamacpp:FILE``) vs
transformers de-quantised to float32 (``--model FILE``), alternated in one run; seconds and peak RSS.

Each run is a ``lexprobe <benchmark> eval`` in a process of its own (its peak resident memory is the
process's, read by ``wait4``), so neither route's memory or warm caches reach the other. The routes alternate
(llama.cpp, transformers, llama.cpp, ...) so that the load of a shared machine falls on both. The
de-quantised copy of the file is made once before the first timed run (``models.gguf``: that conversion is
a one-off and not timed). Both get ``--threads`` CPU threads (``OMP_NUM_THREADS`` for torch) and OpenMP's
passive wait.

    python scripts/bench_llamacpp.py [--model smollm2-135m-instruct] [--threads 2] [--rounds 2]
        [--wdlmpro-limit 10] [--coda-limit 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(args: list[str], threads: int) -> tuple[float, float, dict]:
    """(wall seconds, peak RSS in MB, the result) of ``lexprobe ARGS`` in a child process."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
           "OMP_WAIT_POLICY": "PASSIVE", "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "lexprobe", *args], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    err = child.stderr.read().decode("utf-8", "replace") if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"lexprobe {' '.join(args)} failed:\n{err[-2000:]}")
    out = Path(args[args.index("--out") + 1])
    return wall, usage.ru_maxrss / 1024, json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m-instruct", help="a GGUF file or packaged short name")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the two routes")
    parser.add_argument("--wdlmpro-limit", type=int, default=10)
    parser.add_argument("--coda-limit", type=int, default=2)
    opts = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from lexprobe.model_names import resolve_model_path

    gguf = resolve_model_path(opts.model)
    benches = {"wdlmpro": ["wdlmpro", "eval", "--limit", str(opts.wdlmpro_limit)],
               "coda21": ["coda21", "eval", "--limit", str(opts.coda_limit)]}
    routes = {"llama.cpp": [f"llamacpp:{gguf}", "--threads", str(opts.threads)],
              "transformers": [gguf, "--device", "cpu"]}
    with tempfile.TemporaryDirectory() as tmp:
        warm = str(Path(tmp) / "warm.json")  # the one-off de-quantisation, untimed
        run(["wdlmpro", "eval", "--limit", "1", "--model", gguf, "--device", "cpu", "--out", warm], opts.threads)
        rows = []
        for bench, args in benches.items():
            for r in range(opts.rounds):
                for route, model in routes.items():
                    out = str(Path(tmp) / f"{bench}-{route}-{r}.json")
                    wall, rss, result = run(args + ["--model", *model, "--out", out], opts.threads)
                    stats = result.get("timing", {}).get("scorer_stats", {})
                    rows.append((bench, route, r, wall, rss, stats.get("llamacpp_requests") or
                                 sum(v for k, v in stats.items() if k.endswith("_requests"))))
                    print(f"{bench:8} {route:12} round {r}: {wall:7.1f} s  peak RSS {rss:7.0f} MB", flush=True)
    print(f"\n{opts.model} ({Path(gguf).name}), {opts.threads} threads; median of {opts.rounds} rounds")
    for bench in benches:
        for route in routes:
            walls = sorted(w for b, ro, _, w, _, _ in rows if b == bench and ro == route)
            rss = max(m for b, ro, _, _, m, _ in rows if b == bench and ro == route)
            print(f"{bench:8} {route:12} {walls[len(walls) // 2]:7.1f} s   peak RSS {rss:7.0f} MB")


if __name__ == "__main__":
    main()
