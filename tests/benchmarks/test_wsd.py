"""The WSD benchmark (``lexprobe.benchmarks.wsd``): the framework's F1 by hand, each method on a stand-in backend
that serves only its request type, on tiny models against plain references, the refusals, and on the real
framework the paper's first-sense row and the official scorer's figures from a result's key file."""

from __future__ import annotations

from lexprobe.core.contract import prefers
import json
from pathlib import Path

import numpy as np
import pytest

from lexprobe.core import registry
from lexprobe.core.contract import Unit
from lexprobe.core.evaluate import evaluate
from lexprobe.benchmarks.wsd import results as res
from lexprobe.benchmarks.wsd.config import WsdChooseOptions, WsdConfig
from lexprobe.cli import main
from lexprobe.data.wsd import read_wsd
from lexprobe.data.wsd_senses import senses
from lexprobe.errors import ModelError
from lexprobe.models import load_scorer
from tests.data.test_wsd import write_pair
from tests.standins.continuation import ContinuationOnly
from tests.standins.embedding import EmbedOnly
from tests.standins.generation import GenerateOnly

BENCH = registry.get("wsd")


@pytest.fixture()
def mini(tmp_path) -> Path:
    """Five instances: art (N), change_ringing (N, one sense), peculiar (A, two gold keys), run (V), quickly (R)."""
    return write_pair(tmp_path / "data", name="mini")


def candidates(path: Path) -> dict[str, list]:
    return {i.id: list(senses(i.lemma, i.wordnet_pos)) for i in read_wsd(path)}


def run(scorer, config, out):
    return evaluate(BENCH, scorer, config, out, progress=False)


def test_f1_is_the_frameworks_by_hand():
    units = [res.unit("a", "N", 1.0), res.unit("b", "N", 0.0), res.unit("c", "V", None), res.unit("d", "V", 1.0)]
    figures = res.aggregate(units)
    assert figures["answered"] == 3 and figures["n"] == 4
    assert figures["precision"] == pytest.approx(2 / 3) and figures["recall"] == pytest.approx(2 / 4)
    assert figures["f1"] == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert figures["ci"]["f1"][0] <= figures["f1"] <= figures["ci"]["f1"][1]
    assert res.aggregate([res.unit("a", "N", 1.0)] * 3)["ci"]["f1"] == [1.0, 1.0]


@pytest.mark.parametrize("reduce", ["mean", "sum"])
def test_likelihood_on_a_backend_that_serves_only_continuations(mini, tmp_path, reduce):
    backend = ContinuationOnly()
    result = run(backend, WsdConfig(data=str(mini), reduce=reduce), tmp_path / "r.json")
    gold = {i.id: set(i.gold) for i in read_wsd(mini)}
    correct = 0
    for record in result["instances"]:
        cands = candidates(mini)[record["id"]]
        score = [(np.mean if reduce == "mean" else np.sum)(backend.logprobs(" " + s.definition)) for s in cands]
        picked = cands[int(np.argmax(score))].key
        assert record["predicted"] == picked and record["correct"] == float(picked in gold[record["id"]])
        correct += picked in gold[record["id"]]
    figures = result["metrics"]["wsd"]["all"]
    assert figures["f1"] == figures["precision"] == figures["recall"] == pytest.approx(correct / 5)
    assert {r.context.split("\n")[0] for r in backend.asked} >= {'The "art" of change-ringing is peculiar .'}
    assert not any("change_ringing" in r.context for r in backend.asked)  # one sense: answered without asking
    assert result["baselines"]["first_sense"]["wsd"]["all"]["f1"] is not None
    assert Path(result["key_file"]).read_text().splitlines()[0].startswith("d000.s000.t000 ")


def test_an_instance_too_long_for_the_model_is_unanswered(mini, tmp_path):
    longest = {i: max(len(s.definition.split()) for s in c) for i, c in candidates(mini).items() if len(c) > 1}
    limit = sorted(longest.values())[-1]  # only the instance with the longest definition cannot be scored
    result = run(ContinuationOnly(limit=limit), WsdConfig(data=str(mini)), tmp_path / "r.json")
    skipped = [r for r in result["instances"] if "skipped" in r]
    assert [r["id"] for r in skipped] == [i for i, n in longest.items() if n >= limit]
    figures = result["metrics"]["wsd"]["all"]
    answered = [r for r in result["instances"] if "skipped" not in r]
    c = sum(r["correct"] for r in answered)
    assert figures["answered"] == 4 and figures["precision"] == pytest.approx(c / 4)
    assert figures["recall"] == pytest.approx(c / 5) and figures["f1"] == pytest.approx(2 * c / (4 + 5))
    assert result["counts"]["skipped_too_long"] == 1


