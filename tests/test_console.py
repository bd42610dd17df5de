"""What the console prints fits a 100-column terminal and names its model (#34 items 4, 5): the table every
benchmark prints after each method (WDLMPro likelihood and choose, CoDA21 likelihood, ask and choose, sense
ranking and its layer sweep), `lexprobe run`'s closing table, `compare`'s table; with a model name as long as a
Hub path; every score in % (the unit convention, ``lexprobe.tables.UNITS``)."""

from __future__ import annotations

from lexprobe.core.contract import format_result
import json
import re

import pytest

from lexprobe.core.registry import get
from lexprobe.reporting import WIDTH

LONG = "HuggingFaceTB/SmolLM2-135M-Instruct-a-rather-long-fine-tuned-variant-name-for-the-width-test"


@pytest.fixture(scope="module")
def results(tmp_path_factory, tiny_llama, tiny_bert, tiny_gpt2):
    """{name: result}: every benchmark x method, from the random scorer and the tiny models."""
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.senserank.config import SenseConfig
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from lexprobe.models import load_scorer
    from tests.benchmarks.coda21.helpers import write_small
    from tests.benchmarks.senserank.test_evaluate import _instances
    from tests.benchmarks.wdlmpro.test_scoring import GROUPS

    folder = tmp_path_factory.mktemp("console")
    wdl, coda = str(write_jsonl(GROUPS, folder / "wdl.jsonl")), str(write_small(folder / "coda.json"))
    llama = load_scorer(str(tiny_llama), device="cpu")
    gpt2 = load_scorer(str(tiny_gpt2), device="cpu")
    random = load_scorer("random")
    out = {}
    import lexprobe.benchmarks.coda21.ask as asking

    # the tiny vocabularies spell " Yes" and " No" alike (ask refuses them): two answers they tell apart, as
    # tests/robustness/test_hardening_9.py does
    patch = pytest.MonkeyPatch()
    patch.setattr(asking, "ANSWERS", (" dog", " cat"))
    for name, bench, scorer, config in (
            ("wdlmpro-likelihood", "wdlmpro", random, WDLMProConfig(data=wdl)),
            ("wdlmpro-choose", "wdlmpro", llama, WDLMProConfig(data=wdl, method="choose")),
            ("coda21-likelihood", "coda21", random, CodaConfig(data=coda)),
            ("coda21-ask", "coda21", gpt2, CodaConfig(data=coda, method="ask")),
            ("coda21-choose", "coda21", llama, CodaConfig(data=coda, method="choose"))):
        out[name] = evaluate(bench, scorer, config, folder / f"{name}.json", progress=False)
    patch.undo()
    token = load_scorer(str(tiny_bert), kind="token", device="cpu")
    out["senserank-similarity"] = evaluate("senserank", token, SenseConfig(corpus="synthetic", k=10),
                                           items=_instances(), progress=False)
    out["senserank-sweep"] = evaluate("senserank", token, SenseConfig(corpus="synthetic", k=10, layers="all"),
                                      items=_instances(), progress=False)
    return out


def _named(result: dict, name: str) -> dict:
    renamed = json.loads(json.dumps(result))
    renamed["model"]["name"] = name
    return renamed


def _check(text: str, model: str) -> None:
    widest = max(len(line) for line in text.splitlines())
    assert widest <= WIDTH, f"{widest} columns:\n{text}"
    # every table names its model (a long name may wrap inside its column or the title: compare the words)
    for table in re.split(r"\n\s*\n", text.strip()):
        words = " ".join(table.split())
        assert model in words or all(part in words for part in re.split(r"[-/]", model)), table


@pytest.mark.parametrize("model", ["short", LONG])
@pytest.mark.parametrize("name", ["wdlmpro-likelihood", "wdlmpro-choose", "coda21-likelihood", "coda21-ask",
                                  "coda21-choose", "senserank-similarity", "senserank-sweep"])
def test_every_console_table_fits_100_columns_and_names_its_model(results, name, model):
    result = _named(results[name], model)
    _check(format_result(get(result["benchmark"]), result), model)


def _figures(row: str) -> list[str]:
    """A console line's figures, their intervals ("[lo, hi]") and flags left out."""
    return re.sub(r"\[[^\]]*\]", "", row).replace("⚠", "").split()


