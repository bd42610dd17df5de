"""`lexprobe export lm-eval`: lm-eval 0.4.13 runs the tasks, and its numbers are lexprobe's on the same items.

W2D (lm-eval's multiple-input form) and CoDA21 (the task's own k x k requests and alignment) give lexprobe's
P@1 / RS and alignment / simple-matching accuracy item by item. D2W is lm-eval's usual form and scores the
whole word where lexprobe's causal D2W scores its first token (docs/interop.md): its numbers equal lexprobe's
engine run on whole words, and its log-likelihoods equal lexprobe's first-token scores where the word is one
token. The copied tasks module (no lexprobe import) decides ties and alignments as lexprobe does.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

from lexprobe.cli import main
from tests.export.helpers import SMALL_GROUPS, d2w_word_logprobs, lm_eval_scores, run_lm_eval, write_small_coda, write_small_wdlmpro
from tests.optional import needs_package

POS = {"n": "noun", "v": "verb"}


@pytest.fixture(scope="module")

def exported(tmp_path_factory):
    """The small WDLMPro and CoDA21 items, their source files and their lm-eval task folders."""
    root = tmp_path_factory.mktemp("lm-eval")
    wdlmpro, coda = write_small_wdlmpro(root / "small.jsonl"), write_small_coda(root / "small.json")
    assert main(["export", "lm-eval", "wdlmpro", "--data", str(wdlmpro), "--out", str(root / "wdlmpro")]) == 0
    assert main(["export", "lm-eval", "coda21", "--data", str(coda), "--out", str(root / "coda21")]) == 0
    return {"wdlmpro": (wdlmpro, root / "wdlmpro"), "coda21": (coda, root / "coda21")}


def _lexprobe(benchmark: str, scorer, data: Path, **options) -> dict:
    """lexprobe's result on ``data``; WDLMPro's items without the breakdowns' attributes (their WordNet depth
    would load WordNet for figures lm-eval has no counterpart of)."""
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems
    from lexprobe.benchmarks.wdlmpro.dataset import select_groups

    if benchmark == "wdlmpro":
        config = WDLMProConfig(data=str(data), **options)
        items = WDLMProItems(select_groups(config.data, config.pos, config.limit, config.seed))
    else:
        config, items = CodaConfig(data=str(data), **options), None
    result = evaluate(benchmark, scorer, config, None, items=items, progress=False)
    assert result is not None
    return result


def test_lm_eval_finds_every_task_and_group(exported):
    needs_package("lm_eval")
    from lm_eval.tasks import TaskManager

    # as `lm_eval --include_path` indexes them: beside lm-eval's own tasks, no name taken twice
    names = set(TaskManager(include_path=str(exported["wdlmpro"][1])).all_tasks)
    assert {"lexprobe_wdlmpro_w2d", "lexprobe_wdlmpro_d2w", "lexprobe_wdlmpro_w2d_noun", "lexprobe_wdlmpro_d2w_verb"} <= names
    assert "winogrande" in names
    names = set(TaskManager(include_path=str(exported["coda21"][1]), include_defaults=False).all_tasks)
    assert {"lexprobe_coda21_small", "lexprobe_coda21_small_noun", "lexprobe_coda21_small_verb"} <= names
    readme = (exported["coda21"][1] / "README.md").read_text()
    assert "Do not redistribute" in readme and "TEST CANARY" in readme


@pytest.mark.parametrize("model", ["tiny_gpt2", "tiny_llama"])
def test_w2d_and_d2w_equal_lexprobe(model, exported, request):
    needs_package("lm_eval")
    from lexprobe.metrics.ranking import gold_rank
    from lexprobe.models import load_scorer

    source, folder = exported["wdlmpro"]
    scorer = load_scorer(str(request.getfixturevalue(model)), kind="causal")
    ours = _lexprobe("wdlmpro", scorer, source)
    theirs, samples, _ = run_lm_eval(folder, ["lexprobe_wdlmpro_w2d", "lexprobe_wdlmpro_d2w"], scorer)
    # W2D: item by item, the gold definition's rank, and so P@1 and RS, per POS and over both
    w2d = [r for r in ours["instances"] if r["task"] == "w2d"]
    assert len(w2d) == len(SMALL_GROUPS)
    for record in w2d:
        sample = samples[f"lexprobe_wdlmpro_w2d_{POS[record['pos']]}"][record["target"]]
        assert gold_rank(lm_eval_scores(sample)) == record["gold_rank"]
        assert sample["acc"] == (record["gold_rank"] == 1) and sample["rank_score"] == pytest.approx(record["rank_score"])
    for slice_, task in (("n", "lexprobe_wdlmpro_w2d_noun"), ("v", "lexprobe_wdlmpro_w2d_verb"), ("all", "lexprobe_wdlmpro_w2d")):
        assert theirs[task]["acc,none"] == pytest.approx(ours["metrics"]["w2d"][slice_]["p_at_1"], abs=1e-12)
        assert theirs[task]["rank_score,none"] == pytest.approx(ours["metrics"]["w2d"][slice_]["rank_score"], abs=1e-12)
    # D2W: lm-eval scores whole words; lexprobe's engine on whole words gives the same scores and ranks ...
    groups = SMALL_GROUPS
    logps = d2w_word_logprobs(scorer, groups)
    whole = {("d2w", i): np.array([logps[(g.pos, c.word, g.definition)].sum() for c in g.candidates])
             for i, g in enumerate(groups)}
    first = {key: float(lp[0]) for key, lp in logps.items()}  # lexprobe's D2W: the first token
    accs = []
    for i, g in enumerate(groups):
        sample = samples[f"lexprobe_wdlmpro_d2w_{POS[g.pos]}"][g.target]
        lls = lm_eval_scores(sample)
        np.testing.assert_allclose(lls, whole[("d2w", i)], atol=1e-4, rtol=0)
        assert sample["acc"] == (gold_rank(whole[("d2w", i)]) == 1)
        accs.append(sample["acc"])
        # ... and equal lexprobe's first-token score exactly where the word is one token
        for c, ll in zip(g.candidates, lls):
            ids = scorer.tokenize_pair(sample["doc"]["context"], " " + c.word)[1]
            if len(ids) == 1:
                assert ll == pytest.approx(first[(g.pos, c.word, g.definition)], abs=1e-4)
            else:
                assert ll < first[(g.pos, c.word, g.definition)]
    assert theirs["lexprobe_wdlmpro_d2w"]["acc,none"] == pytest.approx(np.mean(accs), abs=1e-12)


@pytest.mark.parametrize("model", ["tiny_gpt2", "tiny_llama"])
def test_coda21_alignment_equals_lexprobe(model, exported, request):
    needs_package("lm_eval")
    from lexprobe.models import load_scorer

    source, folder = exported["coda21"]
    scorer = load_scorer(str(request.getfixturevalue(model)), kind="causal")
    ours = _lexprobe("coda21", scorer, source)
    assert ours["counts"]["truncated_contexts"] == 0 and ours["counts"]["skipped_groups"] == 1  # n/2: malformed
    theirs, samples, _ = run_lm_eval(folder, ["lexprobe_coda21_small"], scorer)
    assert sum(len(s) for s in samples.values()) == len(ours["instances"]) == 3
    for record in ours["instances"]:
        sample = samples[f"lexprobe_coda21_small_{POS[record['pos']]}"][record["id"]]
        np.testing.assert_allclose(np.reshape(lm_eval_scores(sample), (record["k"], record["k"])), record["scores"],
                                   atol=1e-4, rtol=0)
        assert (sample["acc"], sample["simple_acc"]) == (record["accuracy"], record["simple_accuracy"])
    metrics = ours["metrics"]["alignment"]
    for slice_, task in (("n", "lexprobe_coda21_small_noun"), ("v", "lexprobe_coda21_small_verb"),
                         ("all", "lexprobe_coda21_small")):
        assert theirs[task]["acc,none"] == pytest.approx(metrics[slice_]["accuracy"], abs=1e-12)
        assert theirs[task]["simple_acc,none"] == pytest.approx(metrics[slice_]["simple_accuracy"], abs=1e-12)


def _tasks_module(folder: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("lexprobe_tasks_under_test", folder / "lexprobe_tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tasks_module_stands_alone(exported):
    folder = exported["coda21"][1]
    copied = (folder / "lexprobe_tasks.py").read_text()
    assert copied == (Path(__file__).parents[2] / "lexprobe" / "export" / "lm_eval_tasks.py").read_text()
    imported = {n.module or "" for n in ast.walk(ast.parse(copied)) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(ast.parse(copied)) if isinstance(n, ast.Import) for a in n.names}
    assert not any(name.startswith("lexprobe") for name in imported)


def test_ties_count_against_the_gold_answer(exported):
    """By hand: a tie with the gold choice is a miss (rank 2 of 3: RS 0.5), as in lexprobe; lm-eval's own argmax
    would take the first best choice, the gold one."""
    tasks = _tasks_module(exported["coda21"][1])
    assert tasks.rank_results({"gold": 0}, [(-1.0, False), (-1.0, False), (-3.0, False)]) == {"acc": 0.0, "rank_score": 0.5}
    assert tasks.rank_results({"gold": 0}, [(-0.5, False), (-1.0, False), (-3.0, False)]) == {"acc": 1.0, "rank_score": 1.0}
    assert tasks.rank_results({"gold": 1}, [(float("nan"), False), (-9.0, False)]) == {"acc": 1.0, "rank_score": 1.0}


def test_the_alignment_is_lexprobes(exported):
    """Random and tied score matrices: the standalone alignment equals lexprobe's (optimal and simple matching,
    the same seeded order per group id); a constant matrix is not solved in the gold alignment's favour."""
    from lexprobe.metrics import alignment as al

    tasks = _tasks_module(exported["coda21"][1])
    rng = np.random.default_rng(0)
    cases = [rng.normal(size=(k, k)) for k in range(2, 11)] + [np.zeros((6, 6)), rng.integers(0, 2, (7, 7)).astype(float)]
    for i, scores in enumerate(cases):
        gid = f"n/{i}"
        order = al.tie_break_order(gid, len(scores))
        assignment, context_of = tasks.align(scores, gid)
        assert assignment.tolist() == al.align(scores, "optimal", order).tolist()
        assert context_of.tolist() == al.align(scores, "none", order).tolist()
        flat = [(float(x), False) for x in scores.ravel()]
        got = tasks.alignment_results({"id": gid, "continuations": ["d"] * len(scores)}, flat)
        assert got == {"acc": al.accuracy(assignment), "simple_acc": al.accuracy(context_of)}
    assert tasks.alignment_results({"id": "n/5", "continuations": ["d"] * 6}, [(0.0, False)] * 36)["acc"] < 1


