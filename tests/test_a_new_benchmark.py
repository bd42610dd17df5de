"""A fifth benchmark gets the checks that hold for every benchmark, with no test edited: the generic tests ask the
registry for the benchmarks (and their methods) instead of naming the shipped ones.

The session of this test's child registers ``tests/samesense`` (a pair benchmark written as a user would) through
``LEXPROBE_TEST_EXTRA_BENCHMARK`` before any test module is read; the generic tests' own parameters then include it,
and those of its cases run (``-k samesense``). A test that named the shipped benchmarks would not collect it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the tests that hold for every benchmark and method (the contract, resume keys, declared options, stand-ins)
GENERIC = ("tests/test_contract.py", "tests/test_one_resume_key.py", "tests/test_declared_options.py",
           "tests/core/test_standins_every_method.py")


@pytest.mark.slow  # a pytest session of its own: ~20 s
def test_the_generic_tests_cover_a_benchmark_registered_at_run_time():
    env = {**os.environ, "LEXPROBE_TEST_EXTRA_BENCHMARK": "tests.samesense:SAMESENSE", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "samesense",
                           *GENERIC], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    tail = proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    passed = int(re.search(r"(\d+) passed", proc.stdout).group(1))
    # every generic file has cases of its own for the new benchmark (its three methods where a file is per method)
    ids = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", "-k",
                          "samesense", *GENERIC], cwd=REPO, env=env, capture_output=True, text=True, timeout=600).stdout
    files = {line.split("::")[0] for line in ids.splitlines() if "::" in line}
    assert files == set(GENERIC) and passed >= len(GENERIC), tail
