"""Distributed runs for real: torchrun with two gloo processes on CPU against one process.

Every benchmark with every scorer kind runs in one torchrun launch (plus the CLI, plus
two runs interrupted on both ranks, resumed here by one process). One launch, because
each costs two interpreter starts with torch and transformers.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lexprobe import distributed
from lexprobe.distributed import assign, log_paths, rank_log_path
from tests import distributed_cases as dc

REPO = Path(__file__).resolve().parents[1]
CASES = [f"{b}-{k}" for b in ("wdlmpro", "coda") for k in dc.KINDS] + ["senserank-token"]


def _torchrun(spec: dict, folder: Path, timeout: int = 400, backend: str = "gloo") -> subprocess.CompletedProcess:
    """Two processes on ``spec`` (gloo on CPU; ``nccl`` for the GPU test in tests/gpu)."""
    path = folder / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1", LEXPROBE_DIST_BACKEND=backend, LEXPROBE_DIST_TIMEOUT_S="120")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
           str(REPO / "tests" / "distributed_cases.py"), str(path)]
    return subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout)


@contextlib.contextmanager
def one_thread():
    """As in the torchrun workers (OMP_NUM_THREADS=1): torch's thread pool crawls on a loaded machine."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@pytest.fixture(scope="module")
def models(tiny_bert, tiny_gpt2, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dist-models")
    return {"bert": str(tiny_bert), "gpt2": str(tiny_gpt2), "vec": str(dc.write_vec(folder / "words.vec"))}


def assert_same(a, b, where="result"):
    """Same structure and values; numbers within 1e-5 (not compared: timings, the plot's path, and
    the run record's time, command line and process count)."""
    if isinstance(a, dict):
        skip = {"timing", "plot", "created", "command", "processes"}
        assert isinstance(b, dict) and set(a) - skip == set(b) - skip, where
        for key in set(a) - skip:
            assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert a is not None and b is not None and (math.isclose(a, b, abs_tol=1e-5) or (a != a and b != b)), \
            f"{where}: {a} != {b}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


INTERRUPTED = ["coda-masked", "senserank-token"]


@pytest.fixture(scope="module")
def launch(models, tmp_path_factory):
    """One torchrun launch (two gloo processes) for every test below: start-up is the cost."""
    folder = tmp_path_factory.mktemp("dist")
    out = folder / "out"
    (out / "interrupted").mkdir(parents=True)
    coda = dc.coda_groups_file(folder)
    spec = {"models": models, "coda": str(coda), "out": str(out), "cases": CASES, "interrupt": INTERRUPTED,
            "cli": [["coda", "eval", "--data", str(coda), "--model", models["gpt2"], "--device", "cpu",
                     "--out", str(out / "cli-coda.json")]]}
    proc = _torchrun(spec, folder)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return spec, proc


def test_two_processes_give_the_one_process_result(launch):
    spec, proc = launch
    out = Path(spec["out"])
    # rank 0 wrote one file per run; no resume log, no embedding store, nothing from rank 1 is left
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{c}.json" for c in CASES] + ["senserank-token.png", "cli-coda.json", "interrupted"]
        + [f"{c}.png" for c in CASES if c.startswith("wdlmpro")])  # WDLMPro's breakdown plots
    assert proc.stdout.count("results written to") == 1  # the CLI reported once (rank 0)
    with one_thread():
        reference = {name: dc.run_case(name, dict(spec, out=None)) for name in CASES}
    for name in CASES:
        got = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
        assert_same(got, json.loads(json.dumps(reference[name])), name)
    assert json.loads((out / "coda-causal.json").read_text())["run"]["processes"] == 2
    cli = json.loads((out / "cli-coda.json").read_text(encoding="utf-8"))
    assert_same(cli["instances"], json.loads(json.dumps(reference["coda-causal"]["instances"])), "cli")
    assert reference["senserank-token"]["metrics"]["synthetic"]["all"]["n"] == 5


