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
    if name == "senserank-bert-layers":  # the sweep records no units: its last layer is the single-layer run
        single = bb.compared(bb.run_cli(commands["senserank-bert"], tmp_path / "single.json"))
        for part in ("metrics", "baselines"):
            assert bb.differences(single[part], got["sweep"]["values"]["2"][part]) == [], part


def _perturbed(x, rel: float):
    """Every float of ``x`` times (1 + rel)."""
    if isinstance(x, dict):
        return {k: _perturbed(v, rel) for k, v in x.items()}
    if isinstance(x, list):
        return [_perturbed(v, rel) for v in x]
    return x * (1 + rel) if isinstance(x, float) else x


def _copy(x):
    return json.loads(json.dumps(x))


@pytest.mark.parametrize("rel", [5e-6, -5e-6])
def test_float32_noise_is_no_difference(rel):
    """Every recorded float of every entry moved by 5e-6 relative (what another CPU's BLAS can do, and
    more) is accepted (#25)."""
    for name, entry in FIXTURE.items():
        run = bb.compared(entry)
        assert bb.differences(run, _perturbed(run, rel), name) == [], name


def test_differences_sees_a_changed_number():
    """A change of a size that matters is reported: 1e-3 in a score, an aggregate, one clear-margin decision."""
    run = bb.compared(FIXTURE["coda-bert"])
    assert not bb.differences(run, _copy(run))
    changed = _copy(run)
    changed["instances"][0]["scores"][0][0] *= 1 + 1e-3  # -194.32 -> -194.51
    assert bb.differences(run, changed)
    changed = _copy(run)
    changed["instances"][0]["scores"][0][0] += 2e-6  # the last rounded digit: float32 noise
    assert not bb.differences(run, changed)
    changed = _copy(run)  # a clear margin (scores 0.17 and more apart): the flipped alignment counts
    changed["instances"][0]["assignment"][0] = 1 - changed["instances"][0]["assignment"][0]
    assert bb.differences(run, changed)
    changed = _copy(run)
    changed["metrics"]["alignment"]["all"]["accuracy"] += 1e-3
    assert bb.differences(run, changed)

    choose = bb.compared(FIXTURE["wdlmpro-llama-choose"])
    changed = _copy(choose)
    changed["instances"][0]["likelihood"]["label_logprobs"][1] += 1e-3  # -12.55 (tolerance 1.3e-4)
    assert bb.differences(choose, changed)
    changed = _copy(choose)  # label log-probs 0.04 and more apart: a clear choice
    changed["instances"][0]["likelihood"]["choice"] = 4
    assert bb.differences(choose, changed)

    ranks = bb.compared(FIXTURE["wdlmpro-gpt2"])
    changed = _copy(ranks)
    changed["metrics"]["w2d"]["all"]["rank_score"] += 1e-3
    assert bb.differences(ranks, changed)
    changed = _copy(ranks)
    changed["instances"][0]["gold_rank"] += 2  # no tie moves the gold by two places
    assert bb.differences(ranks, changed)


def test_near_ties_are_compared_as_ties():
    """A decision between competitors the recording has within the tolerance may go either way; its
    means and intervals may move by what that unit's outcome moved, no further."""
    run = bb.compared(FIXTURE["coda-bert"])
    unit = run["instances"][0]
    assert unit["assignment"] == [0, 1, 2]
    tied = _copy(run)  # contexts 0 and 1 equally good for definitions 0 and 1: two alignments tie
    scores = tied["instances"][0]["scores"]
    scores[0][1] = scores[0][0] + scores[1][1] - scores[1][0]
    flipped = _copy(tied)
    flipped["instances"][0].update(assignment=[1, 0, 2], predicted_pairs=[[0, 1], [1, 0], [2, 2]],
                                   accuracy=1 / 3)
    assert bb.differences(tied, flipped) == []
    flipped["metrics"]["alignment"]["all"]["accuracy"] -= (2 / 3) / 5  # the unit's move over n = 5
    assert bb.differences(tied, flipped) == []
    flipped["metrics"]["alignment"]["all"]["accuracy"] -= 0.01  # beyond what the unit explains
    assert bb.differences(tied, flipped)
    flipped = _copy(run)  # the same flip without the tie in the recording
    flipped["instances"][0].update(assignment=[1, 0, 2], predicted_pairs=[[0, 1], [1, 0], [2, 2]])
    assert bb.differences(run, flipped)

    choose = bb.compared(FIXTURE["wdlmpro-llama-choose"])
    tied = _copy(choose)  # options 2 (the gold, word 0) and 3 (word 5, chosen) within the tolerance
    reading = tied["instances"][0]["likelihood"]
    assert (reading["choice"], tied["instances"][0]["order"], tied["instances"][0]["gold_position"]) == (5, [3, 4, 0, 5], 2)
    reading["label_logprobs"][2] = reading["label_logprobs"][3] - 1e-6
    flipped = _copy(tied)
    flipped["instances"][0]["likelihood"].update(choice=0, correct=True, gold_rank=1, rank_score=1.0)
    assert bb.differences(tied, flipped) == []
    flipped["instances"][0]["generation"]["text"] = "B"  # another reading: no tie of the likelihood decides it
    assert bb.differences(tied, flipped)


