"""Every benchmark that can be exported: one line each (name -> "module:EXPORT"), as ``benchmarks/registry.py``.

A benchmark without a line here is refused by ``lexprobe export`` naming the ones that can be exported.
"""

from __future__ import annotations

import importlib

from lexprobe.errors import LexprobeError
from lexprobe.export.declaration import BenchmarkExport

EXPORTS: dict[str, str] = {
    "wdlmpro": "lexprobe.export.wdlmpro:EXPORT",
    "coda21": "lexprobe.export.coda21:EXPORT",
    "wsd": "lexprobe.export.wsd:EXPORT",
}


def get(name: str) -> BenchmarkExport:
    """The export declaration of benchmark ``name`` (its command aliases too: ``coda``)."""
    from lexprobe.benchmarks.registry import get as benchmark

    canonical = benchmark(name).meta.name if name not in EXPORTS else name
    if canonical not in EXPORTS:
        raise LexprobeError(f"{name} has no export yet; exportable: {', '.join(EXPORTS)}")
    module, attr = EXPORTS[canonical].split(":")
    return getattr(importlib.import_module(module), attr)
