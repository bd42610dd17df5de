"""The benchmarks by name: what ``evaluate``, ``result_schema``, prompting, ``cli``, ``run``, ``report``,
``compare`` and ``human`` look benchmarks up in.

Why a registry that the list fills: the contract and what reads a result by its benchmark's name sit below
the benchmark packages, so they must not import them. ``benchmarks.shipped`` (above the packages) imports
every shipped benchmark literally and registers it here; the CLI, ``lexprobe.api`` and the tests import that
list. A Python caller that imports neither passes a ``Benchmark`` to ``evaluate`` (or imports ``lexprobe.api``);
a name looked up before any benchmark is registered is one line saying so.
"""

from __future__ import annotations

from typing import Any

from lexprobe.errors import LexprobeError

#: name -> the benchmark (a ``core.contract.Benchmark`` instance), in registration order
REGISTRY: dict[str, Any] = {}


def register_benchmark(bench: Any) -> Any:
    """Add (or replace, by its ``meta.name``) a benchmark; returns it."""
    REGISTRY[bench.meta.name] = bench
    return bench


def _registered() -> dict[str, Any]:
    if not REGISTRY:
        raise LexprobeError("no benchmark is registered in this process: import lexprobe.api (or "
                            "lexprobe.benchmarks.shipped), which registers lexprobe's benchmarks")
    return REGISTRY


def names() -> list[str]:
    return list(_registered())


def get(name: str) -> Any:
    """The benchmark registered as ``name`` (or one of its aliases)."""
    registered = _registered()
    if name in registered:
        return registered[name]
    for bench in registered.values():
        if name in bench.meta.aliases:
            return bench
    raise LexprobeError(f"unknown benchmark {name!r}; use one of: {', '.join(registered)}")


def all_benchmarks() -> list:
    return list(_registered().values())
