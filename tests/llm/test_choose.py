"""--method choose on tiny Llama / Qwen2 models: label likelihood against a plain per-option
reference, generation against a plain greedy loop, scoring and summaries by hand, seeds, CLI."""

from lexprobe.core.contract import failure_rows
import json

import numpy as np
import pytest
import torch

from lexprobe.benchmarks.coda21.dataset import load_coda
from lexprobe.cli import main
from lexprobe.metrics import alignment as al
from lexprobe.models import load_scorer
from lexprobe.benchmarks.coda21 import choose as choose_coda
from lexprobe.benchmarks.wdlmpro import choose as choose_wdlmpro
from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import Continuation, Generate
from lexprobe.prompting.choice import ANSWER_TOKENS
from lexprobe.benchmarks.coda21.config import CodaConfig
from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
from lexprobe.prompting.choose_cli import ChooseOptions
from lexprobe.prompting.options import option_order, sample_candidates
from lexprobe.prompting.templates import default_template
from tests.benchmarks.coda21.helpers import write_small
from tests.benchmarks.wdlmpro.test_scoring import GROUPS
from tests.llm.choose_runs import ask, greedy_reference, interrupt, prompt_ids, scripted


@pytest.fixture(scope="module")
def llama(tiny_llama):
    return load_scorer(str(tiny_llama), batch_size=4)


@pytest.fixture(scope="module")
def qwen2(tiny_qwen2):
    return load_scorer(str(tiny_qwen2), batch_size=4)


TEMPLATE = default_template()


def _wdlmpro(task: str = "both", seed: int = 0, **options) -> WDLMProConfig:
    """A WDLMPro choose config: ``task``, ``seed`` and ``ChooseOptions`` fields."""
    return WDLMProConfig(method="choose", task=task, seed=seed, choose=ChooseOptions(**options))


def _coda(seed: int = 0, **options) -> CodaConfig:
    return CodaConfig(method="choose", seed=seed, choose=ChooseOptions(**options))


# ---------------------------------------------------------------- seeded options


def test_candidate_sample_keeps_gold_and_is_seeded():
    picks = [sample_candidates(25, 10, seed=0, item=f"g{i}") for i in range(20)]
    assert all(len(p) == 10 and 0 in p and p == sorted(set(p)) for p in picks)
    assert picks == [sample_candidates(25, 10, seed=0, item=f"g{i}") for i in range(20)]
    assert picks != [sample_candidates(25, 10, seed=1, item=f"g{i}") for i in range(20)]
    assert sample_candidates(6, 10, seed=0, item="small") == list(range(6))
    assert len(set(sample_candidates(12, 5, seed=0, item="x", keep=None))) == 5


def test_option_order_is_reproducible_and_varies_with_permutation():
    shown = list(range(8))
    orders = [option_order(shown, 0, "w2d:dog.n.01", p) for p in range(6)]
    assert orders == [option_order(shown, 0, "w2d:dog.n.01", p) for p in range(6)]
    assert all(sorted(o) == shown for o in orders)
    assert len({tuple(o) for o in orders}) == 6
    assert option_order(shown, 1, "w2d:dog.n.01", 0) != orders[0]


def test_items_are_reproducible_by_seed(llama):
    cfg = _wdlmpro("both", seed=7, max_candidates=3, permutations=3)
    a = choose_wdlmpro.build_items(GROUPS, cfg, TEMPLATE)
    assert a == choose_wdlmpro.build_items(GROUPS, cfg, TEMPLATE)
    for it in a:
        assert len(it["order"]) == min(3, it["n_candidates"]) and it["order"][it["gold_position"]] == 0
    b = choose_wdlmpro.build_items(GROUPS, _wdlmpro("both", seed=8, max_candidates=3, permutations=3), TEMPLATE)
    assert [it["order"] for it in a] != [it["order"] for it in b]


# ---------------------------------------------------------------- the two readings vs plain references


@torch.inference_mode()
def _reference_label_logprob(scorer, prompt, label, after=""):
    """One full forward pass over the prompt (its text and the answer prefix, encoded by hand) + ``after`` +
    label, nothing shared or batched: the summed log-probability of the label's tokens."""
    n = len(prompt_ids(scorer.tokenizer, prompt, TEMPLATE.answer + after))
    ids = prompt_ids(scorer.tokenizer, prompt, TEMPLATE.answer + after + label)
    logp = torch.log_softmax(scorer.model(input_ids=torch.tensor([ids])).logits[0].float(), -1)
    return sum(logp[i - 1, ids[i]].item() for i in range(n, len(ids)))


