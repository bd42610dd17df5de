"""One place says what a valid option is (#28): ``evaluate`` refuses, for a config built in Python, what the
option declarations make the CLI's parser refuse (choices, positive integers, in nested groups too), for every
benchmark alike, before any data or model loads; no benchmark re-checks its options by hand."""

from __future__ import annotations

import dataclasses

import pytest

from lexprobe.core.evaluate import evaluate
from lexprobe.core.options import check_declared
from lexprobe.core.registry import all_benchmarks
from lexprobe.errors import LexprobeError


def _no_load(*args, **kwargs):
    raise AssertionError("loaded data before the options were checked")


@pytest.mark.parametrize("bench", [b for b in all_benchmarks()], ids=lambda b: b.meta.name)
def test_a_bad_declared_value_is_one_line_before_any_data_loads(bench, load_items_as):
    bench = load_items_as(bench.meta.name, _no_load)
    fields = {f.name: f for f in dataclasses.fields(bench.Config)}
    with pytest.raises(LexprobeError, match=r"^unknown --method 'guess'; use ") as err:
        evaluate(bench, "random", dataclasses.replace(bench.Config(**_required(bench)), method="guess"))
    assert "\n" not in str(err.value)
    assert "seed" in fields  # every benchmark has a seed, declared non-negative
    with pytest.raises(LexprobeError, match=r"^--seed must be 0 or more, got -1$"):
        evaluate(bench, "random", dataclasses.replace(bench.Config(**_required(bench)), seed=-1))


def _required(bench) -> dict:
    return {f.name: "x" for f in dataclasses.fields(bench.Config) if f.metadata.get("required")}


def test_nested_groups_are_checked_too():
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.prompting.choose_cli import ChooseOptions

    with pytest.raises(LexprobeError, match="--permutations must be at least 1, got 0"):
        check_declared(WDLMProConfig(method="choose", choose=ChooseOptions(permutations=0)))


def test_an_option_that_names_the_data_takes_any_name_for_items_the_caller_loaded():
    from lexprobe.benchmarks.senserank.config import SenseConfig

    with pytest.raises(LexprobeError, match="unknown --corpus 'mine'"):
        check_declared(SenseConfig(corpus="mine"))
    check_declared(SenseConfig(corpus="mine"), items_given=True)  # the caller's own corpus, named "mine"
