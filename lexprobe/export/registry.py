"""Every benchmark that can be exported: its name and its declaration (``export/<name>.py``), imported
literally — no import by string (scripts/import_graph.py counts them), as ``benchmarks/shipped.py``.

A benchmark without an entry here is refused by ``lexprobe export`` naming the ones that can be exported.
"""

from __future__ import annotations

from lexprobe.errors import LexprobeError
from lexprobe.export.declaration import BenchmarkExport

#: the exportable benchmarks, in the order ``lexprobe export lm-eval`` writes them
EXPORTS: tuple[str, ...] = ("wdlmpro", "coda21", "wsd")


def declarations() -> dict[str, BenchmarkExport]:
    """name -> declaration; the declarations' modules are imported only when an export runs."""
    from lexprobe.export import coda21, wdlmpro, wsd

    found = {"wdlmpro": wdlmpro.EXPORT, "coda21": coda21.EXPORT, "wsd": wsd.EXPORT}
    assert tuple(found) == EXPORTS
    return found


def get(name: str) -> BenchmarkExport:
    """The export declaration of benchmark ``name`` (its command aliases too: ``coda``)."""
    import lexprobe.benchmarks.shipped  # noqa: F401  (registers the shipped benchmarks)
    from lexprobe.core.registry import get as benchmark

    canonical = benchmark(name).meta.name if name not in EXPORTS else name
    if canonical not in EXPORTS:
        raise LexprobeError(f"{name} has no export yet; exportable: {', '.join(EXPORTS)}")
    return declarations()[canonical]
