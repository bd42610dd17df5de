"""The pair task type (``lexprobe.tasks.pair``) through a benchmark written as a user would (``tests/samesense``:
items and phrasing only): eval by every method, resume, report, compare and both exports, with no edit outside the
benchmark's package; the threshold fitted on the declared split and recorded; metrics against hand-computed values.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from lexprobe.cli import main
from lexprobe.core.registry import REGISTRY
from lexprobe.tasks import pair
from tests.optional import needs_package
from tests.samesense import SAMESENSE
from tests.samesense.benchmark import DATA


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    """The benchmark registered for this test only, as a user's script registers its own."""
    monkeypatch.setitem(REGISTRY, SAMESENSE.meta.name, SAMESENSE)


def _eval(tmp_path, *args, name="r.json") -> dict:
    out = tmp_path / name
    assert main(["samesense", "eval", *args, "--out", str(out)]) == 0
    return json.loads(out.read_text())


# --- metrics, by hand ---------------------------------------------------------------------------------------

def test_the_fitted_threshold_is_the_most_accurate_midpoint():
    # scores 0.1 0.2 0.3 0.4 with labels F T F T: thresholds 0.0 (all same: 2/4), 0.15 (3/4: 0.2, 0.3, 0.4 same ->
    # T F T wrong once), 0.25 (0.3 and 0.4 same: F T -> 2/4 ... right: 0.1 F, 0.2 T said F (wrong), 0.3 said T
    # (wrong), 0.4 T: 2/4), 0.35 (only 0.4 same: 3/4), 0.5 (none: 2/4): 0.15 and 0.35 tie at 3/4, the lowest wins
    threshold, accuracy = pair.fit_threshold([0.1, 0.2, 0.3, 0.4], [False, True, False, True])
    assert threshold == pytest.approx(0.15) and accuracy == 0.75
    assert pair.fit_threshold([3.0, 1.0], [True, False]) == (2.0, 1.0)


def test_roc_auc_counts_pairs_ranked_right_and_ties_half():
    # same: 0.9, 0.5; different: 0.5, 0.1 -> pairs (0.9>0.5 1, 0.9>0.1 1, 0.5=0.5 1/2, 0.5>0.1 1) = 3.5 / 4
    assert pair.roc_auc([0.9, 0.5, 0.5, 0.1], [True, True, False, False]) == pytest.approx(0.875)
    assert pair.roc_auc([0.1, 0.2], [True, True]) is None


def test_unit_values_decide_by_the_fitted_threshold_and_at_zero():
    result = {"method": "ask", "fitted": {"threshold": {"sets": {"dev": {"value": -1.0}}, "groups": {"x": "dev"}}},
              "instances": [{"id": "a", "group": "x", "score": -0.5, "same": True},
                            {"id": "b", "group": "x", "score": -2.0, "same": True},
                            {"id": "c", "group": "x", "score": 0.5, "same": False}]}
    values = {u.key: u.values for u in pair.unit_values(result)}
    assert values == {"a": {"accuracy": 1.0, "accuracy_zero": 0.0}, "b": {"accuracy": 0.0, "accuracy_zero": 0.0},
                      "c": {"accuracy": 0.0, "accuracy_zero": 0.0}}


# --- a run ------------------------------------------------------------------------------------------------------

def test_a_run_records_its_threshold_and_where_it_was_fitted(tmp_path, tiny_bert):
    r = _eval(tmp_path, "--model", str(tiny_bert))
    fitted = r["fitted"]["threshold"]
    assert fitted["groups"] == {"all": "train"} and fitted["sets"]["train"]["n"] == 12
    assert r["run"]["n_items"] == len(r["instances"]) > 3  # the pairs scored (it once counted the digest's 3 parts)
    scores = [i["score"] for i in r["instances"]]
    said = [s > fitted["sets"]["train"]["value"] for s in scores]
    right = [s == i["same"] for s, i in zip(said, r["instances"])]
    assert r["metrics"]["pair"]["all"]["accuracy"] == pytest.approx(np.mean(right))
    assert r["metrics"]["pair"]["all"]["auc"] == pytest.approx(pair.roc_auc(scores, [i["same"] for i in r["instances"]]))
    assert r["baselines"]["random"]["pair"]["all"]["accuracy"] == 0.5
    assert r["config"]["requests"]["vector"] == "token"
    assert {i["id"] for i in r["instances"]}.isdisjoint({"fit:" + i["id"] for i in r["instances"]})


