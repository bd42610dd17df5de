"""The benchmarks lexprobe ships, registered (``core.registry``) when this module is imported.

The one list: ``lexprobe <benchmark> ...``, ``run``, ``report``, ``compare`` and ``human`` take every benchmark
here. It sits above the benchmark packages (it imports each one's ``benchmark`` module, which imports nothing
heavy at its top: ``lexprobe --help`` stays fast), so nothing below it imports a benchmark. Adding a
benchmark: its package, one import and one entry below (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from lexprobe.benchmarks.coda21.benchmark import CODA21
from lexprobe.benchmarks.senserank.benchmark import SENSERANK
from lexprobe.benchmarks.wdlmpro.benchmark import WDLMPRO
from lexprobe.benchmarks.wsd.benchmark import WSD
from lexprobe.core.registry import register_benchmark

SHIPPED = (WDLMPRO, CODA21, SENSERANK, WSD)

for _bench in SHIPPED:
    register_benchmark(_bench)
