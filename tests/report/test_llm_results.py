"""`report` and `compare` on the results of docs/llm.md: --method choose (both readings) and
senserank --layers sweeps, from tiny models. Generation is scripted (a random tiny model never
writes a parsable answer), so the generation reading's counts can be checked by hand."""

import json

import numpy as np
import pytest
from scipy.stats import binomtest

from lexprobe.cli import main
from lexprobe.report.build import write_report
from lexprobe.report.compare import compare_files
from lexprobe.report.results import units
from lexprobe.core.result_schema import load as load_result
from lexprobe.stats.bootstrap import mean_intervals
from tests.report.conftest import scripted_answers as _answers
from tests.report.htmltables import read_page, run_records


@pytest.fixture(scope="module")
def llm_report(llm_files, tmp_path_factory):
    out = tmp_path_factory.mktemp("llm-report")
    write_report([llm_files[k] for k in ("wdl-choose-a", "wdl-choose-p2", "wdl-paper", "coda-choose", "coda-paper",
                                         "sweep")], out)
    return out


def _load(path):
    return json.loads(path.read_text())


def _value(cell):
    return float(cell[1]["data-value"])


def _ci(cell):
    return [float(cell[1]["data-lo"]), float(cell[1]["data-hi"])]


def test_choose_results_carry_intervals_and_a_run_record(llm_files):
    r, paper = _load(llm_files["wdl-choose-a"]), _load(llm_files["wdl-paper"])
    assert r["run"]["method"] == "choose" and r["intervals"]["unit"] == "target"
    assert r["run"]["items_digest"] == paper["run"]["items_digest"]  # the same groups, asked another way
    recs = [i for i in r["instances"] if i["task"] == "w2d"]
    m = r["metrics"]["w2d"]["all"]
    ci = mean_intervals({"p_at_1": [float(i["likelihood"]["correct"]) for i in recs],
                         "rank_score": [i["likelihood"]["rank_score"] for i in recs]})
    assert (m["ci"]["likelihood.p_at_1"], m["ci"]["likelihood.rank_score"]) == (ci["p_at_1"], ci["rank_score"])
    assert m["ci"]["generation.p_at_1"] == mean_intervals(
        {"x": [float(i["gold_position"] == 0) for i in recs]})["x"]  # "1" is right where gold is shown first
    coda = _load(llm_files["coda-choose"])
    assert coda["run"]["items_digest"] == _load(llm_files["coda-paper"])["run"]["items_digest"]
    both = coda["metrics"]["alignment"]["all"]
    assert both["generation.failures.incomplete"] == sum(len(i["shown"]) > 2 for i in coda["instances"])
    assert both["ci"]["generation.valid"][1] <= 1.0
    assert "accuracy" in coda["baselines"]["random"]["alignment"]["all"]["ci"]


