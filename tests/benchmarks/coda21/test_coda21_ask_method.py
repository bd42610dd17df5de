"""``--method ask``: the authors' yes/no questions through the Benchmark contract (config, resume, CLI,
report, compare), checked against hand-computed P(Yes) and against the module's own matrices."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lexprobe.benchmarks.coda21.ask import QUESTION_TEXTS, ask_matrices, questions
from lexprobe.benchmarks.coda21.config import AskOptions, CodaConfig
from lexprobe.benchmarks.coda21.dataset import load_coda
from lexprobe.benchmarks.coda21.likelihood import hide_target
from lexprobe.core.evaluate import evaluate
from lexprobe.cli import main
from lexprobe.errors import ModelError
from lexprobe.metrics import alignment as al
from lexprobe.models import load_scorer
from tests.benchmarks.coda21.helpers import write_small
from tests.benchmarks.coda21.test_coda21_asking import TwoAnswers


def _p(yes: float) -> tuple[float, float]:
    """log P(Yes), log P(No) whose two-way softmax is ``yes``."""
    return math.log(yes), math.log(1 - yes)


def test_the_questions_mean_is_aligned_by_hand(tmp_path):
    """Two nouns (suggestion, concept). P(Yes) per (context, definition) and question:
    question 1 alone: [[.9, .2], [.3, .6]] -> gold alignment (1.5 > .5);
    questions 2, 3: [[.1, .8], [.7, .2]] -> swapped; the mean of 1..3 is [[.367, .6], [.567, .333]]:
    swapped (.6 + .567 = 1.167 > .7)."""
    path = write_small(tmp_path / "small.json")
    data = load_coda(path)
    group = data.groups[1]
    q1 = [[.9, .2], [.3, .6]]
    q23 = [[.1, .8], [.7, .2]]
    texts = questions(group)  # contexts outer, definitions, questions inner
    table = {t: _p(.5) for g in data.by_pos("n") for t in questions(g)}  # (the other noun group: no matter)
    table.update({t: _p((q1 if i % 3 == 0 else q23)[i // 6][(i // 3) % 2]) for i, t in enumerate(texts)})
    scorer = TwoAnswers(table)
    one = evaluate("coda21", scorer, CodaConfig(data=str(path), method="ask", pos="n"),
                   items=data, progress=False)
    inst = {r["id"]: r for r in one["instances"]}["n/1"]
    np.testing.assert_allclose(inst["scores"], q1, atol=1e-6)
    assert inst["accuracy"] == 1.0
    every = evaluate("coda21", TwoAnswers(table), CodaConfig(data=str(path), method="ask", pos="n",
                                                              ask=AskOptions(questions=(1, 2, 3))),
                     items=data, progress=False)
    inst = {r["id"]: r for r in every["instances"]}["n/1"]
    np.testing.assert_allclose(inst["scores"], [[(.9 + .2) / 3, (.2 + 1.6) / 3], [(.3 + 1.4) / 3, (.6 + .4) / 3]],
                               atol=1e-6)
    assert inst["accuracy"] == 0.0 and inst["assignment"] == [1, 0]
    assert [q["accuracy"] for q in inst["per_question"]] == [1.0, 0.0, 0.0]
    assert every["method"] == "ask" and every["config"]["ask"]["questions"] == [1, 2, 3]
    assert every["config"]["ask"]["aggregation"] == "mean-prob"
    assert every["config"]["ask"]["question_text"]["n"] == list(QUESTION_TEXTS["n"])
    assert one["config"]["ask"]["question_text"]["v"] == [QUESTION_TEXTS["v"][0]]
    assert every["counts"]["questions_asked"] == 3 * one["counts"]["questions_asked"]


#: answers the tiny vocabularies tell apart by their first token (they spell " Yes" and " No" "Ġ" + letters,
#: which the authors' P(Yes) cannot read: refused, #26 D10)
TINY_ANSWERS = (" dog", " cat")


def test_cli_ask_on_a_causal_and_a_masked_lm(tmp_path, tiny_gpt2, tiny_bert, capsys, monkeypatch):
    import lexprobe.benchmarks.coda21.ask as asking

    monkeypatch.setattr(asking, "ANSWERS", TINY_ANSWERS)
    path = write_small(tmp_path / "small.json")
    data = load_coda(path)
    for model in (tiny_gpt2, tiny_bert):
        out = tmp_path / f"{model.name}.json"
        assert main(["coda21", "eval", "--data", str(path), "--model", str(model), "--device", "cpu",
                     "--method", "ask", "--questions", "2", "3", "--out", str(out)]) == 0
        result = json.loads(out.read_text(encoding="utf-8"))
        assert result["schema_version"] == 2 and result["method"] == "ask" and result["readings"] == []
        assert result["config"]["ask"]["questions"] == [2, 3]
        scorer = load_scorer(str(model), device="cpu")
        by_id = {r["id"]: r for r in result["instances"]}
        for g, m in zip(data.groups, ask_matrices(scorer, data.groups, answers=TINY_ANSWERS, which=[1, 2],
                                                  hide=lambda c, w, n: hide_target(c, w, n, "paper"))):
            r = by_id[g.id]
            np.testing.assert_allclose(r["scores"], m.mean(axis=2), atol=1e-5)
            order = al.tie_break_order(g.id, g.k)
            assert r["accuracy"] == al.accuracy(al.align(np.asarray(r["scores"]), "optimal", order))
    printed = capsys.readouterr().out
    flat = " ".join(printed.split())  # (a long model name wraps its column: "2," and "3" on two lines)
    # (the column of a long model path wraps "asked" and "question(s) 2, 3" apart)
    assert "asked" in printed and "question(s) 2, 3" in flat and "P(Yes) against P(No)" in flat, printed


def test_ask_refuses_what_it_cannot_use(tmp_path):
    path = write_small(tmp_path / "small.json")
    with pytest.raises(ModelError, match="coda21 --method ask needs log-probabilities of continuations"):
        evaluate("coda21", load_scorer("random"), CodaConfig(data=str(path), method="ask"), progress=False)
    base = ["coda21", "eval", "--data", str(path), "--model", "random", "--out", str(tmp_path / "x.json")]
    assert main(base + ["--questions", "2"]) == 2  # an ask option with the likelihood method
    assert main(base + ["--method", "ask", "--questions", "1", "1"]) == 2
    with pytest.raises(SystemExit) as parser_exit:  # --protocol (removed in #37) is no option
        main(base + ["--protocol", "ask"])
    assert parser_exit.value.code == 2
    assert not (tmp_path / "x.json").exists()


def test_ask_results_get_their_own_report_table_and_compare_with_likelihood(tmp_path, tiny_gpt2, monkeypatch):
    import lexprobe.benchmarks.coda21.ask as asking

    monkeypatch.setattr(asking, "ANSWERS", TINY_ANSWERS)
    from lexprobe.core.contract import tables
    from lexprobe.core.registry import get
    from lexprobe.report.compare import compare_files
    from lexprobe.core.result_schema import load

    path = write_small(tmp_path / "small.json")
    common = ["coda21", "eval", "--data", str(path), "--model", str(tiny_gpt2), "--device", "cpu"]
    assert main(common + ["--method", "ask", "--out", str(tmp_path / "ask.json")]) == 0
    assert main(common + ["--out", str(tmp_path / "lik.json")]) == 0
    results = [load(tmp_path / "ask.json"), load(tmp_path / "lik.json")]
    titles = [t.title for t in tables(get("coda21"), results)]
    assert any(t.endswith("asked yes/no (--method ask)") for t in titles) and len(titles) == 2
    c = compare_files(tmp_path / "ask.json", tmp_path / "lik.json")
    assert any("method: ask vs likelihood" in w for w in c["warnings"])
    assert {r["metric"] for r in c["rows"]} == {"accuracy", "simple matching"}