def test_embedding_on_a_backend_that_serves_only_embed(mini, tmp_path):
    backend = EmbedOnly()
    result = run(backend, WsdConfig(data=str(mini), method="embedding"), tmp_path / "r.json")
    by_id = {i.id: i for i in read_wsd(mini)}
    for record in result["instances"]:
        cands = candidates(mini)[record["id"]]
        if len(cands) < 2:
            continue
        sentence = backend.vector(" ".join(by_id[record["id"]].tokens))
        best = cands[int(np.argmax([sentence @ backend.vector(s.definition) for s in cands]))].key
        assert record["predicted"] == best
    assert result["config"]["requests"] == {"asked": ["Embed"]}
    with pytest.raises(ModelError) as err:
        run(backend, WsdConfig(data=str(mini), method="embedding", vector="token"), tmp_path / "t.json")
    assert "contextual token embeddings" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ModelError, match="log-probabilities of continuations"):
        run(backend, WsdConfig(data=str(mini), method="likelihood"), tmp_path / "l.json")


def test_choose_on_a_backend_that_only_generates(mini, tmp_path):
    """The backend always answers "1": the first option shown is chosen, right when it is any gold sense."""
    config = WsdConfig(data=str(mini), method="choose", choose=WsdChooseOptions(reading="generation"))
    result = run(GenerateOnly(), config, tmp_path / "r.json")
    gold = {i.id: set(i.gold) for i in read_wsd(mini)}
    for record in result["instances"]:
        chosen = record["candidates"][record["order"][0]]
        assert record["generation"]["correct"] == (chosen in gold[record["id"]])
        if len(record["candidates"]) == 1:
            assert record["generation"].get("unasked") and "prompt" not in record
    peculiar = next(r for r in result["instances"] if r["lemma"] == "peculiar")
    assert len(peculiar["gold_positions"]) == 2  # either gold sense counts
    n_right = sum(r["generation"]["correct"] for r in result["instances"])
    assert result["metrics"]["wsd"]["all"]["generation.f1"] == pytest.approx(n_right / 5)
    assert set(result["baselines"]) == {"random", "first_sense"}  # no SemCor in this data directory: no MFS


def test_likelihood_on_a_tiny_causal_lm_equals_one_pair_at_a_time(mini, tmp_path, tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2), kind="causal", device="cpu")
    result = run(scorer, WsdConfig(data=str(mini)), tmp_path / "r.json")
    by_id = {i.id: i for i in read_wsd(mini)}
    from lexprobe.benchmarks.wsd.config import PATTERNS
    from lexprobe.benchmarks.wsd.items import marked

    for record in result["instances"]:
        if "scores" not in record:
            continue
        inst = by_id[record["id"]]
        context = PATTERNS["means"].format(marked=marked(inst), word=inst.tokens[inst.index])
        plain = [float(np.mean(scorer.continuation_logprobs([(context, " " + s.definition)])[0]))
                 for s in candidates(mini)[record["id"]]]
        np.testing.assert_allclose(record["scores"], plain, atol=2e-5)


def test_token_vectors_of_a_tiny_encoder_equal_the_embedder(mini, tmp_path, tiny_bert):
    from lexprobe.asking.requests import TokenVector

    scorer = load_scorer(str(tiny_bert), device="cpu", prefer=prefers(BENCH, "embedding"))
    assert scorer.kind == "token"
    result = run(scorer, WsdConfig(data=str(mini), method="embedding", layer=1), tmp_path / "r.json")
    assert result["config"]["requests"] == {"asked": ["TokenVector"]}
    view = scorer.view(layer=1)
    by_id = {i.id: i for i in read_wsd(mini)}
    for record in result["instances"]:
        if "scores" not in record:
            continue
        inst = by_id[record["id"]]
        target = view.token_vectors([TokenVector(inst.tokens, inst.index)])[0]
        defs = [view.token_vectors([TokenVector((s.definition,), 0)])[0] for s in candidates(mini)[record["id"]]]
        plain = [float(target @ d / np.linalg.norm(target) / np.linalg.norm(d)) for d in defs]
        np.testing.assert_allclose(record["scores"], plain, atol=1e-5)