def test_choose_tables_in_html_equal_the_json(llm_files, llm_report):
    page = read_page((llm_report / "index.html").read_text())
    r = _load(llm_files["wdl-choose-a"])
    rows = page.tables["WDLMPro W2D (word to definition), ask to choose (--method choose)"]
    header = [c[0] for c in rows[0]]
    mine = [row for row in rows[1:] if row[0][0] == r["model"]["name"] and "1 order" in row[1][0]]
    by_pos = {row[header.index("POS")][0]: row for row in mine}
    for pos, name in (("v", "Verbs"), ("all", "All")):
        m, row = r["metrics"]["w2d"][pos], by_pos[name]
        assert _value(row[header.index("Label P@1 (%)")]) == m["likelihood.p_at_1"]
        assert _ci(row[header.index("Label RS")]) == m["ci"]["likelihood.rank_score"]
        assert _value(row[header.index("Generated P@1 (%)")]) == m["generation.p_at_1"]
        assert _ci(row[header.index("Generated P@1 (%)")]) == m["ci"]["generation.p_at_1"]
        assert _value(row[header.index("Parsed (%)")]) == m["generation.valid"] == 1.0
        assert _value(row[header.index("Random P@1 (%)")]) == r["baselines"]["random"]["w2d"][pos]["p_at_1"]
        assert row[header.index("Asked")][0] == str(m["n"])
        assert row[header.index("Skipped")][0] == "0"  # a number in every row, the per-POS ones too (#29)
    coda = _load(llm_files["coda-choose"])
    table = page.tables["CoDA21 coda, ask to choose (--method choose)"]
    head = [c[0] for c in table[0]]
    rows = [row for row in table[1:] if row[2][0] == "All"]
    (row,) = rows
    m = coda["metrics"]["alignment"]["all"]
    columns = ("Label acc. (%)", "Generated acc. (%)", "Parsed (%)", "Random (%)")
    assert [_value(row[head.index(c)]) for c in columns] == [
        m["likelihood.accuracy"], m["generation.accuracy"], m["generation.valid"],
        coda["baselines"]["random"]["alignment"]["all"]["accuracy"]]
    assert row[head.index("Generation failures")][0] == f"incomplete {m['generation.failures.incomplete']}"
    # the lenient reading of the same answers, and the position bias of the run
    assert _value(row[head.index("Lenient acc. (%)")]) == m["generation_lenient.accuracy"]
    bias = coda["breakdowns"]["alignment"]["position_bias"]["all"]["likelihood"]
    # compact: one short line per reading (#34: the sentences made the rows four times taller), the
    # sentences on hover
    compact = (f"label: {bias['most_chosen']} at {100 * bias['most_chosen_share']:.0f}% "
               f"(gold {100 * bias['gold_share_there']:.0f}%)")
    assert row[head.index("Position bias")][0].startswith(compact)
    words = (f"label likelihood: position {bias['most_chosen']} in {100 * bias['most_chosen_share']:.0f}% of answers "
             f"(gold there {100 * bias['gold_share_there']:.0f}%)")
    assert f"title='{words}" in (llm_report / "index.html").read_text()
    # the table template of docs/llm.md
    summary = page.tables["Models by method (the table template of docs/llm.md)"]
    head = [c[0] for c in summary[0]]
    by_method = {}
    for row in summary[1:]:
        if row[0][0] == r["model"]["name"]:
            by_method.setdefault(row[1][0], row)  # the first row of each: run A's, then the likelihood run's
    gen = by_method["choose, generation"]
    assert _value(gen[head.index("W2D P@1 (%)")]) == r["metrics"]["w2d"]["all"]["generation.p_at_1"]
    assert _value(gen[head.index("CoDA21 acc. (%)")]) == m["generation.accuracy"]
    paper = _load(llm_files["wdl-paper"])
    assert _value(by_method["paper (likelihood)"][head.index("D2W P@1 (%)")]) == paper["metrics"]["d2w"]["all"]["p_at_1"]
    sweep = _load(llm_files["sweep"])
    best = sweep["sweep"]["values"][str(sweep["sweep"]["best"])]["metrics"]["synthetic"]["all"]
    (emb,) = [row for row in summary[1:] if row[0][0] == sweep["model"]["name"] and row[1][0] == "paper (similarity)"]
    cell = emb[head.index("Sense ranking MAP@50 (layer)")]
    assert _value(cell) == best["pooled"] and f"(best layer {sweep['sweep']['best']})" in cell[0]
    p2 = _load(llm_files["wdl-choose-p2"])["metrics"]["w2d"]["all"]
    agreement = [row for row in summary[1:] if row[1][0] == "choose, label likelihood"]
    column = next(i for i, h in enumerate(head) if h.startswith("Agreement over orders (W2D / D2W / CoDA21"))
    assert f"{100 * p2['likelihood.agreement']:.1f} / " in " ".join(row[column][0] for row in agreement)
    md = (llm_report / "tables.md").read_text()
    assert "### Models by method" in md and "| choose, generation | default |" in md
    assert "Models by method" in (llm_report / "tables.tex").read_text()


def test_layer_sweep_table_and_plot(llm_files, llm_report):
    html = (llm_report / "index.html").read_text()
    page = read_page(html)
    sweep = _load(llm_files["sweep"])
    (caption,) = [c for c in page.tables if "by layer" in c]
    rows = page.tables[caption][1:]
    assert [row[0][0].split()[0] for row in rows] == list(sweep["sweep"]["values"])
    for row, entry in zip(rows, sweep["sweep"]["values"].values()):
        assert _value(row[1]) == entry["metrics"]["synthetic"]["all"]["pooled"]
        assert _ci(row[2]) == entry["metrics"]["synthetic"]["all"]["ci"]["map"]
        assert _value(row[4]) == entry["baselines"]["oracle"]["synthetic"]["all"]["pooled"]
    assert "(best)" in rows[int(sweep["sweep"]["best"])][0][0]
    assert "by layer" in html and list((llm_report / "figures").glob("*-layers.png"))


def _page_rows(path):
    text = path.read_text()
    start = text.index("id='data'>") + len("id='data'>")
    return json.loads(text[start:text.index("</script>", start)])["rows"]