def test_a_threshold_is_never_fitted_on_the_pairs_it_scores(tmp_path, capsys):
    rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    train = [r for r in rows if r["split"] == "train"]
    for row in train[:2]:  # two pairs of the split fitted on, copied into the scored split under new ids
        rows.append({**row, "id": row["id"] + "-again", "split": "test"})
    data = tmp_path / "overlap.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code = main(["samesense", "eval", "--model", "random", "--data", str(data), "--out", str(tmp_path / "r.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "never fitted on the pairs it decides" in err[0]
    assert not (tmp_path / "r.json").exists()


def test_pairs_fitted_on_and_scored_are_refused_by_content():
    first = pair.PairItem("a", pair.Target("a dog", 2, 5), pair.Target("the dog", 4, 7), True)
    again = pair.PairItem("b", first.first, first.second, True)
    with pytest.raises(Exception, match="never fitted on the pairs it decides"):
        pair.check_items(pair.PairItems([first], {"train": [again]}))


def test_ask_scores_the_log_odds_of_the_answer_words(tmp_path, tiny_gpt2):
    from lexprobe.asking.requests import Continuation
    from lexprobe.models import load_scorer

    r = _eval(tmp_path, "--model", str(tiny_gpt2), "--method", "ask")
    scorer = load_scorer(str(tiny_gpt2))
    items = SAMESENSE.items.load(SAMESENSE.Config())
    first = items.pairs[0]
    question = SAMESENSE.methods["ask"].phrasing.question(first)
    yes, no = scorer.continuations([Continuation(question, " Yes"), Continuation(question, " No")])
    record = next(i for i in r["instances"] if i["id"] == first.id)
    assert record["score"] == pytest.approx(float(np.sum(yes) - np.sum(no)), abs=1e-5)
    zero = np.mean([(i["score"] > 0) == i["same"] for i in r["instances"]])
    assert r["metrics"]["pair"]["all"]["accuracy_zero"] == pytest.approx(zero)


def test_choose_asks_the_two_answers_as_options(tmp_path, tiny_gpt2):
    r = _eval(tmp_path, "--model", str(tiny_gpt2), "--method", "choose", "--permutations", "2")
    assert r["method"] == "choose" and len(r["instances"]) == 2 * 12  # a pair, in both orders of its options
    for record in r["instances"]:
        gold = 0 if record["same"] else 1
        assert record["options"][record["gold_position"]] == ("the same meaning", "different meanings")[gold]
        assert record["likelihood"]["correct"] == (record["likelihood"]["choice"] == gold)
    assert r["baselines"]["random"]["pair"]["all"]["accuracy"] == 0.5


def test_an_interrupted_run_resumes_without_scoring_again(tmp_path, monkeypatch):
    from lexprobe.core.evaluate import evaluate
    from lexprobe.scorers.random import RandomScorer

    config = SAMESENSE.Config(chunk_size=5)
    whole = evaluate(SAMESENSE, RandomScorer(), config, tmp_path / "whole.json", progress=False)
    real, scored = pair.PairEmbedding.score, []

    def failing(self, engine, kind, config, chunk):
        if len(scored) >= 10:
            raise KeyboardInterrupt
        scored.extend(p.id for _, p in chunk)
        return real(self, engine, kind, config, chunk)

    monkeypatch.setattr(pair.PairEmbedding, "score", failing)
    with pytest.raises(KeyboardInterrupt):
        evaluate(SAMESENSE, RandomScorer(), config, tmp_path / "r.json", progress=False)
    monkeypatch.setattr(pair.PairEmbedding, "score", real)
    again = []
    monkeypatch.setattr(pair.PairEmbedding, "score",
                        lambda self, engine, kind, config, chunk: again.extend(p.id for _, p in chunk)
                        or real(self, engine, kind, config, chunk))
    resumed = evaluate(SAMESENSE, RandomScorer(), config, tmp_path / "r.json", progress=False)
    assert len(scored) == 10 and not set(again) & set(scored) and len(again) == 24 - 10
    assert resumed["metrics"] == whole["metrics"] and resumed["fitted"] == whole["fitted"]


