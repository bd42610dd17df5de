"""The numbers of a fixed list of runs are those recorded before the Benchmark-contract
refactor (tests/behaviour_baseline.py says which runs and how the fixture was written)."""

from __future__ import annotations

import json

import pytest

from tests import behaviour_baseline as bb

FIXTURE = json.loads(bb.FIXTURE.read_text(encoding="utf-8"))
NAMES = sorted(n for n in FIXTURE if not n.startswith("dist-"))


@pytest.fixture(scope="module")
def commands(tiny_gpt2, tiny_bert, tiny_llama, minilm_path, tmp_path_factory):
    pytest.importorskip("nltk")
    try:
        inputs = bb.write_inputs(tmp_path_factory.mktemp("baseline-inputs"))
    except Exception as err:  # noqa: BLE001 - WordNet is installed by scripts/setup.sh
        pytest.skip(f"WordNet not available: {err}")
    models = {"random": "random", "minilm": str(minilm_path), "gpt2": str(tiny_gpt2), "bert": str(tiny_bert),
              "llama": str(tiny_llama)}
    return bb.runs(models, inputs)


def test_the_fixture_lists_every_run(commands):
    assert sorted(commands) == NAMES
    assert {n.split("-")[0] for n in NAMES} == {"wdlmpro", "coda", "senserank"}


@pytest.mark.parametrize("name", NAMES)
def test_numbers_unchanged(name, commands, tmp_path):
    got = bb.compared(bb.run_cli(commands[name], tmp_path / f"{name}.json"))
    # every recorded key as recorded; beyond them only what #17 documented as added to choose results
    problems = bb.differences(bb.compared(FIXTURE[name]), got, name, added=bb.documented_addition)
    assert not problems, "\n".join(problems[:20])


def test_differences_sees_a_changed_number():
    run = FIXTURE["coda-bert"]
    changed = json.loads(json.dumps(run))
    changed["instances"][0]["scores"][0][0] += 2e-6
    assert bb.differences(run, changed) and not bb.differences(run, json.loads(json.dumps(run)))
    changed = json.loads(json.dumps(run))
    changed["instances"][0]["assignment"][0] = 1 - changed["instances"][0]["assignment"][0]
    assert bb.differences(run, changed)


def test_fit_counts_are_accepted_as_zero_only():
    """#19 item 4 added what did not fit the model to ``counts``; no recorded run has such an input."""
    assert bb.documented_addition("coda-bert.counts.truncated_contexts", 0)
    assert bb.documented_addition("wdlmpro-gpt2.counts.skipped_too_long", 0)
    assert not bb.documented_addition("coda-bert.counts.truncated_contexts", 1)
    assert not bb.documented_addition("coda-bert.counts.truncated_something_else", 0)


def test_only_the_documented_additions_are_accepted():
    """A choose run may gain #17's readings, positions, rotations and position bias; nothing else, and
    every recorded value still counts."""
    run = bb.compared(FIXTURE["wdlmpro-llama-choose"])
    assert run["readings"] == ["likelihood", "generation"]
    grown = json.loads(json.dumps(run))
    grown["readings"] = ["likelihood", "likelihood_cyclic", "generation", "generation_lenient"]
    grown["metrics"]["w2d"]["all"]["generation_lenient.p_at_1"] = 0.5
    grown["metrics"]["w2d"]["all"]["ci"]["likelihood_cyclic.p_at_1"] = [0.0, 1.0]
    grown["instances"][0]["generation_lenient"] = {"choice": None, "failure": "unparseable", "positions": [None]}
    grown["instances"][0]["likelihood"]["positions"] = [0]
    grown["instances"][0]["rotation"] = 0
    grown["breakdowns"]["w2d"] = {"position_bias": {"all": {"likelihood": {"n": 1}}}}
    added = bb.documented_addition
    assert bb.differences(run, grown, "wdlmpro-llama-choose", added=added) == []
    assert bb.differences(run, grown, "wdlmpro-llama-choose")  # without `added`: all of it differs
    for change in (lambda g: g["instances"][0].update(unknown=1),  # an undocumented key
                   lambda g: g["metrics"]["w2d"]["all"].update({"generation.surprise": 1.0}),
                   lambda g: g["breakdowns"]["w2d"].update(other={}),
                   lambda g: g["metrics"]["w2d"]["all"].update({"likelihood.p_at_1": 2.0}),  # a recorded value
                   lambda g: g.update(readings=["generation", "likelihood", "generation_lenient"]),
                   lambda g: g["instances"][0]["likelihood"].pop("choice")):
        changed = json.loads(json.dumps(grown))
        change(changed)
        assert bb.differences(run, changed, "wdlmpro-llama-choose", added=added)


# --- entries changed on purpose after the recording (tests/behaviour_baseline.py: CHANGES) ----------

BEFORE = json.loads(bb.BEFORE.read_text(encoding="utf-8"))


def test_every_changed_entry_is_listed_with_its_recording_before():
    """The entries re-recorded are exactly those of CHANGES, each with a reason and its first recording kept."""
    assert sorted(BEFORE) == sorted(bb.CHANGES)
    for name, change in bb.CHANGES.items():
        assert change.reason and name in FIXTURE
        assert FIXTURE[name].get("schema_version") == 2 and "schema_version" not in BEFORE[name]  # re-recorded


@pytest.mark.parametrize("name", sorted(bb.CHANGES))
def test_the_behaviour_before_the_change_gives_the_first_recording(name, commands, tiny_gpt2, tiny_bert, tmp_path,
                                                                   monkeypatch):
    """Every changed entry, run with the old behaviour selected, equals what was recorded before the
    refactor (without the fields the change added): the change is exactly the one asked for."""
    import dataclasses

    from lexprobe.benchmarks import registry

    change = bb.CHANGES[name]
    if change.old_recipe:
        benchmark, recipe, fields = change.old_recipe
        recipes = registry.get(benchmark).recipes
        monkeypatch.setitem(recipes, recipe, dataclasses.replace(recipes[recipe], **fields))
    if name.startswith("dist-"):
        from tests import distributed_cases as dc

        spec = bb.distributed_spec({"bert": str(tiny_bert), "gpt2": str(tiny_gpt2)}, tmp_path)
        result = dc.run_case(name[len("dist-"):], {**spec, **change.old_api})
    else:
        result = bb.run_cli([*commands[name], *change.old_args], tmp_path / f"{name}.json")
    got = bb.without_added(bb.compared(result), change)
    problems = bb.differences(bb.compared(BEFORE[name]), got, name, added=bb.fit_count_added)
    assert not problems, "\n".join(problems[:20])
    now = bb.compared(FIXTURE[name])
    for section, key in change.added:  # what the change added is in the re-recorded entry
        part = now[section]
        assert any(key in r for r in part) if isinstance(part, list) else key in part, (section, key)
    if not (change.old_args or change.old_recipe or change.old_api):  # an addition only: the rest is as before
        assert not bb.differences(bb.compared(BEFORE[name]), bb.without_added(now, change))


def test_without_added_leaves_out_only_the_listed_fields():
    change = bb.Change("x", added=(("instances", "patterns"), ("counts", "static_tokens")))
    got = bb.without_added({"instances": [{"patterns": [1], "gold_rank": 2}], "counts": {"static_tokens": 3, "a": 1}},
                           change)
    assert got == {"instances": [{"gold_rank": 2}], "counts": {"a": 1}}
