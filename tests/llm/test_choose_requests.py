"""Every benchmark's choose method asks through requests only (issue #37): by generation on a backend that
serves only ``Generate`` (``tests/standins/generation.py``), by label likelihood on one that serves only
``Continuation`` (``tests/standins/continuation.py``), plain or as chat messages, with scores known by hand;
a backend lacking a reading's request type is refused in one line before any request."""

from __future__ import annotations

import numpy as np
import pytest

from lexprobe.core import registry
from lexprobe.benchmarks.coda21.dataset import load_coda
from lexprobe.core.evaluate import evaluate
from lexprobe.asking.requests import Continuation, Generate, Message
from lexprobe.errors import ModelError
from lexprobe.prompting.choose_cli import ChooseOptions
from tests.benchmarks.coda21.helpers import write_small
from tests.benchmarks.wdlmpro.test_scoring import GROUPS
from tests.data.test_wsd import write_pair
from tests.llm.choose_runs import ask
from tests.standins.continuation import ContinuationOnly
from tests.standins.generation import GenerateOnly

BENCHES = ("wdlmpro", "coda21", "wsd", "toy")
#: each benchmark's task and its one score of a reading
SCORE = {"wdlmpro": ("w2d", "p_at_1"), "coda21": ("alignment", "accuracy"), "wsd": ("wsd", "f1"),
         "toy": ("pick", "accuracy")}


@pytest.fixture()
def run(tmp_path, monkeypatch):
    """``run(bench, backend, **options)``: the benchmark's choose result on ``backend`` (CoDA21: its verb group of
    three pairs; WSD: five instances; the toy registered)."""
    from tests.toy_benchmark import TOY

    monkeypatch.setitem(registry.REGISTRY, "toy", TOY)
    coda = load_coda(write_small(tmp_path / "coda.json"))
    wsd = write_pair(tmp_path / "wsd", name="mini")

    def run(bench: str, backend, **options) -> dict:
        if bench in ("wdlmpro", "coda21"):
            return ask(bench, backend, GROUPS if bench == "wdlmpro" else coda, **options)
        if bench == "wsd":
            from lexprobe.benchmarks.wsd.config import WsdChooseOptions, WsdConfig

            config = WsdConfig(data=str(wsd), method="choose", choose=WsdChooseOptions(**options))
            return evaluate("wsd", backend, config, progress=False)
        from tests.toy_benchmark import ToyConfig

        return evaluate("toy", backend, ToyConfig(method="choose", choose=ChooseOptions(**options)), progress=False)

    return run


def _first_option_right(bench: str, record: dict) -> float:
    """The score of answering the first option shown ("1"; CoDA21: presented context i with definition i)."""
    if bench == "coda21":
        return float(np.mean([c == d for c, d in zip(record["context_order"], record["definition_order"])]))
    if bench == "wsd":
        return float(record["candidates"][record["order"][0]] in record["gold"])
    return float(record["gold_position"] == 0)


@pytest.mark.parametrize("chat", [False, True])
@pytest.mark.parametrize("bench", BENCHES)
def test_every_choose_method_runs_on_a_backend_that_only_generates(bench, chat, run):
    backend = GenerateOnly("1: A, 2: B, 3: C" if bench == "coda21" else "1")
    result = run(bench, backend, reading="generation", chat=chat, permutations=2)
    assert result["readings"] == ["generation", "generation_lenient"] and backend.asked
    for request in backend.asked:  # the question as chat messages (or text), the answer prefix beside it
        assert isinstance(request, Generate) and request.answer_prefix == "Answer:"
        if chat:
            assert [m.role for m in request.prompt] == ["user"] and isinstance(request.prompt[0], Message)
        else:
            assert isinstance(request.prompt, str) and request.prompt.endswith("\n")
    asked = [r for r in result["instances"] if not r["generation"].get("unasked")]
    assert len(set(backend.asked)) == len(backend.asked) <= len(asked)  # each distinct prompt asked once
    task, score = SCORE[bench]
    expected = [_first_option_right(bench, r) for r in result["instances"]]
    assert [float(r["generation"].get("accuracy", r["generation"].get("correct"))) for r in result["instances"]] == \
        expected
    if bench != "wsd":  # (WSD's F1 counts unanswered instances: tests/benchmarks/test_wsd.py)
        assert result["metrics"][task]["all"][f"generation.{score}"] == pytest.approx(np.mean(expected))