def test_the_lm_eval_export_refuses_data_for_two_benchmarks(tmp_path, capsys):
    assert main(["export", "lm-eval", "--data", str(tmp_path / "x.json"), "--out", str(tmp_path / "o")]) == 2
    assert "--data names one benchmark's data" in capsys.readouterr().err


@pytest.mark.slow
def test_smollm2_gives_lexprobes_numbers(imported_data, tmp_path, monkeypatch):
    """SmolLM2-135M-Instruct (the de-quantised GGUF): lm-eval's W2D accuracy and CoDA21 alignment accuracy equal
    lexprobe's on the same items (CoDA21 clean-hard, its first group per POS; WDLMPro's small groups).
    scripts/lm_eval_compare.py measures larger samples."""
    needs_package("lm_eval")
    from lexprobe.model_names import packaged_file
    from lexprobe.models import load_scorer

    try:
        packaged_file("smollm2-135m-instruct")
    except Exception as err:  # noqa: BLE001 - the package is part of setup.sh; its absence is said
        pytest.skip(str(err))
    monkeypatch.setenv("LEXPROBE_CACHE", str(Path.home() / ".cache" / "lexprobe"))  # the de-quantised copy, once
    scorer = load_scorer("smollm2-135m-instruct", device="cpu")
    source = write_small_wdlmpro(tmp_path / "small.jsonl")
    assert main(["export", "lm-eval", "wdlmpro", "--data", str(source), "--out", str(tmp_path / "w")]) == 0
    assert main(["export", "lm-eval", "coda21", "--data", "clean-hard", "--limit", "1", "--out", str(tmp_path / "c")]) == 0
    ours = _lexprobe("wdlmpro", scorer, source, task="w2d")
    theirs, _, _ = run_lm_eval(tmp_path / "w", ["lexprobe_wdlmpro_w2d"], scorer)
    assert theirs["lexprobe_wdlmpro_w2d"]["acc,none"] == pytest.approx(ours["metrics"]["w2d"]["all"]["p_at_1"], abs=1e-12)
    assert theirs["lexprobe_wdlmpro_w2d"]["rank_score,none"] == pytest.approx(ours["metrics"]["w2d"]["all"]["rank_score"])
    ours = _lexprobe("coda21", scorer, Path("clean-hard"), limit=1)
    theirs, samples, _ = run_lm_eval(tmp_path / "c", ["lexprobe_coda21_clean_hard"], scorer)
    assert theirs["lexprobe_coda21_clean_hard"]["acc,none"] == pytest.approx(ours["metrics"]["alignment"]["all"]["accuracy"])
    assert json.dumps(sorted(s for t in samples.values() for s in t)) == json.dumps(sorted(r["id"] for r in ours["instances"]))


def test_all_benchmarks_leave_out_one_without_data(tmp_path):
    """`lexprobe export lm-eval` without a benchmark named: a benchmark whose data is absent (CoDA21 in an empty
    data directory) is left out in one line and the others are written; named, it is an error."""
    from lexprobe.errors import DataError
    from lexprobe.core.exports import ExportOptions
    from lexprobe.export.lm_eval import export_lm_eval
    from lexprobe.export.registry import get

    source = write_small_wdlmpro(tmp_path / "small.jsonl")
    chosen = [(get("wdlmpro"), ExportOptions(data=str(source))), (get("coda21"), ExportOptions())]
    said: list[str] = []
    tasks = export_lm_eval(chosen, tmp_path / "out", "test", skip_missing=True, say=said.append)
    assert {t.group for t in tasks} == {"lexprobe_wdlmpro_w2d", "lexprobe_wdlmpro_d2w"}
    assert len(said) == 1 and said[0].startswith("lexprobe: coda21 left out: no CoDA21 file in the data directory")
    with pytest.raises(DataError, match="no CoDA21 file"):
        export_lm_eval(chosen, tmp_path / "out2", "test")
    assert not (tmp_path / "out2").exists()