def test_console_figures_are_percentages(results):
    """One unit: the console's P@1, rank score, accuracy and parse rates are the result's fractions x100."""
    wdl = results["wdlmpro-likelihood"]
    text = format_result(get("wdlmpro"), wdl)
    m = wdl["metrics"]["w2d"]["all"]
    w2d = text.split("\n\n")[0]  # W2D's table: a line per figure, the model's column first
    assert _figures(next(x for x in w2d.splitlines() if x.startswith("All P@1 (%)")))[3] == f"{100 * m['p_at_1']:.1f}"
    assert _figures(next(x for x in w2d.splitlines() if x.startswith("All RS")))[2] == f"{100 * m['rank_score']:.1f}"
    choose = results["wdlmpro-choose"]
    c = choose["metrics"]["w2d"]["all"]
    lines = format_result(get("wdlmpro"), choose).split("\n\n")[0].splitlines()  # W2D; columns Nouns, Verbs, All
    for label, key in (("Label P@1 (%)", "likelihood.p_at_1"), ("Label RS", "likelihood.rank_score"),
                       ("Parsed (%)", "generation.valid")):
        row = next(x for x in lines if x.startswith(label))
        assert _figures(row)[-1] == f"{100 * c[key]:.1f}", (label, row)
    coda = results["coda21-likelihood"]
    acc = coda["metrics"]["alignment"]["all"]["accuracy"]
    assert f"{100 * acc:.1f}" in format_result(get("coda21"), coda)


@pytest.mark.parametrize("name", ["wdlmpro-likelihood", "wdlmpro-choose", "coda21-likelihood", "coda21-ask",
                                  "coda21-choose", "senserank-similarity", "senserank-sweep"])
def test_the_console_prints_the_intervals_its_tables_announce(results, name):
    """Every figure the result's tables hold with an interval is printed with it: the console's tables said "95%
    bootstrap intervals ... in brackets" and printed none (#48). The intervals are read from the result's own
    tables (``contract.tables``), and the sentence is there only with them."""
    from lexprobe.core.contract import tables
    from lexprobe.tables import Cell

    result = results[name]
    text = format_result(get(result["benchmark"]), result).replace("\u00a0", " ")  # (an interval is one word)
    intervals = {c.interval() for t in tables(get(result["benchmark"]), [result]) for row in t.rows for c in row
                 if isinstance(c, Cell) and c.interval()}
    assert intervals and "in brackets" in " ".join(t.note for t in tables(get(result["benchmark"]), [result]))
    assert [i for i in intervals if i not in text] == [], text


def test_run_closing_table_fits_and_names_each_model(results, tmp_path, capsys):
    """`lexprobe run`'s closing table once was 225 columns wide (a choose part's headline padded every row)."""
    from lexprobe.cli.run import _main_scores, _print_times, _scored

    done = []
    for name, model in (("wdlmpro-likelihood", "all-MiniLM-L6-v2"), ("wdlmpro-choose", LONG),
                        ("coda21-choose", "smollm2-135m-instruct")):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(_named(results[name], model)))
        bench, files = results[name]["benchmark"], {path.name: json.loads(path.read_text())}
        done.append({"model": model, "benchmark": bench, "method": results[name]["method"], "chat": True,
                     "seconds": 12.3, "cpu_seconds": 10.1, "main_score": _main_scores(bench, files),
                     "scored": _scored(bench, files)})
    _print_times(done, [], 100.0, 90.0)
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= WIDTH, text
    flat = " ".join(text.split())
    assert "all-MiniLM-L6-v2" in flat and "smollm2-135m-instruct" in flat
    value = results["wdlmpro-choose"]["metrics"]["w2d"]["all"]["generation_lenient.p_at_1"]
    assert f"lenient {100 * value:.1f}" in flat  # the choose part's readings, in %
    # each headline named as the tables name its metric, never by the result's key (#48: "p_at_1: w2d ...")
    for d in done:
        label = dict(get(d["benchmark"]).meta.unit_metrics)[get(d["benchmark"]).meta.main_score]
        assert f"{label}: " in flat
    assert "p_at_1" not in flat and "accuracy:" in flat
    n = results["wdlmpro-likelihood"]["metrics"]["w2d"]["all"]["n"]
    assert done[0]["scored"] == f"{n} targets per task" and f"{n} targets per" in flat  # the items the part scored


def test_compare_table_fits(results, tmp_path):
    from lexprobe.report.compare import compare_files, format_comparison

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_named(results["wdlmpro-choose"], LONG)))
    b.write_text(json.dumps(results["wdlmpro-likelihood"]))
    text = format_comparison(compare_files(a, b))
    assert max(len(line) for line in text.splitlines()) <= WIDTH, text


def test_a_long_command_breaks_between_arguments_and_pastes_as_one():
    """run's note of the `coda21 build` command that makes its small set (130 columns in one line before)."""
    import subprocess

    from lexprobe.benchmarks.coda21.cli import small_set_command
    from lexprobe.reporting import command_lines

    command = small_set_command("wordnet", "/a/rather/long/folder/name/for/the/output/small.json", 15)
    text = command_lines(command)
    assert len(text.splitlines()) > 1 and max(len(line) for line in text.splitlines()) <= WIDTH
    echoed = subprocess.run(["bash", "-c", f"printf '%s\\n' {text.replace('lexprobe', '', 1)}"], capture_output=True,
                            text=True, check=True).stdout.split("\n")[:-1]
    assert ["lexprobe", *echoed] == command.split()  # bash reads the continued lines as the one command