def test_failure_pages_show_the_answer_and_the_gold_one(llm_files, llm_report):
    r = _load(llm_files["wdl-choose-a"])
    rows = [x for x in _page_rows(llm_report / "wdlmpro.html") if x["model"].endswith("[choose: generation]")]
    assert len(rows) == len(r["instances"]) * 1 + len(_load(llm_files["wdl-choose-p2"])["instances"]) * 0
    for row, inst in zip(rows, r["instances"]):
        gold = inst["options"][inst["gold_position"]]
        assert gold in row["gold"] and "answered '1'" in row["chosen"]
        assert row["ok"] == (inst["gold_position"] == 0)
    coda = [x for x in _page_rows(llm_report / "coda21.html") if x["model"].endswith("[choose: generation]")]
    assert any("incomplete" in x["details"] for x in coda)
    assert any("✓" in x["details"] or "✗" in x["details"] for x in coda)  # a parsed k=2 matching, pair by pair


def test_compare_two_choose_runs_pairs_each_reading(llm_files, tmp_path, capsys):
    a, b = llm_files["wdl-choose-a"], llm_files["wdl-choose-b"]
    out = tmp_path / "cmp.json"
    assert main(["compare", str(a), str(b), "--json", str(out)]) == 0
    rows = {(r["task"], r["pos"], r["metric"]): r for r in _load(out)["rows"]}
    insts = [i for i in _load(a)["instances"] if i["task"] == "w2d"]
    # A always answered "1", B "2", with the same option orders (same seed): by hand
    only_a = sum(i["gold_position"] == 0 for i in insts)
    only_b = sum(i["gold_position"] == 1 for i in insts)
    gen = rows[("w2d", "all", "P@1 (choose, generation)")]
    assert (gen["only_a"], gen["only_b"], gen["test"]) == (only_a, only_b, "McNemar exact")
    assert gen["p_value"] == pytest.approx(binomtest(only_a, only_a + only_b).pvalue if only_a + only_b else 1.0)
    assert gen["n"] == len(insts) and gen["difference"] == pytest.approx((only_a - only_b) / len(insts))
    lik = rows[("w2d", "all", "P@1 (choose, label likelihood)")]  # the same model asked the same way
    assert (lik["only_a"], lik["only_b"], lik["p_value"]) == (0, 0, 1.0)


def test_compare_choose_with_likelihood_protocol_on_the_common_metric(llm_files):
    c = compare_files(llm_files["wdl-paper"], llm_files["wdl-choose-a"])
    assert any("compared on the common metrics" in n for n in c["notes"])
    assert any(w.startswith("method: likelihood vs choose") for w in c["warnings"])
    rows = {(r["task"], r["pos"], r["metric"]): r for r in c["rows"]}
    paper, choose = _load(llm_files["wdl-paper"]), _load(llm_files["wdl-choose-a"])
    for task in ("w2d", "d2w"):
        row = rows[(task, "all", "P@1: A likelihood (paper) vs B choose label likelihood")]
        assert row["a"] == pytest.approx(paper["metrics"][task]["all"]["p_at_1"])
        assert row["b"] == pytest.approx(choose["metrics"][task]["all"]["likelihood.p_at_1"])
        rs = rows[(task, "all", "RS: A likelihood (paper) vs B choose label likelihood")]
        assert rs["b"] == pytest.approx(choose["metrics"][task]["all"]["likelihood.rank_score"])
        gen = rows[(task, "all", "P@1: A likelihood (paper) vs B choose generation")]
        assert gen["b"] == pytest.approx(choose["metrics"][task]["all"]["generation.p_at_1"])
        lenient = rows[(task, "all", "P@1: A likelihood (paper) vs B choose generation, lenient")]
        assert lenient["b"] == pytest.approx(choose["metrics"][task]["all"]["generation_lenient.p_at_1"])
    coda = compare_files(llm_files["coda-choose"], llm_files["coda-paper"])
    metrics = {r["metric"] for r in coda["rows"]}
    assert metrics == {"accuracy: A choose label likelihood vs B likelihood (paper)",
                       "accuracy: A choose generation vs B likelihood (paper)",
                       "accuracy: A choose generation, lenient vs B likelihood (paper)"}


def test_units_of_choose_runs_average_the_option_orders(llm_files):
    r = load_result(llm_files["wdl-choose-p2"])
    us = [u for u in units(r) if u.task == "d2w"]
    assert len(us) == 3 and len([i for i in r["instances"] if i["task"] == "d2w"]) == 6
    assert np.mean([u.values["likelihood.p_at_1"] for u in us]) == pytest.approx(
        r["metrics"]["d2w"]["all"]["likelihood.p_at_1"])
    assert all(u.values["generation.p_at_1"] is None for u in us)  # --reading likelihood


