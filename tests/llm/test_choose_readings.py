"""Ask-to-choose results: strict and lenient readings of the generated answers, position bias,
cyclic debiasing by hand, resume units of one item group and Ctrl-C."""

from lexprobe.core.contract import format_result, unit_metrics, unit_values
import json

import numpy as np
import pytest

from lexprobe.benchmarks.coda21.dataset import load_coda
from lexprobe.core.registry import get
from lexprobe.cli import main
from lexprobe.models import load_scorer
from lexprobe.benchmarks.coda21 import choose as choose_coda
from lexprobe.prompting import choose
from lexprobe.prompting.debias import debiased, rotations
from tests.benchmarks.coda21.helpers import write_small
from tests.benchmarks.wdlmpro.test_scoring import GROUPS
from tests.llm.choose_runs import ask, interrupt


@pytest.fixture(scope="module")
def llama(tiny_llama):
    return load_scorer(str(tiny_llama), batch_size=4)


# ---------------------------------------------------------------- cyclic debiasing by hand

#: three options shown in the three cyclic orders of [1, 2, 0]; label probabilities by position
ORDERS = [[1, 2, 0], [2, 0, 1], [0, 1, 2]]
PROBS = [[0.5, 0.1, 0.4], [0.6, 0.3, 0.1], [0.5, 0.2, 0.3]]  # the first position is always preferred


def test_cyclic_debiasing_by_hand_on_three_options():
    assert rotations([1, 2, 0]) == ORDERS
    logps = [np.log(p) - 2.0 for p in PROBS]  # label log-probs are not normalised over the labels
    got = debiased(logps, ORDERS, [0, 1, 2])
    # option 0: .4 (3rd in order 1) + .3 (2nd in order 2) + .5 (1st in order 3), over 3 orders
    np.testing.assert_allclose(got, [(0.4 + 0.3 + 0.5) / 3, (0.5 + 0.1 + 0.2) / 3, (0.1 + 0.6 + 0.3) / 3])
    assert int(np.argmax(got)) == 0  # the raw reading picks the first position, right only in order 3
    rows = debiased([np.stack([lp, lp[::-1]]) for lp in logps], ORDERS, [0, 1, 2])  # a matching: rows kept
    np.testing.assert_allclose(rows[0], got)
    # row 2 reads the probabilities reversed: [.4 .1 .5], [.1 .3 .6], [.3 .2 .5] by position
    np.testing.assert_allclose(rows[1], [(0.5 + 0.3 + 0.3) / 3, (0.4 + 0.6 + 0.2) / 3, (0.1 + 0.1 + 0.5) / 3])


def _option_order_of(prompt, group):
    at = {i: prompt.index(c.definition) for i, c in enumerate(group.candidates)}
    return sorted(at, key=at.get)