def test_the_cli_refuses_a_model_without_the_request_types_before_any_work(mini, tmp_path, tiny_bert, capsys):
    # --method given (without it the method follows what the model serves: embedding)
    code = main(["wsd", "eval", "--data", str(mini), "--model", str(tiny_bert), "--method", "likelihood", "--out",
                 str(tmp_path / "r.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "log-probabilities of continuations" in err[0]
    assert not (tmp_path / "r.json").exists()


def test_report_and_compare_take_wsd_results(mini, tmp_path, capsys):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    run(ContinuationOnly(), WsdConfig(data=str(mini)), a)
    run(load_scorer("random"), WsdConfig(data=str(mini)), b)
    assert main(["report", str(a), str(b), "--out", str(tmp_path / "rep")]) == 0
    assert "All-words WSD" in (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert main(["compare", str(a), str(b)]) == 0
    assert "f1" in capsys.readouterr().out.lower()


# --- the real framework (through `lexprobe data import`) --------------------------------------------

PAPER_FIRST_SENSE = {"senseval2": 66.8, "senseval3": 66.2, "semeval2007": 55.2, "semeval2013": 63.0,
                     "semeval2015": 67.8, "all": 65.2}


@pytest.mark.slow
def test_every_result_carries_the_papers_first_sense_row_and_its_key_file_scores_as_scorer_java(
        imported_data, scorer_java, tmp_path):
    from tests.metrics.test_wsd import java_score

    result = run(load_scorer("random"), WsdConfig(), tmp_path / "random.json")
    first = result["baselines"]["first_sense"]["wsd"]
    assert {s: round(100 * first[s]["f1"], 1) for s in PAPER_FIRST_SENSE} == PAPER_FIRST_SENSE
    assert result["baselines"]["mfs"]["wsd"]["all"]["n"] == 7253
    gold = imported_data / "wsd-raganato" / "ALL" / "ALL.gold.key.txt"
    p, r, f1 = java_score(scorer_java, gold, Path(result["key_file"]))
    mine = result["metrics"]["wsd"]["all"]
    assert (p, r, f1) == pytest.approx((mine["precision"], mine["recall"], mine["f1"]), abs=1e-9)
    assert json.loads((tmp_path / "random.json").read_text())["benchmark"] == "wsd"


from tests.metrics.test_wsd import scorer_java  # noqa: E402,F401  (the compiled Scorer.java fixture)


def test_run_skips_wsd_without_its_data_and_exits_0(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--only", "wsd", "--no-llm", "--no-fetch", "--out-dir", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == [] and [s["why"] for s in summary["skipped"]] == ["no data"]
    assert summary["skipped"][0]["method"] == "embedding"  # what MiniLM would have run, not the part's default
    assert "lexprobe data fetch wsd" in capsys.readouterr().err


@pytest.mark.slow
def test_runs_part_is_reproduced_by_its_eval_command(imported_data, tmp_path):
    """`lexprobe run`'s WSD part records the `eval` command of its sample; that command scores the same items."""
    import shlex

    out = tmp_path / "run"
    assert main(["run", "--only", "wsd", "--no-llm", "--no-fetch", "--sample", "2", "--out-dir", str(out)]) == 0
    first = json.loads((out / "wsd.json").read_text())
    command = shlex.split(first["run"]["reproduce"])
    assert command[:3] == ["lexprobe", "wsd", "eval"] and "--limit" in command
    assert main(command[1:]) == 0
    again = json.loads(Path(command[command.index("--out") + 1]).read_text())
    assert [r["id"] for r in again["instances"]] == [r["id"] for r in first["instances"]]
    assert again["metrics"] == first["metrics"]


def test_aggregates_of_several_slices_equal_each_aggregated_alone():
    """The published systems' figures are drawn together per slice (``results.aggregates``): each equals its own
    ``aggregate``."""
    rng = np.random.default_rng(5)
    lists = [[res.unit(str(i), "N", None if rng.random() < 0.1 else float(rng.random() < 0.6)) for i in range(200)]
             for _ in range(3)] + [[res.unit(str(i), "N", 1.0) for i in range(200)]]
    for together, units in zip(res.aggregates(lists), lists):
        assert together == res.aggregate(units)
