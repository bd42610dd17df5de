"""The Benchmark contract (issue #16): every registered benchmark x method runs through one
``evaluate`` and gives a schema-2 result; the CLI gives the same result as the API; a fourth
benchmark needs only its module and one registry line."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from lexprobe.asking.requests import RandomScores
from lexprobe.tasks import pair

from lexprobe.core.contract import failure_rows, format_result, prefers, unit_values
from lexprobe import reporting
from lexprobe.core import result_schema
from lexprobe.core import registry
from lexprobe.core.evaluate import evaluate
from lexprobe.cli import main
from lexprobe.errors import DataError, ModelError
from lexprobe.models import load_scorer
from tests import distributed_cases as dc

#: fields that differ between two runs of the same thing (time, command line, paths of plots)
#: ``reproduce`` names its own --out beside the result (``cli.eval.json``, ``api.eval.json``): compared apart
VOLATILE = {"timing", "created", "command", "plot", "_path", "reproduce"}


def strip(obj):
    if isinstance(obj, dict):
        return {k: strip(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("contract")
    return {"coda": str(dc.coda_groups_file(folder)), "wsd": str(dc.wsd_file(folder))}


def _items_and_config(name: str, method: str, inputs):
    """A few items of benchmark ``name`` built offline, and its config for ``method``: a benchmark of a task type
    takes its type's test items (a pair benchmark: tests/samesense's pairs); the four paper benchmarks, each of its
    own kind, their synthetic inputs (tests/distributed_cases.py)."""
    bench = registry.get(name)
    if issubclass(bench.Config, pair.PairOptions):
        from tests.samesense import SAMESENSE

        return SAMESENSE.items.load(SAMESENSE.Config()), bench.Config(method=method)
    if name == "wdlmpro":
        from lexprobe.benchmarks.wdlmpro.benchmark import WDLMProConfig, WDLMProItems

        return WDLMProItems(dc.wdlmpro_groups()), WDLMProConfig(method=method)
    if name == "coda21":
        config = bench.Config(data=inputs["coda"], method=method)
        return bench.items.load(config), config
    if name == "wsd":
        config = bench.Config(data=inputs["wsd"], method=method)
        return bench.items.load(config), config
    return dc.sense_instances(), bench.Config(method=method, corpus="synthetic", k=10)


def _model_for(name: str, method: str, tiny_bert, tiny_llama) -> str:
    """The tiny masked LM where it can serve the method (by the method's own request types), else the causal one."""
    from lexprobe.asking.requests import Continuation, Generate, RandomScores

    asks = [a for a in registry.get(name).methods[method].requests if a != (RandomScores,)]  # the random model's
    if all(any(kind in (Continuation, Generate) for kind in alternative) for alternative in asks):
        return str(tiny_llama)
    return str(tiny_bert)


@pytest.mark.parametrize("name,method", [(b, m) for b in registry.names() for m in registry.get(b).methods])
def test_every_benchmark_and_method_gives_a_valid_result(name, method, inputs, tiny_bert, tiny_llama, tmp_path):
    bench = registry.get(name)
    items, config = _items_and_config(name, method, inputs)
    models = ["random", _model_for(name, method, tiny_bert, tiny_llama)]
    for model in models:
        scorer = load_scorer(model, device="cpu", prefer=prefers(bench, method))
        if method in ("choose", "ask") and model == "random" and (RandomScores,) not in bench.methods[method].requests:
            with pytest.raises(ModelError, match="needs generation" if method == "choose" else "needs log-probabilities"):
                evaluate(bench, scorer, config, items=items, progress=False)
            continue
        out = tmp_path / f"{Path(model).name}.json"
        result = evaluate(bench, scorer, config, out, items=items, progress=False)
        assert result_schema.problems(result) == [], (name, method, model)
        assert result["benchmark"] == name and result["method"] == method and result["recipe"] == "paper"
        assert result["run"]["method"] == method and result["run"]["items_digest"]
        loaded = result_schema.load(out)
        assert loaded["schema_version"] == 2 and loaded["metrics"] == json.loads(json.dumps(result["metrics"]))
        assert unit_values(bench, loaded)  # per-unit values for intervals and compare


@pytest.mark.parametrize("name", ["wdlmpro", "coda21"])
def test_a_choose_result_with_both_generation_readings_cyclic_debias_and_position_bias_validates(
        name, inputs, tiny_llama, tmp_path):
    """#17's readings in schema 2: ``generation_lenient`` and ``likelihood_cyclic`` metrics named per
    reading, ``debias`` in the config, the resume key and the run's table, ``position_bias`` as a
    breakdown per slice and reading (a slice holds numbers only: there it would be refused)."""
    from dataclasses import replace

    from lexprobe.core.options import key_options
    from lexprobe.prompting.choose_cli import ChooseOptions

    bench = registry.get(name)
    items, config = _items_and_config(name, "choose", inputs)
    config = replace(config, choose=ChooseOptions(debias="cyclic", max_candidates=3, max_new_tokens=4))
    assert key_options(config)["choose"]["debias"] == "cyclic"
    out = tmp_path / "cyclic.json"
    result = evaluate(bench, load_scorer(str(tiny_llama), device="cpu"), config, out, items=items, progress=False)
    assert result_schema.problems(result) == []
    assert result["readings"] == ["likelihood", "likelihood_cyclic", "generation", "generation_lenient"]
    assert result["config"]["choose"]["debias"] == "cyclic"
    task = result["tasks"][0]
    metric = "p_at_1" if name == "wdlmpro" else "accuracy"
    m = result["metrics"][task]["all"]
    for reading in result["readings"]:
        assert isinstance(m[f"{reading}.{metric}"], float) and len(m["ci"][f"{reading}.{metric}"]) == 2
    assert isinstance(m["generation_lenient.failures.names_other_option"], int)
    bias = result["breakdowns"][task]["position_bias"]["all"]
    assert {"likelihood", "generation", "generation_lenient"} <= set(bias)
    assert sum(bias["likelihood"]["chosen"].values()) == sum(bias["likelihood"]["gold"].values()) == bias["likelihood"]["n"]
    loaded = result_schema.load(out)
    assert loaded["breakdowns"] == json.loads(json.dumps(result["breakdowns"]))
    units = unit_values(bench, loaded)
    assert units and all(u.values[f"likelihood_cyclic.{metric}"] is not None for u in units)
    assert all(u.values["generation_lenient.valid"] is not None for u in units)
    assert "debiased" in format_result(bench, loaded) and "position bias" in format_result(bench, loaded)
    assert any("cyclic order" in row["item"] for row in failure_rows(bench, loaded))
    wrong = json.loads(json.dumps(result))
    wrong["metrics"][task]["all"]["position_bias"] = bias
    assert result_schema.problems(wrong) == [f"metrics.{task}.all.position_bias is not a number"]


def test_a_missing_capability_is_one_line(tmp_path, inputs):
    bench = registry.get("senserank")
    scorer = load_scorer(dc.write_vec(tmp_path / "w.vec").as_posix())  # static vectors: no token embeddings
    with pytest.raises(ModelError) as err:
        evaluate(bench, scorer, bench.Config(corpus="synthetic"), items=dc.sense_instances(), progress=False)
    assert "needs contextual token embeddings" in str(err.value) and "\n" not in str(err.value)
    assert "offers only static word vectors" in str(err.value)  # not "sentence embeddings": it has no context


def _cli(argv, out: Path) -> dict:
    assert main([*argv, "--out", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_api_and_cli_give_the_same_result(tmp_path, inputs, tiny_bert):
    from lexprobe.benchmarks.coda21.benchmark import CodaConfig

    cli = _cli(["coda21", "eval", "--data", inputs["coda"], "--model", str(tiny_bert), "--device", "cpu",
                "--recipe", "authors", "--align", "none"], tmp_path / "cli.json")
    api = evaluate("coda21", load_scorer(str(tiny_bert), device="cpu"),
                   CodaConfig(data=inputs["coda"], recipe="authors", align="none"), tmp_path / "api.json")
    assert strip(cli) == strip(json.loads((tmp_path / "api.json").read_text())) == strip(json.loads(json.dumps(api)))
    assert cli["config"]["recipe"] == "authors" and cli["recipe"] == "authors"
    # the same eval command reproduces both (#34 item 6), each with its --out beside its own result
    assert cli["run"]["reproduce"].replace("cli.eval.json", "api.eval.json") == api["run"]["reproduce"]
    assert "--recipe authors --align none" in api["run"]["reproduce"]


def test_api_and_cli_give_the_same_wdlmpro_result(tmp_path, tiny_gpt2):
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from tests.behaviour_baseline import write_inputs

    data = write_inputs(tmp_path / "in")["wdlmpro"]  # groups built from WordNet (frequency and depth bands)
    cli = _cli(["wdlmpro", "eval", "--data", data, "--model", str(tiny_gpt2), "--device", "cpu", "--task", "w2d",
                "--limit", "2"], tmp_path / "cli.json")
    api = evaluate("wdlmpro", load_scorer(str(tiny_gpt2), device="cpu"),
                   WDLMProConfig(data=data, task="w2d", limit=2), tmp_path / "api.json")
    assert strip(cli) == strip(json.loads(json.dumps(api)))
    assert cli["tasks"] == ["w2d"] and cli["breakdowns"]["w2d"]["frequency"]


def test_api_and_cli_give_the_same_sense_ranking(tmp_path, tiny_bert):
    from lexprobe.benchmarks.senserank.benchmark import SenseConfig
    from lexprobe.data.semcor import sample_archive

    args = ["--corpus", "semcor", "--path", str(sample_archive()), "--max-instances", "150"]
    cli = _cli(["senserank", "eval", "--model", str(tiny_bert), "--device", "cpu", *args], tmp_path / "cli.json")
    config = SenseConfig(corpus="semcor", path=str(sample_archive()), max_instances=150)
    api = evaluate("senserank", load_scorer(str(tiny_bert), device="cpu", prefer="token"), config,
                   tmp_path / "api.json")
    assert strip(cli) == strip(json.loads(json.dumps(api)))


def test_senserank_takes_batch_size_auto_and_dtype_auto_as_the_other_benchmarks(tmp_path, tiny_bert):
    """Before #16: `--batch-size auto` passed the parser and died in int(); `--dtype auto` meant float32
    here and bfloat16-on-GPU elsewhere. Now one resolution: on this CPU auto is float32 and the token
    budget, and the numbers equal a fixed batch size's."""
    from lexprobe.data.semcor import sample_archive

    args = ["senserank", "eval", "--model", str(tiny_bert), "--device", "cpu", "--corpus", "semcor",
            "--path", str(sample_archive()), "--max-instances", "150"]
    auto = _cli(args + ["--batch-size", "auto", "--dtype", "auto"], tmp_path / "auto.json")
    fixed = _cli(args + ["--batch-size", "3"], tmp_path / "fixed.json")
    assert auto["run"]["batch_size"] == "auto" and fixed["run"]["batch_size"] == 3
    assert auto["run"]["dtype"] == fixed["run"]["dtype"] == "float32"
    from tests.behaviour_baseline import differences

    assert not differences(fixed["metrics"], auto["metrics"])
    assert [q["ap"] for q in auto["instances"]] == pytest.approx([q["ap"] for q in fixed["instances"]], abs=1e-6)
    from lexprobe.models import pick_device, resolve_dtype

    embedder = load_scorer(str(tiny_bert), kind="token", device="cpu", dtype="auto")
    assert embedder.model.dtype == resolve_dtype("auto", pick_device("cpu"))


def test_the_deprecated_protocol_option_is_gone(tmp_path, inputs, capsys):
    """``--protocol`` (the alias of --recipe / --method choose until #37) is an unknown option now: exit 2."""
    with pytest.raises(SystemExit) as parser_exit:
        main(["coda", "eval", "--data", inputs["coda"], "--model", "random", "--protocol", "authors",
              "--out", str(tmp_path / "a.json")])
    assert parser_exit.value.code == 2 and "unrecognized arguments: --protocol" in capsys.readouterr().err
    assert not (tmp_path / "a.json").exists()


def test_method_options_with_another_method_are_an_error(tmp_path, inputs, capsys):
    assert main(["coda21", "eval", "--data", inputs["coda"], "--model", "random", "--permutations", "2",
                 "--out", str(tmp_path / "c.json")]) == 2
    assert "--permutations only apply with --method choose" in capsys.readouterr().err


#: (benchmark, method, an option that the method ignores): each refused, none silently dropped
IGNORED_OPTIONS = [
    ("wdlmpro", "choose", ["--counts", "COUNTS"], "--counts only apply with --method likelihood"),
    ("wdlmpro", "choose", ["--plot", "p.png"], "--plot only apply with --method likelihood"),
    ("wdlmpro", "choose", ["--chunk-size", "4"], "--chunk-size only apply with --method likelihood"),
    ("wdlmpro", "choose", ["--recipe", "authors"], "--recipe only apply with --method likelihood"),
    ("coda21", "choose", ["--recipe", "authors"], "--recipe only apply with --method likelihood or ask"),
    ("coda21", "choose", ["--align", "none"], "--align only apply with --method likelihood or ask"),
    ("coda21", "choose", ["--nonce", "zorp"], "--nonce only apply with --method likelihood or ask"),
    ("coda21", "choose", ["--pattern", "is"], "--pattern only apply with --method likelihood;"),
    ("coda21", "ask", ["--normalize", "mean"], "--normalize only apply with --method likelihood;"),
    ("coda21", "ask", ["--pll", "word-l2r"], "--pll only apply with --method likelihood;"),
]


@pytest.mark.parametrize("name,method,option,message", IGNORED_OPTIONS)
def test_options_another_method_ignores_are_refused_before_the_model_loads(name, method, option, message,
                                                                           inputs, tmp_path, capsys):
    counts = tmp_path / "counts.tsv"
    counts.write_text("beckon\t12\n", encoding="utf-8")
    if name == "coda21":
        data = inputs["coda"]
    else:
        from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl

        data = str(write_jsonl(dc.wdlmpro_groups(), tmp_path / "groups.jsonl"))
    out = tmp_path / "r.json"
    option = [str(counts) if x == "COUNTS" else x for x in option]
    # a model that does not exist: refused on the options, or the error would name the model
    code = main([name, "eval", "--data", data, "--model", str(tmp_path / "no-model"), "--method", method,
                 *option, "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and message in err and err.endswith("or drop them")
    assert not out.exists()


def test_an_option_of_two_methods_is_taken_by_both(inputs, tmp_path, capsys):
    """--align belongs to likelihood and ask: with ask it passes the option check (and the run fails on the
    missing model instead)."""
    assert main(["coda21", "eval", "--data", inputs["coda"], "--model", str(tmp_path / "no-model"),
                 "--method", "ask", "--align", "none", "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert "only apply with" not in err and "no-model" in err


def test_method_and_recipe_are_in_the_resume_key(inputs):
    from lexprobe.core.contract import Method
    from lexprobe.benchmarks.coda21.benchmark import CODA21

    keys = []

    class Spy(Method):
        name = "likelihood"

        def run(self, job):
            keys.append(job.key(["the items"]))
            return None  # as another rank would: nothing written

    spy = dataclasses.replace(CODA21, methods={"likelihood": Spy()})
    for recipe in ("paper", "authors"):
        config = spy.Config(data=inputs["coda"], recipe=recipe)
        assert evaluate(spy, load_scorer("random"), config, items=spy.items.load(config)) is None
    assert [k["protocol"] for k in keys] == ["likelihood/paper", "likelihood/authors"]
    assert keys[0]["items"] == keys[1]["items"] and keys[0]["options"]["config"]["recipe"] == "paper"


#: a result file of schema 1 (lexprobe before its result schema 2): a WDLMPro run as it was written
SCHEMA_1 = {"benchmark": "wdlmpro", "model": "random", "task": ["w2d"], "config": {"protocol": "paper"},
            "metrics": {"w2d": {"all": {"p_at_1": 0.5, "rank_score": 0.7, "n": 2}}},
            "random_baseline": {"w2d": {"all": {"p_at_1": 0.25, "n": 2}}}, "run": {"seed": 0},
            "instances": [{"task": "w2d", "target": "a.v.01", "pos": "v", "gold_rank": 1, "rank_score": 1.0}]}


def test_schema_1_files_name_the_lexprobe_that_reads_them_and_unknown_versions_are_refused(tmp_path, capsys):
    """#37: the schema-1 reader went; such a file is one line naming lexprobe 0.1.0 (git 91d9b0c), which reads and
    upgrades it, in ``load``, ``report`` and ``compare`` alike."""
    path = tmp_path / "old.json"
    path.write_text(json.dumps(SCHEMA_1), encoding="utf-8")
    with pytest.raises(DataError, match=r"old.json is a schema-1 result .*lexprobe 0\.1\.0 \(git 91d9b0c\) reads and "
                                        r"upgrades it") as err:
        result_schema.load(path)
    assert "\n" not in str(err.value) and "rerun the evaluation" in str(err.value)
    for argv in (["report", str(path), "--out", str(tmp_path / "rep")], ["compare", str(path), str(path)]):
        assert main(argv) == 2
        printed = capsys.readouterr().err
        assert printed.count("\n") == 1 and "lexprobe 0.1.0 (git 91d9b0c)" in printed, printed
    path.write_text(json.dumps(dict(SCHEMA_1, schema_version=7)), encoding="utf-8")
    with pytest.raises(DataError, match="schema version 7") as err:
        result_schema.load(path)
    assert "\n" not in str(err.value)


# --- a fourth benchmark -----------------------------------------------------------------------------

@pytest.fixture()
def toy(monkeypatch):
    from tests.toy_benchmark import TOY

    monkeypatch.setitem(registry.REGISTRY, "toy", TOY)  # the one registry line (benchmarks.shipped's list)
    return registry.get("toy")


def test_a_fourth_benchmark_works_in_eval_report_compare_and_run(toy, tmp_path, minilm_path, capsys):
    a = _cli(["toy", "eval", "--model", "random"], tmp_path / "a.json")
    b = _cli(["toy", "eval", "--model", str(minilm_path)], tmp_path / "b.json")
    assert result_schema.problems(a) == [] and result_schema.problems(b) == []
    assert b["metrics"]["pick"]["all"]["accuracy"] == 1.0  # MiniLM knows what a dog is
    assert main(["report", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--out", str(tmp_path / "rep")]) == 0
    assert "Toy: pick the definition" in (tmp_path / "rep" / "tables.md").read_text(encoding="utf-8")
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    assert "accuracy" in capsys.readouterr().out


def test_a_fourth_benchmark_declares_its_main_job_parts(toy, tmp_path, monkeypatch, capsys):
    """``lexprobe run`` reads the toy's samples and its causal-LM part from the toy's module (``run=RunParts(...)``),
    and records and prints each part's ``main_score``."""
    import lexprobe.cli.run as run

    monkeypatch.setattr(run, "resolve_model_path", lambda model: None)  # "random" stands in for the causal LM
    assert main(["run", "--only", "toy", "--llm", "random", "--no-fetch", "--out-dir", str(tmp_path / "run")]) == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["benchmarks"]["toy"]["metrics"]["pick"]["all"]["n"] == 3  # run_samples["quick"]
    default, llm = summary["parts"]
    assert (llm["model"], llm["method"], llm["sample"], llm["files"]) == ("random", "likelihood", 2,
                                                                           ["toy-random-likelihood.json"])
    assert default["main_score"] == {"metric": "accuracy", "values": {"toy.json": {"pick": 1.0}}}
    value = llm["main_score"]["values"]["toy-random-likelihood.json"]["pick"]
    assert value == llm["metrics"]["pick"]["all"]["accuracy"]
    assert f"accuracy: pick {100 * value:.1f}" in capsys.readouterr().out  # in % (#34 item 5)


def test_a_benchmark_without_main_job_parts_is_left_out_of_run_and_refused_by_only(toy, tmp_path, monkeypatch,
                                                                                    capsys):
    """``run`` is optional: ``lexprobe run`` leaves a benchmark without it out, and ``--only`` naming it is one
    line (exit 2), not a traceback."""
    monkeypatch.setitem(registry.REGISTRY, "toy", dataclasses.replace(toy, run=None))
    code = main(["run", "--only", "toy", "--no-llm", "--no-fetch", "--out-dir", str(tmp_path / "run")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "toy has no part in `lexprobe run`" in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "run").exists()


def test_a_fourth_benchmark_has_human_items_and_a_template_field(toy, tmp_path):
    """The toy's human items go through the answer store's checks and score to results ``report`` reads, and
    its template field ships and loads from a ``--template`` file: no generic module names the toy."""
    from lexprobe.core.human_items import public_items
    from lexprobe.core.human_score import POOLED, results_for
    from lexprobe.human.store import AnswerStore
    from lexprobe.prompting.templates import load_template, shipped

    item_set = toy.human.item_set(None)
    store = AnswerStore(tmp_path / "db.sqlite")
    store.add_item_set(item_set)
    items = store.item_sets()[0]["items"]  # stored and read back through the store's checks of a "choice" item
    assert [it["id"] for it in public_items(item_set)] == [f"pick/{w}" for w, _ in toy_items()]
    store.save_answer(item_set["set_id"], "ann", items[0]["id"], items[0]["answer"])
    store.save_answer(item_set["set_id"], "ann", items[1]["id"], next(o["label"] for o in items[1]["options"]
                                                                      if o["label"] != items[1]["answer"]))
    store.save_answer(item_set["set_id"], "bob", items[0]["id"], items[0]["answer"])
    results = results_for(item_set, store.answers(item_set["set_id"]))
    store.close()
    assert results["ann"]["metrics"]["pick"]["all"]["accuracy"] == 0.5
    assert results[POOLED]["metrics"]["pick"]["all"]["accuracy"] == pytest.approx(2 / 3)
    for name, result in results.items():
        assert result_schema.problems(result) == []
        reporting.write_json(tmp_path / "human" / f"human-toy-{name}.json", result)
    assert main(["report", str(tmp_path / "human"), "--out", str(tmp_path / "rep")]) == 0
    assert "human:ann" in (tmp_path / "rep" / "tables.md").read_text(encoding="utf-8")

    assert shipped()["letters"].toy.startswith("Question:") and shipped()["dictionary"].toy == shipped()["default"].toy
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"toy": "{word}? {options}", "w2d": "{word} {options}"}), encoding="utf-8")
    mine = load_template(str(path))
    assert (mine.toy, mine.w2d, mine.d2w) == ("{word}? {options}", "{word} {options}", shipped()["default"].d2w)
    assert mine.record()["toy"] == "{word}? {options}"
    path.write_text(json.dumps({"toy": "{word}"}), encoding="utf-8")
    with pytest.raises(DataError, match=re.escape("template field 'toy'") + ".*lacks placeholder"):
        load_template(str(path))


def toy_items():
    from tests.toy_benchmark import ITEMS

    return ITEMS


def test_main_score_is_a_metric_every_benchmark_produces(toy):
    """Every registered benchmark's headline is one of its metrics (its summary columns show it); a benchmark
    declaring one it does not produce cannot be defined."""
    from lexprobe.core.contract import BenchmarkMeta, SummaryColumn

    for bench in registry.all_benchmarks():
        produced = [key for key, _ in bench.meta.unit_metrics]
        assert bench.meta.main_score in produced
        assert all(c.metric in produced for c in bench.meta.summary)
    assert [c.metric for c in registry.get("wdlmpro").meta.summary] == ["p_at_1", "p_at_1"]
    from lexprobe.report.tables import summary_headers

    assert toy.meta.summary[0].metric == "accuracy" and "Toy acc. (%)" in summary_headers()[0]  # "Models by method"
    with pytest.raises(ValueError, match="main_score 'f1' is not one of its unit_metrics"):
        BenchmarkMeta("x", "X", "x", "item", ("t",), main_score="f1", unit_metrics=(("accuracy", "accuracy"),))
    with pytest.raises(ValueError, match="shows 'f1'"):
        BenchmarkMeta("x", "X", "x", "item", ("t",), main_score="accuracy", unit_metrics=(("accuracy", "a"),),
                      summary=(SummaryColumn("F1", "f1"),))