def test_ties_without_recorded_margins_take_a_ties_shape_and_are_few():
    """WDLMPro records no competitor scores: the gold may move one place in one unit (#25: the tiny GPT-2
    on an EPYC), with the means and intervals that move with it; not two places, not in two units of ten."""
    ranks = bb.compared(FIXTURE["wdlmpro-gpt2-authors"])
    unit = ranks["instances"][2]
    assert (unit["task"], unit["gold_rank"], unit["n_candidates"]) == ("w2d", 3, 5)
    moved = _copy(ranks)
    moved["instances"][2].update(gold_rank=2, rank_score=0.75)  # as on the EPYC
    w2d = moved["metrics"]["w2d"]
    w2d["all"]["rank_score"] += 0.25 / 5
    w2d["n"]["rank_score"] += 0.25 / 3
    w2d["all"]["ci"]["rank_score"] = [0.297895, 0.713977]
    assert bb.differences(ranks, moved) == []
    w2d["all"]["rank_score"] += 0.01
    assert bb.differences(ranks, moved)
    other = _copy(ranks)  # a tie's shape, but a field no tie changes changed too
    other["instances"][2].update(gold_rank=2, rank_score=0.75, n_candidates=6)
    assert bb.differences(ranks, other)
    masked = bb.compared(FIXTURE["wdlmpro-bert-authors"])
    moved = _copy(masked)
    pattern = moved["instances"][0]["patterns"][0]
    pattern.update(gold_rank=pattern["gold_rank"] + 1, gold_score=pattern["gold_score"] + 1e-3)
    assert any("gold_score" in p for p in bb.differences(masked, moved))  # a score is compared, tie or not
    twice = _copy(ranks)
    twice["instances"][2].update(gold_rank=2, rank_score=0.75)
    twice["instances"][3].update(gold_rank=twice["instances"][3]["gold_rank"] + 1)
    assert any("near-ties" in p for p in bb.differences(ranks, twice))


def test_a_sweep_without_units_is_compared_within_its_stated_tolerance():
    from tests.baseline_compare import SWEEP_ATOL

    sweep = bb.compared(FIXTURE["senserank-bert-layers"])
    assert not sweep["instances"]
    moved = _copy(sweep)
    moved["sweep"]["values"]["0"]["metrics"]["semcor"]["all"]["ci"]["pooled"][0] += 2.7e-4  # as on the EPYC
    assert bb.differences(sweep, moved) == []
    moved["sweep"]["values"]["0"]["metrics"]["semcor"]["all"]["map"] += 2 * SWEEP_ATOL
    assert bb.differences(sweep, moved)


def test_the_sweeps_last_layer_is_the_single_layer_entry():
    """The recorded sweep's last layer equals the recorded single-layer run (which keeps per-unit records)."""
    sweep = bb.compared(FIXTURE["senserank-bert-layers"])["sweep"]["values"]
    single = bb.compared(FIXTURE["senserank-bert"])
    assert max(sweep, key=int) == "2"
    for part in ("metrics", "baselines"):
        assert bb.differences(single[part], sweep["2"][part]) == []


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
        # re-recorded: the fixture holds the new recording, BEFORE the first (stored upgraded to schema 2 once, #37)
        assert FIXTURE[name].get("schema_version") == 2 and FIXTURE[name] != BEFORE[name]


@pytest.mark.parametrize("name", sorted(bb.CHANGES))
def test_the_behaviour_before_the_change_gives_the_first_recording(name, commands, tiny_gpt2, tiny_bert, tmp_path,
                                                                   monkeypatch):
    """Every changed entry, run with the old behaviour selected, equals what was recorded before the
    refactor (without the fields the change added): the change is exactly the one asked for."""
    import dataclasses

    from lexprobe.core import registry

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
    problems = bb.differences(bb.compared(BEFORE[name]), got, name, added=bb.every_run_addition)
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
