"""``lexprobe <benchmark> eval`` guards its paths and refuses another run's result once, before the model loads:
``evaluate`` takes the command's checked output as checked (it once ran both checks again)."""

from __future__ import annotations

from lexprobe.cli import main
from lexprobe.core import evaluate
from lexprobe.core.registry import REGISTRY
from tests.samesense import SAMESENSE


def test_an_eval_checks_its_paths_and_its_output_once(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, SAMESENSE.meta.name, SAMESENSE)
    calls = {"check_paths": 0, "refuse_replacing": 0}
    for name in calls:
        real = getattr(evaluate, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(evaluate, name, counted)
    assert main(["samesense", "eval", "--model", "random", "--out", str(tmp_path / "r.json")]) == 0
    # the command's guard and early refusal, then the job's own refusal once its key is known
    assert calls == {"check_paths": 1, "refuse_replacing": 2}
