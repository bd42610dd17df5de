"""The benchmarks that can be exported: every registered benchmark whose record declares its export
(``Benchmark.exports``, a ``core.exports.BenchmarkExport``), in registration order.

A benchmark without one is refused by ``lexprobe export`` naming the ones that can be exported.
"""

from __future__ import annotations

from lexprobe.core.exports import BenchmarkExport
from lexprobe.errors import LexprobeError


def exportable() -> list[str]:
    """The names of the registered benchmarks that declare an export, in the order ``lexprobe export lm-eval``
    writes them."""
    import lexprobe.benchmarks.shipped  # noqa: F401  (registers the shipped benchmarks)
    from lexprobe.core.registry import all_benchmarks

    return [b.meta.name for b in all_benchmarks() if b.exports is not None]


def get(name: str) -> BenchmarkExport:
    """The export declaration of benchmark ``name`` (its command aliases too: ``coda``)."""
    import lexprobe.benchmarks.shipped  # noqa: F401  (registers the shipped benchmarks)
    from lexprobe.core.registry import get as benchmark

    found = benchmark(name).exports
    if found is None:
        raise LexprobeError(f"{name} has no export yet; exportable: {', '.join(exportable())}")
    return found