def _label_logprobs(scorer, prompt, labels, rows=("",)) -> np.ndarray:
    """[row, label] summed log-probabilities of each label after the prompt (and the row), as ``choose.ask`` asks."""
    asked = [Continuation(prompt, lab, answer_prefix=TEMPLATE.answer, given=row) for row in rows for lab in labels]
    return np.array([float(np.sum(lp)) for lp in Engine(scorer)(asked)]).reshape(len(rows), len(labels))


@pytest.mark.parametrize("model, chat", [("llama", False), ("llama", True), ("qwen2", True)])
def test_label_likelihood_equals_per_option_reference(model, chat, request):
    scorer = request.getfixturevalue(model)
    cfg = _wdlmpro("w2d", chat=chat, max_candidates=4)
    items = choose_wdlmpro.build_items(GROUPS[:2], cfg, TEMPLATE)
    prompts = [it["prompt"] for it in items]
    assert all(isinstance(p, str) != chat for p in prompts)  # chat: messages, for the backend's chat template
    labels = [[f" {i + 1}" for i in range(len(it["order"]))] for it in items]
    scorer.stats.clear()
    asked = [Continuation(p, lab, answer_prefix=TEMPLATE.answer) for p, labs in zip(prompts, labels) for lab in labs]
    got = iter(Engine(scorer)(asked))
    assert scorer.stats["context_forwards"] == len(prompts)  # the labels of a prompt share its pass
    for prompt, labs in zip(prompts, labels):
        ref = [_reference_label_logprob(scorer, prompt, lab) for lab in labs]
        np.testing.assert_allclose([float(np.sum(next(got))) for _ in labs], ref, atol=1e-5)


