"""`lexprobe report`: tables equal to the result files, self-contained HTML, failure pages in a browser."""

import base64
import json
import re
import shutil
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.tables import Cell
from tests.report.htmltables import read_page, row_by_label, run_records

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def report_dir(result_files, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    assert main(["report", *map(str, result_files.values()), "--out", str(out)]) == 0
    return out


def _load(path):
    return json.loads(Path(path).read_text())


def test_html_numbers_equal_the_json(report_dir, result_files):
    page = read_page((report_dir / "index.html").read_text())
    bert = _load(result_files["wdlmpro-bert"])
    rows = page.tables["WDLMPro W2D (word to definition)"]
    header = [c[0] for c in rows[0]]
    row = row_by_label(rows, bert["model"]["name"])
    for pos, name in (("n", "Nouns"), ("v", "Verbs"), ("all", "All")):
        for key, label in (("p_at_1", "P@1 (%)"), ("rank_score", "RS")):
            text, attrs = row[header.index(f"{name} {label}")]
            m = bert["metrics"]["w2d"][pos]
            assert float(attrs["data-value"]) == m[key]
            assert [float(attrs["data-lo"]), float(attrs["data-hi"])] == m["ci"][key]
            assert text == Cell(m[key], m["ci"][key]).text()
    base = row_by_label(rows, "Random (expected)")
    assert float(base[header.index("All P@1 (%)")][1]["data-value"]) == bert["baselines"]["random"]["w2d"]["all"]["p_at_1"]

    coda = _load(result_files["coda21-gpt2"])
    rows = page.tables["CoDA21 coda-small"]
    header = [c[0] for c in rows[0]]
    row = row_by_label(rows, coda["model"]["name"])
    cell = row[header.index("All acc. (%)")][1]
    assert float(cell["data-value"]) == coda["metrics"]["alignment"]["all"]["accuracy"]
    assert [float(cell["data-lo"]), float(cell["data-hi"])] == coda["metrics"]["alignment"]["all"]["ci"]["accuracy"]
    rnd = row_by_label(rows, "Random (exact)")[header.index("Nouns acc. (%)")][1]
    assert float(rnd["data-value"]) == coda["baselines"]["random"]["alignment"]["n"]["accuracy"]

    sr = _load(result_files["senserank-layer1"])
    rows = next(v for k, v in page.tables.items() if k.startswith("Sense ranking synthetic: pooled precision"))
    header = [c[0] for c in rows[0]]
    oracle = row_by_label(rows, "Oracle")[header.index("all")][1]
    assert float(oracle["data-value"]) == sr["baselines"]["oracle"]["synthetic"]["all"]["pooled"]
    model = row_by_label(rows, f"{sr['model']['name']} (senserank-layer1.json)")[header.index("all")][1]
    assert float(model["data-value"]) == sr["metrics"]["synthetic"]["all"]["pooled"]


def test_markdown_and_latex_tables(report_dir, result_files):
    md = (report_dir / "tables.md").read_text()
    tex = (report_dir / "tables.tex").read_text()
    bert = _load(result_files["wdlmpro-bert"])
    m = bert["metrics"]["d2w"]["all"]
    cell = Cell(m["rank_score"], m["ci"]["rank_score"])
    line = next(x for x in md.splitlines() if x.startswith(f"| {bert['model']['name']} |") and cell.text() in x)
    assert "Random (expected)" in md and "Oracle" in md and "Run records" in md
    assert line.count("|") == 9  # model, 3 POS x (P@1, RS), N
    assert f"{cell.main()} {{\\scriptsize {cell.interval()}}}" in tex
    assert tex.count("\\begin{tabular}") == tex.count("\\end{tabular}") == 5
    assert bert["run"]["items_digest"] in md


def test_html_is_self_contained_with_images(report_dir):
    index = (report_dir / "index.html").read_text()
    page = read_page(index)
    # WDLMPro breakdowns (2 models), CoDA21 heatmaps, precision-at-k curves (2 runs)
    assert len(page.images) >= 6
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ("index.html", "wdlmpro.html", "coda21.html", "senserank.html"):
        text = (report_dir / name).read_text()
        assert not re.search(r"""(src|href)\s*=\s*['"]?(https?:)?//""", text), name
        assert "<link" not in text and "@import" not in text and "url(" not in text
    assert "Run records" in index and "model revision" in index


def test_run_record_in_the_report(report_dir, result_files):
    page = read_page((report_dir / "index.html").read_text())
    fields = run_records(page)["coda21-gpt2.json"]
    record = _load(result_files["coda21-gpt2"])["run"]
    assert fields["items digest"] == record["items_digest"]
    assert fields["model revision"] == record["model_revision"]
    assert fields["device"] == "cpu"


def test_bad_inputs_are_one_line_errors(tmp_path, capsys, result_files):
    assert main(["report", str(tmp_path / "missing.json"), "--out", str(tmp_path / "r")]) == 2
    not_result = tmp_path / "x.json"
    not_result.write_text('{"a": 1}')
    assert main(["report", str(not_result), "--out", str(tmp_path / "r")]) == 2
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert main(["report", str(result_files["coda21-gpt2"]), "--out", str(a_file)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(e.startswith("lexprobe: error:") for e in err)
    assert not (tmp_path / "r").exists()  # nothing written before the inputs were checked


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium not installed (apt-get install chromium)")
def test_pages_open_and_filter_in_a_browser(report_dir, result_files):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    wdl = [_load(result_files[k]) for k in ("wdlmpro-random", "wdlmpro-bert")]
    instances = [(r["model"]["name"], i) for r in wdl for i in r["instances"]]
    failures = [(m, i) for m, i in instances if i["gold_rank"] != 1]
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((report_dir / "index.html").as_uri())
        widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
        assert len(widths) >= 6 and min(widths) > 100
        assert page.locator("table.results").count() >= 5  # the benchmarks' tables (run records: their own)
        assert page.locator("details.run").count() == len(result_files)
        page.click("text=WDLMPro items and failures")
        rows = page.locator("table.items tbody tr")  # in groups by model and task, closed (#34)
        groups = page.locator("details.group")
        assert groups.count() == len({(m, i["task"]) for m, i in failures})
        assert groups.evaluate_all("ds => ds.every(d => !d.open)")
        assert rows.count() == len(failures)  # failures only, by default
        assert page.locator("#count").inner_text().startswith(f"{len(failures)} of {len(instances)}")
        page.uncheck("#failures")
        assert rows.count() == len(instances)
        page.select_option("#task", "d2w")
        assert rows.count() == sum(1 for _, i in instances if i["task"] == "d2w")
        page.select_option("#task", "")
        word = wdl[0]["instances"][0]["word"]
        page.fill("#search", word)
        # every item of that word shows it (W2D: the item, D2W: the gold answer); other rows only if they mention it
        assert sum(1 for _, i in instances if i["word"] == word) <= rows.count() < len(instances)
        for text in rows.all_text_contents():  # closed groups: not rendered, so no innerText
            assert word.lower() in text.lower()
        page.select_option("#model", wdl[1]["model"]["name"])
        assert set(groups.evaluate_all("ds => ds.map(d => d.dataset.model)")) == {wdl[1]["model"]["name"]}
        page.select_option("#task", "d2w")  # one group left: open
        assert groups.count() == 1 and groups.first.evaluate("d => d.open") and rows.first.is_visible()

        page.goto((report_dir / "coda21.html").as_uri())
        coda = _load(result_files["coda21-gpt2"])
        page.uncheck("#failures")
        page.select_option("#model", coda["model"]["name"])
        assert rows.count() == len(coda["instances"])
        first = coda["instances"][0]
        assert first["contexts"][0] in rows.first.inner_text()
        page.goto((report_dir / "senserank.html").as_uri())
        page.uncheck("#failures")
        assert rows.count() == sum(len(_load(result_files[k])["instances"]) for k in result_files if "senserank" in k)
        browser.close()
    assert errors == []


def test_human_result_goes_through_report(result_files, tmp_path):
    """A person's answers: the same shape, kind ``human``, no rank score for a single choice."""
    human = _load(result_files["wdlmpro-random"])
    human["model"] = {"name": "human:P01", "kind": "human"}
    for inst in human["instances"]:
        inst["rank_score"] = None
    human["run"].update(model="human:P01", model_kind="human", model_revision=None, device=None, dtype=None)
    path = tmp_path / "human.json"
    path.write_text(json.dumps(human))
    out = tmp_path / "rep"
    assert main(["report", str(path), str(result_files["wdlmpro-bert"]), "--out", str(out)]) == 0
    page = read_page((out / "index.html").read_text())
    assert row_by_label(page.tables["WDLMPro W2D (word to definition)"], "human:P01")
    shutil.rmtree(out)


def test_a_folder_stands_for_its_result_files(result_files, tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    for key in ("coda21-random", "coda21-gpt2"):
        shutil.copy(result_files[key], folder)
    (folder / "summary.json").write_text('{"model": "x", "benchmarks": {}}')  # not a result: skipped
    assert main(["report", str(folder), "--out", str(tmp_path / "rep")]) == 0
    records = run_records(read_page((tmp_path / "rep" / "index.html").read_text()))
    assert list(records) == ["coda21-gpt2.json", "coda21-random.json"]
    assert main(["report", str(tmp_path / "rep" / "figures"), "--out", str(tmp_path / "rep2")]) == 2


def test_item_texts_cannot_break_out_of_the_page():
    import html as html_module

    from lexprobe.report.html import failure_page

    evil = "</script><script>alert(1)</script><!--"
    row = {"model": "<b>m</b>", "task": "w2d", "pos": "n", "item": evil, "gold": evil, "chosen": "", "score": "1 of 2",
           "ok": False}
    page = failure_page("wdlmpro", [row])
    block = page.split("<script type='application/json' id='data'>", 1)[1].split("</script>", 1)[0]
    assert "<" not in block
    assert json.loads(block)["rows"][0]["item"] == evil
    assert "alert(1)" not in html_module.unescape(page.replace(block, ""))