def test_two_processes_give_the_recorded_baseline(launch):
    """The torchrun runs against the numbers recorded before the refactor of issue #16."""
    from tests import behaviour_baseline as bb

    fixture = json.loads(bb.FIXTURE.read_text(encoding="utf-8"))
    out = Path(launch[0]["out"])
    for name in CASES:
        got = bb.compared(json.loads((out / f"{name}.json").read_text(encoding="utf-8")))
        problems = bb.differences(bb.compared(fixture[f"dist-{name}"]), got, name, added=bb.every_run_addition)
        assert not problems, "\n".join(problems[:20])


def _logged_units(paths) -> int:
    n = 0
    for p in paths:
        for line in p.read_text(encoding="utf-8").splitlines()[1:]:
            try:
                n += "id" in json.loads(line)
            except ValueError:
                break  # cut off by the kill
    return n


@pytest.mark.parametrize("name", INTERRUPTED)
def test_interrupted_two_process_run_resumes_with_one(launch, monkeypatch, name):
    from lexprobe.benchmarks.coda21 import likelihood as ce

    spec, _ = launch
    spec = dict(spec, out=str(Path(spec["out"]) / "interrupted"))
    out = Path(spec["out"])
    assert not (out / f"{name}.json").exists()
    computed = []
    real = ce.match_matrices
    monkeypatch.setattr(ce, "match_matrices", lambda groups, *a, **k: computed.extend(groups) or real(groups, *a, **k))
    base = out / f"{name}.json.partial.jsonl"
    if name.startswith("coda"):
        logs = log_paths(base)
        assert [p.name for p in logs] == [base.name + ".rank0", base.name + ".rank1"]
        saved = _logged_units(logs)
        assert saved == 2  # one group per rank
    else:
        store = out / f"{name}.json.embeddings"
        assert (store / "index.r0.jsonl").exists() and (store / "index.r1.jsonl").exists()
    with one_thread():
        resumed = dc.run_case(name, spec)  # one process reads what both ranks kept
    if name.startswith("coda"):
        assert len(computed) == len(resumed["instances"]) - saved  # only what no rank had logged
    else:
        c = resumed["counts"]
        assert not store.exists()  # the store goes once the result is written
    assert not log_paths(base)  # logs removed once the result is written
    monkeypatch.setattr(ce, "match_matrices", real)
    with one_thread():
        fresh = dc.run_case(name, dict(spec, out=None))
    if not name.startswith("coda"):
        assert c["sentences_from_store"] == 6  # one chunk (CHUNK = 3) per rank was not encoded again
        assert c["sentences_encoded"] + c["sentences_from_store"] == fresh["counts"]["sentences_encoded"]
    got = json.loads((out / f"{name}.json").read_text())
    for r in (got, fresh):
        for k in ("sentences_encoded", "sentences_from_store"):
            r.get("counts", {}).pop(k, None)
    assert_same(got, json.loads(json.dumps(fresh)))


def test_assign_balances_tokens_and_is_deterministic():
    costs = [9, 1, 1, 8, 2, 2, 3, 7]
    shares = assign(costs, 3)
    assert sorted(i for s in shares for i in s) == list(range(len(costs)))
    loads = [sum(costs[i] for i in s) for s in shares]
    assert loads == [11, 11, 11]  # LPT by hand: 9 | 8 | 7, then 3 -> r2, 2 -> r1, 2 -> r0, 1 -> r1, 1 -> r2
    assert shares == [[0, 5], [1, 3, 4], [2, 6, 7]] == assign(costs, 3)
    # a bundle stays on one rank
    bundles = ["a", "b", "a", "c", "d", "e", "f", "g"]
    shares = assign(costs, 2, bundles)
    assert any({0, 2} <= set(s) for s in shares)
    assert assign(costs, 1) == [list(range(len(costs)))]


def test_log_paths_find_every_rank(tmp_path):
    base = tmp_path / "r.json.partial.jsonl"
    assert rank_log_path(base, 0, 1) == base
    for p in (base, rank_log_path(base, 1, 2), rank_log_path(base, 10, 12), tmp_path / "r.json.partial.jsonl.rank1.stale"):
        p.write_text("{}\n")
    assert [p.name for p in log_paths(base)] == [base.name, base.name + ".rank1", base.name + ".rank10"]
    assert distributed.context().world_size == 1 and distributed.gather(5) == [5]
    assert np.array_equal(distributed.broadcast(np.arange(3)), np.arange(3))
