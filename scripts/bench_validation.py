"""Cost of ``validation.problems`` on the biggest value lexprobe checks: WDLMPro's WordNet groups cache.

Prints CPU seconds of the check as every reader makes it (``problems``: the predicate compiled once per spec,
then the walk only for an invalid value) beside the plain walk that names every problem (``_walk``: what
``problems`` did for every value before), on the same value in the same process. The value is the cached
groups of this machine (``~/.cache/lexprobe/wdlmpro``, built by any WDLMPro run) or, without them, synthetic
groups of the same size (about 120,000 candidates in 2.8 million indices).
Run: PYTHONPATH=. python3 scripts/bench_validation.py
"""
import json
import random
import time

from lexprobe.benchmarks.wdlmpro.dataset import GroupsCache, _cache_path
from lexprobe.validation import _walk, problems


def caches() -> list:
    found = []
    for pos in ("n", "v"):
        path = _cache_path(pos, False)
        if path.exists():
            found.append((path.name, json.loads(path.read_bytes())))
    if found:
        return found
    rng = random.Random(0)
    table = [[f"s{i}.n.01", f"w{i}", f"definition {i}"] for i in range(120000)]
    groups = [[rng.randrange(len(table)) for _ in range(rng.randint(2, 60))] for _ in range(90000)]
    return [("synthetic", {"format": "wdlmpro-cache/1", "pos": "n", "candidates": table, "groups": groups})]


def seconds(check) -> float:
    started = time.process_time()
    check()
    return time.process_time() - started


for name, data in caches():
    size = sum(map(len, data["groups"]))
    walked: list = []
    walk = seconds(lambda: _walk(data, GroupsCache, "", walked))
    fast = seconds(lambda: problems(data, GroupsCache))
    bad = dict(data, groups=data["groups"][:-1] + [[0, "1"]])  # one wrong index at the very end
    slow_bad = seconds(lambda: problems(bad, GroupsCache))
    print(f"{name}: {len(data['candidates']):,} candidates, {size:,} indices: plain walk {walk:.2f} s CPU, "
          f"problems {fast:.2f} s CPU ({walk / max(fast, 1e-9):.0f}x); an invalid one (named: "
          f"{problems(bad, GroupsCache)}) {slow_bad:.2f} s CPU")