@pytest.mark.parametrize("bench", ["coda", "w2d"])
def test_long_prompts_are_fed_once_for_all_their_answers(llama, bench, tmp_path, monkeypatch):
    """A prompt longer than the scorer's pack size (SmolLM2's CoDA21 prompt: ~520 tokens > 512) is fed
    once with all its k x k row-and-letter (or k label) continuations; scores equal one full forward
    pass per pair. The old packing fed it once per pair (49 passes, 25,480 tokens on a k = 7 group)."""
    tok = llama.tokenizer
    if bench == "coda":
        g = load_coda(write_small(tmp_path / "coda.json")).by_pos("n")[0]
        prompt = choose_coda.build_items([g], _coda(), TEMPLATE)[0]["prompt"]
        k = g.k
        rows, labels = [f" {c + 1}:" for c in range(k)], [" " + x for x in "ABC"[:k]]
    else:
        it = choose_wdlmpro.build_items(GROUPS[:1], _wdlmpro("w2d"), TEMPLATE)[0]
        prompt, k = it["prompt"], len(it["order"])
        rows, labels = [""], [f" {i + 1}" for i in range(k)]
    n_prompt = len(prompt_ids(tok, prompt, TEMPLATE.answer))
    monkeypatch.setattr(llama, "pack_tokens", n_prompt // 2)  # the prompt alone is longer than a pack
    llama.stats.clear()
    got = _label_logprobs(llama, prompt, labels, rows)
    fed = [len(prompt_ids(tok, prompt, TEMPLATE.answer + r + x)) - n_prompt - 1 for r in rows for x in labels]
    assert llama.stats["context_forwards"] == 1
    assert llama.stats["packed_tokens"] == n_prompt + sum(fed)  # the prompt once plus the short continuations
    per_pair = sum(n_prompt + f for f in fed)  # one pass per (row, letter): what the old packing fed
    assert per_pair > len(fed) * llama.stats["packed_tokens"] / 2
    for r, row in enumerate(rows):
        for j, lab in enumerate(labels):
            assert got[r, j] == pytest.approx(_reference_label_logprob(llama, prompt, lab, row), abs=1e-5)


@pytest.mark.parametrize("model, chat", [("llama", True), ("qwen2", False)])
def test_batched_generation_equals_plain_greedy_loop(model, chat, request):
    scorer = request.getfixturevalue(model)
    items = choose_wdlmpro.build_items(GROUPS, _wdlmpro("d2w", chat=chat), TEMPLATE)
    prompts = [it["prompt"] for it in items]
    got = Engine(scorer)([Generate(p, 5, answer_prefix=TEMPLATE.answer) for p in prompts])
    assert got == [greedy_reference(scorer, prompt_ids(scorer.tokenizer, p, TEMPLATE.answer), 5) for p in prompts]


# ---------------------------------------------------------------- scoring and summaries


def test_wdlmpro_scores_by_hand(llama, monkeypatch):
    cfg = _wdlmpro("w2d", seed=4, max_candidates=3, permutations=2)
    # seed 4: six distinct prompts (identical prompts are one request, answered once: seed 3 has two pairs)
    items = choose_wdlmpro.build_items(GROUPS, cfg, TEMPLATE)
    golds = [it["gold_position"] + 1 for it in items]
    # per item: right, wrong label, out of range, prose, right in brackets, echo of the option
    wrong = [1 if g != 1 else 2 for g in golds]
    texts = [str(golds[0]), str(wrong[1]), "7", "It is 2", f"({golds[4]})", f"{golds[5]}. signal"]
    monkeypatch.setattr(llama, "generations", scripted(texts))
    result = ask("wdlmpro", llama, GROUPS, seed=4, max_candidates=3, permutations=2)
    recs = result["instances"]
    assert [r["generation"]["correct"] for r in recs] == [True, False, False, False, True, False]
    assert [r["generation"]["failure"] for r in recs] == [None, None, "out_of_range", "unparseable", None,
                                                         "unparseable"]
    m = result["metrics"]["w2d"]["all"]
    assert m["generation.p_at_1"] == pytest.approx(2 / 6)
    assert m["generation.failures.unparseable"] == 2 and m["generation.failures.out_of_range"] == 1
    for r in recs:  # the likelihood reading: the best label, gold rank never favoured on ties
        lp = np.array(r["likelihood"]["label_logprobs"])
        g = r["gold_position"]
        assert r["likelihood"]["gold_rank"] == 1 + sum(lp[j] >= lp[g] for j in range(len(lp)) if j != g)
        assert r["likelihood"]["correct"] == (r["likelihood"]["gold_rank"] == 1)
    assert m["likelihood.p_at_1"] == pytest.approx(np.mean([r["likelihood"]["correct"] for r in recs]))
    assert result["baselines"]["random"]["w2d"]["all"]["p_at_1"] == pytest.approx(1 / 3)
    assert result["method"] == "choose" and result["config"]["choose"]["permutations"] == 2


def test_coda_matrix_rows_and_alignment(llama, tmp_path, monkeypatch):
    data = load_coda(write_small(tmp_path / "coda.json"))
    cfg = _coda(seed=0, permutations=1)
    monkeypatch.setattr(llama, "generations", scripted(["1: A, 2: B, 3: C", "1: B, 1: A", "1: A, 2: B, 3: C"]))
    result = ask("coda21", llama, data)
    (rec,) = result["instances"]
    g = data.by_pos("v")[0]
    prompt = choose_coda.build_items([g], cfg, TEMPLATE)[0]["prompt"]
    ctx, dfn = rec["context_order"], rec["definition_order"]
    for i in range(3):  # presented row i asks for context ctx[i]; letter j names definition dfn[j]
        for j, letter in enumerate("ABC"):
            ref = _reference_label_logprob(llama, prompt, f" {letter}", f" {i + 1}:")
            assert rec["likelihood"]["label_logprobs"][ctx[i]][dfn[j]] == pytest.approx(ref, abs=1e-5)
    matrix = np.array(rec["likelihood"]["label_logprobs"])
    expected = al.align(matrix, "optimal", al.tie_break_order(f"{g.id}:0", 3))
    assert rec["likelihood"]["assignment"] == expected.tolist()
    # generated "1: A, 2: B, 3: C" means presented context i -> presented definition i
    gen_assignment = [0] * 3
    for i in range(3):
        gen_assignment[ctx[i]] = dfn[i]
    assert rec["generation"]["assignment"] == gen_assignment
    assert rec["generation"]["accuracy"] == pytest.approx(al.accuracy(gen_assignment))


def test_invalid_matching_scores_zero(llama, tmp_path, monkeypatch):
    data = load_coda(write_small(tmp_path / "coda.json"))
    monkeypatch.setattr(llama, "generations", scripted(["1: A, 2: A, 3: B"]))
    result = ask("coda21", llama, data, reading="generation")
    m = result["metrics"]["alignment"]["all"]
    assert m["generation.accuracy"] == 0.0 and m["generation.failures.not_one_to_one"] == 1
    assert "likelihood" not in result["instances"][0] and result["readings"] == ["generation", "generation_lenient"]


@pytest.mark.parametrize("bench", ["wdlmpro", "coda21"])
def test_a_choose_run_is_logged_under_the_job_key_and_resumes(bench, llama, tmp_path, monkeypatch):
    """The choose units go through ``distributed.run_units`` under the one resume key ``evaluate`` builds
    (``Job.key``, issue #28): an interrupted run's log header holds that key, and the rerun asks only the
    units not logged and gives the uninterrupted result."""
    from lexprobe.core import evaluate as evaluate_module
    from lexprobe.core.contract import Job
    from lexprobe.core.options import key_options
    from lexprobe.core.registry import get

    if bench == "wdlmpro":
        items, n_units = GROUPS, len(GROUPS)
    else:
        small = json.loads(write_small(tmp_path / "c.json").read_text())
        # three verb groups (ids are positions in the file) of their own senses (a repeated group is scored once)
        small["v"] = [{**small["v"][0], "candidates": [{**c, "synset_name": f"{c['synset_name']}{i or ''}"}
                                                     for c in small["v"][0]["candidates"]]} for i in range(3)]
        items, n_units = load_coda(write_small(tmp_path / "c.json", small)), 3
    full = ask(bench, llama, items, reading="likelihood")
    keys, jobs = [], []

    class Spy(Job):
        def __init__(self, *args):
            super().__init__(*args)
            jobs.append(self)
            real = self.key
            self.key = lambda unit_items, **extra: keys.append(real(unit_items, **extra)) or keys[-1]

    method = get(bench).methods["choose"]
    real_score, calls = method.score, []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_score(*args)

    monkeypatch.setattr(evaluate_module, "Job", Spy)
    monkeypatch.setattr(method, "score", interrupted)
    out = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        ask(bench, llama, items, out, reading="likelihood", units_per_batch=1)
    log = (tmp_path / "r.json.partial.jsonl").read_text().splitlines()
    assert len(log) == 1 + 1  # the header and the one finished unit
    assert len(keys) == 1 and json.loads(log[0])["key"] == json.loads(json.dumps(keys[0]))
    assert keys[0]["protocol"] == "choose/paper" and keys[0]["options"]["config"] == key_options(jobs[0].config)
    assert keys[0]["options"]["template"]["name"] == "default"  # the template's text, not only its name
    calls.clear()
    monkeypatch.setattr(method, "score", lambda *a: calls.append(1) or real_score(*a))
    again = ask(bench, llama, items, out, reading="likelihood", units_per_batch=1)
    assert len(calls) == n_units - 1 and json.loads(json.dumps(keys[1])) == json.loads(log[0])["key"]
    assert again["instances"] == full["instances"] and again["metrics"] == full["metrics"]
    assert not (tmp_path / "r.json.partial.jsonl").exists()


def test_registering_a_benchmark_changes_no_choose_key_or_record(llama, tmp_path, monkeypatch):
    """A choose result records only its benchmark's template fields, and its resume key holds only them:
    a fourth benchmark (the toy, with its own template field) registered changes neither (issue #28)."""
    from lexprobe.core import registry
    from lexprobe.prompting.templates import benchmark_fields

    def run(name):
        out = tmp_path / f"{name}.json"
        with pytest.raises(KeyboardInterrupt), pytest.MonkeyPatch.context() as mp:  # the log kept: its key
            mp.setattr(registry.get("wdlmpro").methods["choose"], "sections", interrupt)
            ask("wdlmpro", llama, GROUPS[:1], out, reading="likelihood")
        key = json.loads((tmp_path / f"{name}.json.partial.jsonl").read_text().splitlines()[0])["key"]
        return key, ask("wdlmpro", llama, GROUPS[:1], out, reading="likelihood")["config"]

    key, config = run("three")
    assert set(key["options"]["template"]) >= {"w2d", "d2w"} and "coda" not in key["options"]["template"]
    assert config["choose"]["template_record"] == key["options"]["template"]
    from tests.toy_benchmark import TOY

    monkeypatch.setitem(registry.REGISTRY, "toy", TOY)
    assert "toy" in benchmark_fields()
    assert run("four") == (key, config)


# ---------------------------------------------------------------- CLI


def test_cli_choose_and_its_errors(tiny_llama, tiny_gpt2, tmp_path, capsys):
    data = write_small(tmp_path / "coda.json")
    out = tmp_path / "choose.json"
    args = ["coda", "eval", "--data", str(data), "--pos", "v", "--out", str(out)]
    assert main(args + ["--model", str(tiny_llama), "--method", "choose", "--chat", "--template", "dictionary",
                        "--max-new-tokens", "4"]) == 0
    result = json.loads(out.read_text())
    assert result["method"] == "choose" and result["config"]["choose"]["chat"] is True
    assert result["config"]["choose"]["template"] == "dictionary"
    assert result["config"]["choose"]["template_record"]["name"] == "dictionary"
    assert "Label acc. (%)" in capsys.readouterr().out
    assert main(args + ["--model", str(tiny_gpt2), "--method", "choose", "--chat"]) == 2
    assert "has no chat template" in capsys.readouterr().err
    assert main(args + ["--model", "random", "--chat"]) == 2
    assert "only apply with --method choose" in capsys.readouterr().err
    assert main(args + ["--model", "random", "--method", "choose"]) == 2
    assert "needs generation; model 'random'" in capsys.readouterr().err


def test_cli_wdlmpro_choose(tiny_qwen2, tmp_path, capsys):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl

    data = write_jsonl(GROUPS, tmp_path / "groups.jsonl")
    out = tmp_path / "w.json"
    args = ["wdlmpro", "eval", "--data", str(data), "--model", str(tiny_qwen2), "--out", str(out)]
    assert main(args + ["--method", "choose", "--template", "letters", "--reading", "likelihood",
                        "--max-candidates", "3", "--seed", "5"]) == 0
    result = json.loads(out.read_text())
    assert result["method"] == "choose" and result["config"]["seed"] == 5 and result["readings"] == ["likelihood"]
    assert result["config"]["choose"]["template_record"]["labels"] == "letters"
    assert set(result["metrics"]) == {"w2d", "d2w"} and "generation.p_at_1" not in result["metrics"]["w2d"]["all"]
    assert all(len(r["order"]) == 3 for r in result["instances"])
    assert "Label P@1 (%)" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # argparse: a usage line and exit 2
        main(args + ["--method", "choose", "--permutations", "0"])


def test_prompts_too_long_are_skipped_and_counted(llama, monkeypatch):
    cfg = _wdlmpro("w2d", reading="likelihood")
    items = choose_wdlmpro.build_items(GROUPS, cfg, TEMPLATE)
    sizes = {it["target"]: len(prompt_ids(llama.tokenizer, it["prompt"], TEMPLATE.answer)) for it in items}
    longest = max(sizes, key=sizes.get)
    limit = sorted(sizes.values())[-2] + ANSWER_TOKENS  # all but the longest prompt fit
    monkeypatch.setattr(llama, "max_length", limit)
    result = ask("wdlmpro", llama, GROUPS, reading="likelihood")
    reasons = {r["target"]: r.get("skipped") for r in result["instances"]}
    assert [t for t, why in reasons.items() if why] == [longest], (sizes, limit, reasons)
    assert f"exceeds the model's {limit} positions" in reasons[longest]
    assert result["metrics"]["w2d"]["all"]["n"] == 2 and result["counts"]["skipped_too_long"] == 1
    assert all("likelihood" in r for r in result["instances"] if r["target"] != longest)


def test_max_new_tokens_without_room_for_a_prompt_is_refused_before_any_request(llama, monkeypatch):
    """A prompt takes at least one position: --max-new-tokens N with N + 1 over the model's positions leaves
    none, one line before any request; one position fewer runs (every prompt then skipped as too long)."""
    from lexprobe.errors import ModelError

    monkeypatch.setattr(llama, "max_length", 64)
    monkeypatch.setattr(llama, "generations", lambda requests, progress=False: pytest.fail("asked"))
    with pytest.raises(ModelError) as err:
        ask("wdlmpro", llama, GROUPS, reading="generation", max_new_tokens=64)
    assert "--max-new-tokens 64 leaves no room for a prompt" in str(err.value) and "\n" not in str(err.value)
    result = ask("wdlmpro", llama, GROUPS, reading="generation", max_new_tokens=63)
    assert result["counts"]["skipped_too_long"] == len(result["instances"]) == len(GROUPS)


def test_a_coda21_choose_run_with_every_group_skipped_still_has_its_items_page(llama, tmp_path, monkeypatch):
    """A model too short for every prompt: the result has no readings, and the report's items
    page lists each group as not asked (it used to take the likelihood branch and raise KeyError)."""
    from lexprobe.core.registry import get
    from lexprobe.core.result_schema import load

    data = load_coda(write_small(tmp_path / "coda.json"))
    monkeypatch.setattr(llama, "max_length", 8)
    path = tmp_path / "all-skipped.json"
    result = ask("coda21", llama, data, path)
    assert result["instances"] and all("skipped" in r for r in result["instances"])
    rows = failure_rows(get("coda21"), load(path))
    assert len(rows) == len(result["instances"]) and all(row["score"] == "skipped" for row in rows)


def test_the_main_jobs_one_unit_batches_step_per_unit_with_the_same_answers(llama, monkeypatch):
    """`lexprobe run` asks choose one unit per batch (ChooseOptions.units_per_batch=1: the progress bar moves
    after every target on busy CPU cores); the records equal the default batches' (a few prompts together)."""
    from lexprobe.core.evaluate import evaluate
    from lexprobe.core.registry import get
    from lexprobe.benchmarks.wdlmpro.config import WDLMProItems

    calls = []
    method = get("wdlmpro").methods["choose"]
    real = method.score
    monkeypatch.setattr(method, "score", lambda *a: calls.append(len(a[2])) or real(*a))
    results = {}
    for per_batch in (None, 1):
        calls.clear()
        config = WDLMProConfig(method="choose", choose=ChooseOptions(chat=True, units_per_batch=per_batch))
        results[per_batch] = evaluate("wdlmpro", llama, config, items=WDLMProItems(GROUPS, None), progress=False)
        sizes = list(calls)
        if per_batch == 1:
            assert sizes == [2] * len(GROUPS)  # one target (W2D and D2W) per batch
        else:
            assert len(sizes) < len(GROUPS)
    assert results[1]["instances"] == results[None]["instances"]
    assert results[1]["metrics"] == results[None]["metrics"] and results[1]["config"] == results[None]["config"]


# ---------------------------------------------------------------- a fourth benchmark's choose method


def test_a_fourth_benchmark_asks_to_choose_from_its_own_module(tiny_llama, tmp_path, monkeypatch, capsys):
    """The toy's choose method is the generic ``ChooseMethod`` told what a toy question is (its module and one
    registry line): ``lexprobe toy eval --method choose`` asks it with the toy's own template field, resumes
    under the job's key, and the result reads in ``report`` and ``compare`` like any choose result."""
    from lexprobe.core import result_schema
    from lexprobe.core import registry
    from lexprobe.scorers.causal import CausalLMScorer
    from tests.toy_benchmark import ITEMS, TOY

    monkeypatch.setitem(registry.REGISTRY, "toy", TOY)
    monkeypatch.setattr(CausalLMScorer, "generations", scripted(["1"] * 100))  # always the first option
    argv = ["toy", "eval", "--method", "choose", "--model", str(tiny_llama), "--permutations", "2"]
    assert main(argv + ["--out", str(tmp_path / "a.json")]) == 0
    result = json.loads((tmp_path / "a.json").read_text())
    assert result_schema.problems(result) == [] and result["method"] == "choose"
    assert result["config"]["choose"]["template_record"]["toy"] == "Which definition fits {word}?\n{options}"
    assert "w2d" not in result["config"]["choose"]["template_record"]  # only the toy's own fields
    assert len(result["instances"]) == 2 * len(ITEMS) and not any("prompt" in r for r in result["instances"])
    m = result["metrics"]["pick"]["all"]
    firsts = [r["gold_position"] == 0 for r in result["instances"]]
    assert m["generation.accuracy"] == pytest.approx(np.mean(firsts)) and m["generation.valid"] == 1.0
    assert m["likelihood.accuracy"] == pytest.approx(np.mean([r["likelihood"]["correct"] for r in result["instances"]]))
    assert m["n"] == 2 * len(ITEMS) and result["baselines"]["random"]["pick"]["all"]["accuracy"] == pytest.approx(1 / 3)
    assert result["breakdowns"]["pick"]["position_bias"]["all"]["generation"]["chosen"] == {"1": 2 * len(ITEMS)}
    assert f"pick generation: {m['generation.accuracy']:.3f}" in capsys.readouterr().out
    assert main(argv + ["--template", "letters", "--out", str(tmp_path / "b.json")]) == 0
    letters = json.loads((tmp_path / "b.json").read_text())
    assert letters["config"]["choose"]["template_record"]["toy"].startswith("Question:")
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "rep")]) == 0
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