def test_report_and_compare_take_it(tmp_path, tiny_bert, capsys):
    a = tmp_path / "a.json"
    _eval(tmp_path, "--model", str(tiny_bert), name="a.json")
    _eval(tmp_path, "--model", "random", name="b.json")
    assert main(["compare", str(a), str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "McNemar exact" in out and "accuracy" in out
    assert main(["report", str(a), str(tmp_path / "b.json"), "--out", str(tmp_path / "report")]) == 0
    index = (tmp_path / "report" / "index.html").read_text()
    assert "Same sense: same meaning or not" in index and "on train" in index
    items = (tmp_path / "report" / "samesense.html").read_text()
    assert '"lemma"' in items and '"said"' in items  # the items page: its rows with the task type's columns


def test_the_hf_export_reads_back_to_the_same_result(tmp_path, tiny_bert):
    assert main(["export", "hf", "samesense", "--out", str(tmp_path / "hf")]) == 0
    direct = _eval(tmp_path, "--model", str(tiny_bert), name="direct.json")
    again = _eval(tmp_path, "--model", str(tiny_bert), "--data", str(tmp_path / "hf"), name="again.json")
    assert again["metrics"] == direct["metrics"] and again["fitted"] == direct["fitted"]
    assert again["run"]["items_digest"] == direct["run"]["items_digest"]


def test_lm_eval_on_the_export_gives_asks_accuracy_at_zero(tmp_path, tiny_gpt2):
    needs_package("lm_eval")
    from lexprobe.models import load_scorer
    from tests.export.helpers import run_lm_eval

    assert main(["export", "lm-eval", "samesense", "--out", str(tmp_path / "lm")]) == 0
    ours = _eval(tmp_path, "--model", str(tiny_gpt2), "--method", "ask")
    theirs, samples, _ = run_lm_eval(tmp_path / "lm", ["lexprobe_samesense"], load_scorer(str(tiny_gpt2)))
    assert theirs["lexprobe_samesense_all"]["acc,none"] == pytest.approx(ours["metrics"]["pair"]["all"]["accuracy_zero"])
    lls = {i: [float(ll) for ll, _ in s["filtered_resps"]] for i, s in samples["lexprobe_samesense_all"].items()}
    for record in ours["instances"]:  # lm-eval's log-likelihoods of " No" and " Yes": the log-odds lexprobe scored
        no, yes = lls[record["id"]]
        assert record["score"] == pytest.approx(yes - no, abs=1e-4)


def test_a_span_is_the_same_target_as_its_word(tiny_bert):
    """The character-span path against the word-index path it generalises: the same subwords, the same vector."""
    from lexprobe.asking.requests import TokenVector
    from lexprobe.data.instances import token_char_spans
    from lexprobe.models import load_scorer

    scorer = load_scorer(str(tiny_bert), kind="token")
    words = ("the", "dog", "barks", "at", "the", "cat")
    text = " ".join(words)
    by_word = scorer.token_vectors([TokenVector(words, i) for i in range(len(words))])
    by_span = scorer.token_vectors([TokenVector.of_span(text, *span) for span in token_char_spans(words)])
    for a, b in zip(by_word, by_span):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="not a non-empty part"):
        TokenVector.of_span(text, 3, 3)


def test_the_words_alone_are_a_no_context_control(tmp_path, minilm_path):
    """``--vector word``: the cosine of the two targets' words embedded alone, what a static vector can say."""
    from lexprobe.asking.requests import Embed
    from lexprobe.models import load_scorer

    r = _eval(tmp_path, "--model", str(minilm_path), "--kind", "embedding", "--vector", "word")
    assert r["config"]["requests"]["vector"] == "word"
    scorer = load_scorer(str(minilm_path), kind="embedding")
    pairs = {p.id: p for p in SAMESENSE.items.load(SAMESENSE.Config()).pairs}
    for record in r["instances"][:3]:
        p = pairs[record["id"]]
        a, b = scorer.embeddings([Embed(p.first.word), Embed(p.second.word)])
        assert record["score"] == pytest.approx(pair.cosine(a, b), abs=1e-5)
