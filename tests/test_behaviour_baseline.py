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
    problems = bb.differences(bb.compared(FIXTURE[name]), got, name)
    assert not problems, "\n".join(problems[:20])


def test_differences_sees_a_changed_number():
    run = FIXTURE["coda-bert"]
    changed = json.loads(json.dumps(run))
    changed["instances"][0]["scores"][0][0] += 2e-6
    assert bb.differences(run, changed) and not bb.differences(run, json.loads(json.dumps(run)))
    changed = json.loads(json.dumps(run))
    changed["instances"][0]["assignment"][0] = 1 - changed["instances"][0]["assignment"][0]
    assert bb.differences(run, changed)