@pytest.mark.parametrize("chat", [False, True])
@pytest.mark.parametrize("bench", BENCHES)
def test_every_choose_method_reads_label_likelihood_on_a_backend_that_only_scores_continuations(bench, chat, run):
    """Every label is one word of the stand-in, so each label's log-probability is -0.1 (``ContinuationOnly``):
    ties everywhere, which never favour the gold option; CoDA21's rows are given, not scored."""
    backend = ContinuationOnly()
    result = run(bench, backend, reading="likelihood", chat=chat, debias="cyclic", max_candidates=3)
    assert result["readings"] == ["likelihood", "likelihood_cyclic"] and backend.asked
    for request in backend.asked:
        assert isinstance(request, Continuation) and request.answer_prefix == "Answer:"
        assert isinstance(request.context, str) != chat
        assert request.continuation.startswith(" ") and (bench == "coda21" or request.given == "")
    if bench == "coda21":
        assert {r.given for r in backend.asked} == {" 1:", " 2:", " 3:"}
        assert {r.continuation for r in backend.asked} == {" A", " B", " C"}
    for record in result["instances"]:
        if record.get("likelihood", {}).get("unasked") or "likelihood" not in record:
            continue
        assert np.all(np.asarray(record["likelihood"]["label_logprobs"]) == -0.1)
        if bench in ("wdlmpro", "toy"):
            assert record["likelihood"]["gold_rank"] == len(record["order"]) and not record["likelihood"]["correct"]


@pytest.mark.parametrize("bench", BENCHES)
def test_a_prompt_that_the_backend_would_cut_is_skipped(bench, run):
    backend = ContinuationOnly(limit=6)  # every question is longer than six words: cut, so not asked
    result = run(bench, backend, reading="likelihood")
    asked = [r for r in result["instances"] if not r.get("likelihood", {}).get("unasked")]
    assert asked and all(r["skipped"] == "the prompt does not fit the model with its labels (its start would be "
                                          "cut)" for r in asked)
    assert result["counts"]["skipped_too_long"] == len(asked)


@pytest.mark.parametrize("bench", BENCHES)
def test_a_backend_without_a_readings_request_type_is_refused_before_any_request(bench, run):
    generates, continues = GenerateOnly(), ContinuationOnly()
    with pytest.raises(ModelError) as err:
        run(bench, generates)  # both readings: the likelihood reading needs continuations
    line = str(err.value)
    assert "\n" not in line and "likelihood reading" in line and "add --reading generation" in line
    with pytest.raises(ModelError) as err:
        run(bench, continues, reading="generation")
    assert "\n" not in str(err.value) and "needs generation; model 'continuation-only'" in str(err.value)
    assert not generates.asked and not continues.asked


def test_cyclic_debiasing_reads_the_gold_option_where_it_is_not_the_first_candidate(run):
    """WSD's gold is any of an instance's senses, kept in a sample of two that may leave out its first sense:
    the debiased reading ranks the record's own gold option (it used to look for candidate 0: ValueError)."""
    result = run("wsd", ContinuationOnly(), reading="likelihood", debias="cyclic", max_candidates=2)
    firsts = [r for r in result["instances"] if "likelihood_cyclic" in r]
    assert any(0 not in r["order"] for r in firsts)  # the case: a sample without the first sense
    for r in firsts:  # all ties: the gold option ranks last, whichever it is
        cyclic = r["likelihood_cyclic"]
        assert cyclic["options"] == sorted(r["order"]) and cyclic["gold_rank"] == 2 and cyclic["rank_score"] == 0.0
        assert cyclic["choice"] != r["order"][r["gold_position"]]