def test_a_layer_sweep_cannot_be_paired(llm_files, capsys):
    assert main(["compare", str(llm_files["sweep"]), str(llm_files["sweep"])]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "layer sweep" in err and "--layer L" in err


def test_a_folder_of_choose_and_sweep_results(llm_files, tmp_path):
    import shutil

    folder = tmp_path / "results"
    folder.mkdir()
    for key in ("sweep", "coda-choose"):
        shutil.copy(llm_files[key], folder)
    assert main(["report", str(folder), "--out", str(tmp_path / "rep")]) == 0
    records = run_records(read_page((tmp_path / "rep" / "index.html").read_text()))
    assert list(records) == ["coda-choose.json", "sweep.json"]


CHROMIUM = "/usr/bin/chromium"
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def flagged_report(llm_files, tiny_llama, tmp_path_factory):
    """A report with every flag and a sample banner: choose by label likelihood always picking option 1
    (position bias), generated answers never parsed, a CoDA21 file named like the set `lexprobe run` builds
    from WordNet when the official files are missing (a stand-in dataset), the likelihood runs at chance."""
    import shutil

    from tests.benchmarks.coda21.helpers import write_small

    folder = tmp_path_factory.mktemp("flagged")
    data = write_small(folder / "coda21-small-noisy-hard.json")
    out = folder / "coda21-small-choose.json"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("lexprobe.scorers.causal.CausalTokenization.generations", _answers("I am not sure."))
        assert main(["coda", "eval", "--data", str(data), "--method", "choose", "--model", str(tiny_llama),
                     "--device", "cpu", "--out", str(out)]) == 0
    files = [out] + [shutil.copy(llm_files[k], folder) for k in ("wdl-choose-a", "wdl-paper", "coda-paper", "sweep")]
    write_report(files, folder / "report")
    return folder / "report"


def test_the_result_records_a_stand_in_dataset(flagged_report):
    result = _load(flagged_report.parent / "coda21-small-choose.json")
    assert result["dataset"]["sample"] is True and "built from WordNet" in result["dataset"]["what"]
    assert result["dataset"]["get"] == "lexprobe data fetch coda21"


@pytest.mark.skipif(not __import__("pathlib").Path(CHROMIUM).exists(), reason="Chromium not installed")
def test_report_fits_1400px_and_says_what_the_numbers_mean(flagged_report):
    """Issue #29 in a browser at 1400 x 900: no page scrolls sideways (wide tables scroll in their own box),
    every kind of flag is shown with its sentence, and the stand-in dataset has its banner."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        pages = sorted(f.name for f in flagged_report.glob("*.html"))
        assert pages == ["coda21.html", "index.html", "wdlmpro.html"]  # the sweep has no items page
        for name in pages:
            page.goto((flagged_report / name).as_uri())
            width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert width <= inner, f"{name} scrolls sideways: {width} px wide in a {inner} px window"
        page.goto((flagged_report / "index.html").as_uri())
        assert page.locator("figure.forest img").first.is_visible()  # the forest plot first, its tables folded
        assert not page.locator("td.flag-chance").first.is_visible()
        page.evaluate("document.querySelectorAll('details.tables').forEach(d => d.open = true)")
        for kind in ("chance", "parse", "bias"):
            cell = page.locator(f"td.flag-{kind}").first
            assert cell.is_visible(), kind
            assert page.locator(f"p.flagnote-{kind}").first.is_visible(), kind
            mark = page.evaluate(f"getComputedStyle(document.querySelector('td.flag-{kind}'), '::before').content")
            assert "⚠" in mark
        banner = page.locator(".banner.sample", has_text="coda21-small-choose.json")
        assert banner.is_visible() and "built from WordNet" in banner.inner_text()
        assert "lexprobe data fetch coda21" in banner.inner_text()
        # the position-bias cell reads in lines, not squeezed into a sliver
        box = page.locator("td.flag-bias").first.bounding_box()
        assert box["width"] >= 150
        # run records: one line per result until opened
        assert page.locator("details.run").count() == 5
        assert not page.locator("details.run table").first.is_visible()
        page.goto((flagged_report / "coda21.html").as_uri())
        assert "a failure is" in page.locator("p.failure-definition").inner_text()
        browser.close()
