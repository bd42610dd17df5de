"""The benchmarks lexprobe ships, registered (``core.registry``) when this module is imported.

The one list: ``lexprobe <benchmark> ...``, ``run``, ``report``, ``compare``, ``export`` and ``human`` take every
benchmark here. It sits above the benchmark packages (it imports each one's ``benchmark`` module, which imports
nothing heavy at its top: ``lexprobe --help`` stays fast), so nothing below it imports a benchmark. Adding a
benchmark is one line: the import of its ``Benchmark`` record below (the order of the imports is the order
tables and ``lexprobe run`` show them in).
"""

from __future__ import annotations

import lexprobe.data.catalog  # noqa: F401  (the datasets the benchmarks read, registered)
from lexprobe.core.contract import Benchmark
from lexprobe.core.registry import register_benchmark

# the list, in its order: one line per benchmark (the noqa: each is read below, through globals)
# isort: off
from lexprobe.benchmarks.wdlmpro.benchmark import WDLMPRO  # noqa: F401
from lexprobe.benchmarks.coda21.benchmark import CODA21  # noqa: F401
from lexprobe.benchmarks.senserank.benchmark import SENSERANK  # noqa: F401
from lexprobe.benchmarks.wsd.benchmark import WSD  # noqa: F401
from lexprobe.benchmarks.wic.benchmark import WIC  # noqa: F401
# isort: on

#: every benchmark imported above, in that order
SHIPPED = tuple(value for value in dict(globals()).values() if isinstance(value, Benchmark))

for _bench in SHIPPED:
    register_benchmark(_bench)
