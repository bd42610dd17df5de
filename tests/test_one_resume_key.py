"""Every method's units are logged under the job's one resume key (#28): the key ``evaluate`` builds
(``Job.key``: items digest, weights, method/recipe, scorer options, every score-changing config option) is the
key every resume log of the run is opened with (``distributed.run_units`` writes it as the log's header), for every benchmark and method (likelihood,
choose, ask, similarity): no method builds a key of its own."""

from __future__ import annotations

from lexprobe.core.contract import prefers
import dataclasses
import json

import pytest

from lexprobe.core import evaluate as evaluate_module
from lexprobe.core import registry
from lexprobe.core.contract import Job
from lexprobe.core.options import key_options
from lexprobe.cache import ResumeLog
from lexprobe.models import load_scorer
from tests.test_contract import _items_and_config, _model_for, inputs  # noqa: F401  (the module fixture)


@pytest.mark.parametrize("name,method", [(b, m) for b in registry.names() for m in registry.get(b).methods])
def test_the_resume_log_is_keyed_by_the_job_key(name, method, inputs, tiny_bert, tiny_llama, tmp_path,  # noqa: F811
                                                monkeypatch):
    bench = registry.get(name)
    items, config = _items_and_config(name, method, inputs)
    scorer = load_scorer(_model_for(name, method, tiny_bert, tiny_llama), device="cpu", prefer=prefers(bench, method))
    job_keys, logged = record_job_keys(monkeypatch), []
    real_init = ResumeLog.__init__

    def spy_init(self, path, key, *args, **kwargs):  # every resume log a run opens, whoever opens it
        logged.append(key)
        real_init(self, path, key, *args, **kwargs)

    monkeypatch.setattr(ResumeLog, "__init__", spy_init)
    out = tmp_path / "r.json"
    evaluate(bench, scorer, config, out, items=items)
    assert logged and all(key is not None for key in logged)
    assert all(any(key is job_key for job_key in job_keys) for key in logged)  # the job's key object itself
    for key in job_keys:
        assert key["protocol"] == f"{method}/paper" and key["options"]["config"] == key_options(config)


def record_job_keys(monkeypatch) -> list:
    """Every key ``Job.key`` returns from now on, in order (the objects themselves)."""
    keys: list = []

    class Spy(Job):
        def __init__(self, *args):
            super().__init__(*args)
            real = self.key
            self.key = lambda unit_items, **extra: keys.append(real(unit_items, **extra)) or keys[-1]

    monkeypatch.setattr(evaluate_module, "Job", Spy)
    return keys


def evaluate(bench, scorer, config, out, items):
    return evaluate_module.evaluate(bench, scorer, config, out, items=items, progress=False)


def test_the_header_on_disk_is_that_key(inputs, tiny_bert, tmp_path, monkeypatch):  # noqa: F811
    """An interrupted CoDA21 ask run leaves the job's key as its log's header (the ask method, besides choose)."""
    bench = registry.get("coda21")
    items, config = _items_and_config("coda21", "ask", inputs)
    scorer = load_scorer(str(tiny_bert), device="cpu")
    keys = record_job_keys(monkeypatch)
    from lexprobe.benchmarks.coda21 import ask

    real_matrices, calls = ask.ask_matrices, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_matrices(*args, **kwargs)

    monkeypatch.setattr(ask, "ask_matrices", interrupted)
    config = dataclasses.replace(config, groups_per_chunk=1)
    with pytest.raises(KeyboardInterrupt):
        evaluate(bench, scorer, config, tmp_path / "r.json", items)
    header = json.loads((tmp_path / "r.json.partial.jsonl").read_text().splitlines()[0])
    assert header["key"] == json.loads(json.dumps(keys[0])) and keys[0]["protocol"] == "ask/paper"
