"""The one list of benchmarks. ``cli``, ``run``, ``report``, ``compare`` and ``human`` loop over it.

A benchmark is registered by one line, ``name: "module:Class"``; the module is imported
only when the benchmark is used (and a benchmark module imports nothing heavy at its
top, so ``lexprobe --help`` stays fast).
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from lexprobe.errors import LexprobeError

REGISTRY: dict[str, str] = {
    "wdlmpro": "lexprobe.benchmarks.wdlmpro.benchmark:WDLMPro",
    "coda21": "lexprobe.benchmarks.coda21.benchmark:CoDA21",
    "senserank": "lexprobe.benchmarks.senserank.benchmark:SenseRank",
    "wsd": "lexprobe.benchmarks.wsd.benchmark:Wsd",
}


def names() -> list[str]:
    return list(REGISTRY)


@lru_cache(maxsize=None)
def _load(target: str):
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)()


def get(name: str):
    """The benchmark registered as ``name`` (or one of its aliases)."""
    if name in REGISTRY:
        return _load(REGISTRY[name])
    for other in REGISTRY:
        bench = _load(REGISTRY[other])
        if name in bench.meta.aliases:
            return bench
    raise LexprobeError(f"unknown benchmark {name!r}; use one of: {', '.join(REGISTRY)}")


def all_benchmarks() -> list:
    return [get(name) for name in REGISTRY]