def test_wdlmpro_cyclic_reading_bias_and_both_generation_readings(llama, monkeypatch, tmp_path):
    """W2D on the 3-candidate group, seed 3 (base order [1, 2, 0]), a scripted model: label
    probabilities by position as in PROBS, and one generated answer that echoes option text."""
    group = GROUPS[2]

    def continuations(requests, progress=False):  # the label's log-probability: its position in the prompt's order
        return [np.array([np.log(PROBS[ORDERS.index(_option_order_of(r.context, group))][int(r.continuation) - 1])
                          - 2.0]) for r in requests]

    asked = []

    def generations(requests, progress=False):
        asked.extend(requests)
        return [" 1. Singing in a soft low tone."]  # label 1 = option 1 in the base order: wrong, but read

    monkeypatch.setattr(llama, "continuations", continuations)
    monkeypatch.setattr(llama, "generations", generations)
    result = ask("wdlmpro", llama, [group], tmp_path / "r.json", seed=3, debias="cyclic")
    recs = result["instances"]
    assert [r["order"] for r in recs] == ORDERS and [r["rotation"] for r in recs] == [0, 1, 2]
    assert len(asked) == 1 and "generation" in recs[0] and "generation" not in recs[1]  # generation: first order only
    assert [r["likelihood"]["choice"] for r in recs] == [1, 2, 0]  # raw: always the first position
    cyc = recs[0]["likelihood_cyclic"]
    np.testing.assert_allclose(cyc["probabilities"], [0.4, 0.8 / 3, 1 / 3], atol=1e-6)
    assert cyc["choice"] == 0 and cyc["correct"] and cyc["gold_rank"] == 1
    assert recs[0]["generation"]["failure"] == "unparseable" and recs[0]["generation_lenient"]["choice"] == 1
    m = result["metrics"]["w2d"]["all"]
    assert result["readings"] == ["likelihood", "likelihood_cyclic", "generation", "generation_lenient"]
    assert m["likelihood.p_at_1"] == pytest.approx(1 / 3) and m["likelihood_cyclic.p_at_1"] == 1.0
    assert m["generation.valid"] == 0.0 and m["generation_lenient.valid"] == 1.0
    assert m["generation_lenient.p_at_1"] == 0.0 and m["generation_lenient.failures.names_other_option"] == 0
    bias = result["breakdowns"]["w2d"]["position_bias"]["all"]
    assert bias["likelihood"] == {"n": 3, "chosen": {"1": 3}, "gold": {"1": 1, "2": 1, "3": 1}, "most_chosen": "1",
                                  "most_chosen_share": 1.0, "gold_share_there": pytest.approx(1 / 3),
                                  "tv_distance": pytest.approx(2 / 3)}
    assert bias["generation"]["chosen"] == {"none": 1} and "most_chosen" not in bias["generation"]
    assert bias["generation_lenient"]["chosen"] == {"1": 1} and bias["generation_lenient"]["gold"] == {"3": 1}
    assert result["config"]["choose"]["debias"] == "cyclic"
    assert "debiased" in format_result(get("wdlmpro"), result)  # its column (a header may wrap in 100 columns)
    units = unit_values(get("wdlmpro"), result)  # one per question, its orders averaged (the choose method's)
    assert len(units) == len({r["item"] for r in result["instances"]})
    assert unit_metrics(get("wdlmpro"), result)[:2] == (("likelihood.p_at_1", "P@1 (choose, label likelihood)"),
                                                       ("likelihood.rank_score", "RS (choose, label likelihood)"))


def test_debias_is_in_the_resume_key(llama, tmp_path, capsys):
    out = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt), pytest.MonkeyPatch.context() as mp:  # the log kept: no write
        mp.setattr(get("wdlmpro").methods["choose"], "sections", interrupt)
        ask("wdlmpro", llama, GROUPS, out, reading="likelihood", max_candidates=3)
    assert len((tmp_path / "r.json.partial.jsonl").read_text().splitlines()) == 1 + len(GROUPS)
    cyc = ask("wdlmpro", llama, GROUPS, out, reading="likelihood", max_candidates=3, debias="cyclic")
    assert "set aside" in capsys.readouterr().err  # not mixed with the run without debiasing
    assert sum("rotation" in r for r in cyc["instances"]) == sum(min(3, len(g.candidates)) for g in GROUPS)


def test_coda_cyclic_reading_equals_the_rotations_records(llama, tmp_path):
    data = load_coda(write_small(tmp_path / "coda.json"))
    result = ask("coda21", llama, data, pos="n", debias="cyclic", max_new_tokens=3)
    for gid in {r["id"] for r in result["instances"]}:
        recs = [r for r in result["instances"] if r["id"] == gid]
        first = recs[0]
        k = len(first["shown"])
        assert [r["rotation"] for r in recs] == list(range(k)) and all("generation" not in r for r in recs[1:])
        assert [r["definition_order"] for r in recs] == rotations(first["definition_order"])
        # each record's matrix is [shown context, shown definition]: as presented rows x letters again
        at = {c: i for i, c in enumerate(first["shown"])}
        presented = [np.array(r["likelihood"]["label_logprobs"])[np.ix_([at[c] for c in r["context_order"]],
                                                                        [at[d] for d in r["definition_order"]])]
                     for r in recs]
        expected = debiased(presented, [r["definition_order"] for r in recs], first["shown"])[
            np.argsort([at[c] for c in first["context_order"]])]
        np.testing.assert_allclose(first["likelihood_cyclic"]["probabilities"], expected, atol=1e-5)
        gold = choose_coda.Choose().gold_positions(first)
        assert [first["definition_order"][g] for g in gold] == first["context_order"]  # each row's own definition
    coda = get("coda21")
    units = unit_values(coda, result)  # one per group, each reading's accuracy averaged over its orders
    assert [u.key for u in units] == list(dict.fromkeys(r["item"] for r in result["instances"]))
    assert units[0].values["likelihood_cyclic.accuracy"] == result["instances"][0]["likelihood_cyclic"]["accuracy"]
    assert unit_metrics(coda, result)[0] == ("likelihood.accuracy", "accuracy (choose, label likelihood)")
    assert "likelihood_cyclic" in result["readings"]
    assert result["breakdowns"]["alignment"]["position_bias"]["all"]["likelihood"]["n"] == sum(
        len(r["shown"]) for r in result["instances"])


# ---------------------------------------------------------------- units, progress, Ctrl-C


def test_units_run_a_few_prompts_per_batch_and_each_is_logged(llama, tmp_path, monkeypatch):
    """A batch holds as many units as ``batch_prompts`` prompts (a few on the CPU; at least one unit),
    each unit logged once its batch is done, so Ctrl-C loses at most one batch."""
    method = get("wdlmpro").methods["choose"]
    real, calls = method.score, []
    monkeypatch.setattr(method, "score", lambda job, engine, items, config: calls.append(len(items))
                        or real(job, engine, items, config))
    monkeypatch.setattr(choose, "batch_prompts", lambda scorer: 5)
    ask("wdlmpro", llama, GROUPS, permutations=2, reading="likelihood")  # 2 prompts per target: 2 targets a batch
    assert calls == [4, 2]
    calls.clear()
    monkeypatch.setattr(choose, "batch_prompts", lambda scorer: 1)
    with pytest.raises(KeyboardInterrupt), pytest.MonkeyPatch.context() as mp:
        mp.setattr(method, "sections", interrupt)
        ask("wdlmpro", llama, GROUPS, tmp_path / "x.json", permutations=2, reading="likelihood")
    assert calls == [2, 2, 2]  # a unit bigger than a batch runs alone
    assert len((tmp_path / "x.json.partial.jsonl").read_text().splitlines()) == 1 + len(GROUPS)


@pytest.mark.parametrize("bench", ["wdlmpro", "coda"])
def test_ctrl_c_keeps_the_finished_item_groups(bench, tiny_llama, tmp_path, capsys, monkeypatch):
    """As tests/robustness: Ctrl-C in the middle of the third batch; the rerun scores only what was not logged
    and gives the uninterrupted result."""
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl

    if bench == "wdlmpro":
        data = write_jsonl(GROUPS, tmp_path / "groups.jsonl")
        argv = ["wdlmpro", "eval", "--data", str(data), "--task", "w2d", "--max-candidates", "3"]
        n_units = len(GROUPS)
    else:
        small = json.loads(write_small(tmp_path / "c.json").read_text())
        # six noun groups (ids are positions in the file) of their own senses (a repeated group is scored once)
        small["n"] = [{**g, "candidates": [{**c, "synset_name": f"{c['synset_name']}{i or ''}"} for c in g["candidates"]]}
                      for i in range(3) for g in small["n"]]
        data = write_small(tmp_path / "c.json", small)
        argv = ["coda", "eval", "--data", str(data), "--pos", "n", "--max-new-tokens", "3"]
        n_units = 6
    argv += ["--model", str(tiny_llama), "--method", "choose", "--batch-size", "1"]
    assert main(argv + ["--out", str(tmp_path / "full.json")]) == 0
    method = get(bench).methods["choose"]
    real, calls = method.score, []

    def interrupted(job, engine, items, config):
        calls.append(len(items))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(job, engine, items, config)

    monkeypatch.setattr(method, "score", interrupted)
    monkeypatch.setattr(choose, "batch_prompts", lambda scorer: 1)  # one group per batch
    out = tmp_path / "r.json"
    assert main(argv + ["--out", str(out)]) == 130
    log = tmp_path / "r.json.partial.jsonl"
    assert len(log.read_text().splitlines()) == 1 + 2  # header + the two finished groups
    calls.clear()
    monkeypatch.setattr(method, "score", lambda *a: calls.append(1) or real(*a))
    assert main(argv + ["--out", str(out)]) == 0
    assert len(calls) == n_units - 2 and not log.exists()
    full, resumed = (json.loads((tmp_path / n).read_text()) for n in ("full.json", "r.json"))
    assert full["metrics"] == resumed["metrics"] and full["instances"] == resumed["instances"]
