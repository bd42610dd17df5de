"""Labels from the data (#48 item 4): every label a result produces (the report's sample banner, the summary's
layer tag, the forest plot's rows, its tables' titles, notes and names, the console text) is walked and each
claim in it is held against the result's own record, by kind of claim rather than by known sentence:

- "layer N" (", the last"): the layer the run read (``model.hidden_states_index``; "the last": ``model.layer`` -1;
  "best layer N": the sweep's best), and that record is the layer the run asked (``config.layer``), whatever layer
  the model was loaded at (a ``--layer 4`` result recorded ``layer: -1`` and was labelled "layer 6, the last");
- an option with its value ("--limit 2", "--seed 1"): the value the result's config records;
- a draw ("the first N ...", "a seeded sample of N ..."): the word the option's own help uses for its draw, and
  N units per set or part of speech among the result's instances (the WSD banner said "the first 100 items of
  each part of speech" for a seeded sample of 100 instances per set);
- "in brackets": the text prints intervals.

The items page's group headers (counts of the group, whatever "failures only" hides) are read in Chromium.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lexprobe.core import contract
from lexprobe.core.options import spec
from lexprobe.core.registry import get
from lexprobe.core.result_schema import load
from lexprobe.reporting import write_json

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def labelled(tmp_path_factory, tiny_bert) -> dict[str, dict]:
    """Results whose labels say something: sense ranking asked at a layer the model was not loaded at, a layer
    sweep, WSD token vectors at a layer on a seeded sample, CoDA21's first groups, WDLMPro's seeded sample."""
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.benchmarks.senserank.config import SenseConfig
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from lexprobe.benchmarks.wsd.config import WsdConfig
    from lexprobe.core.evaluate import evaluate
    from lexprobe.models import load_scorer
    from tests.benchmarks.coda21.helpers import write_small
    from tests.benchmarks.senserank.test_evaluate import _instances
    from tests.benchmarks.wdlmpro.test_scoring import GROUPS
    from tests.data.test_wsd import write_pair

    folder = tmp_path_factory.mktemp("labels")
    token = load_scorer(str(tiny_bert), kind="token", device="cpu")  # loaded at its default layer, -1
    random = load_scorer("random")
    runs = {
        "senserank-layer1": ("senserank", token, SenseConfig(corpus="synthetic", k=10, layer=1), _instances()),
        "senserank-sweep": ("senserank", token, SenseConfig(corpus="synthetic", k=10, layers="0,1"), _instances()),
        "wsd-layer1": ("wsd", token, WsdConfig(data=str(write_pair(folder / "wsd")), method="embedding", layer=1,
                                               limit=2, seed=1), None),
        "coda21-first": ("coda21", random, CodaConfig(data=str(write_small(folder / "coda.json")), limit=1), None),
        "wdlmpro-seeded": ("wdlmpro", random, WDLMProConfig(data=str(write_jsonl(GROUPS, folder / "wdl.jsonl")),
                                                            limit=1, seed=2), None),
    }
    out = {}
    for name, (bench, scorer, config, items) in runs.items():
        path = folder / f"{name}.json"
        result = evaluate(bench, scorer, config, None if items is not None else path, items=items, progress=False)
        if items is not None:
            write_json(path, result)
        out[name] = load(path)
    return out


def labels(result: dict) -> list[tuple[str, str]]:
    """(where, text) of every label the report, the summary and the console make of ``result``."""
    from lexprobe.report.figures import forests
    from lexprobe.report.html import sample_note
    from lexprobe.tables import Text, to_markdown, to_text

    bench = get(result["benchmark"])
    out = [("banner", "".join(text for text, _ in sample_note(result))),
           ("summary tag", contract.summary_tag(bench, result) or ""),
           ("console", contract.format_result(bench, result))]
    for f in forests([result]):
        out += [("forest", f.title)] + [(f"forest {p.name}", point.label) for p in f.panels for point in p.points]
    for t in contract.tables(bench, [result]):
        out += [("table", to_markdown(t)), ("console table", to_text(t))]
        out += [("table cell", c.text() if isinstance(c, Text) else c) for row in t.rows for c in row
                if isinstance(c, (str, Text))]
    return [(where, text) for where, text in out if text]


def _option_help(result: dict, name: str) -> str:
    fields = {f.name: f for f in spec(get(result["benchmark"]).Config)}
    return fields[name].help if name in fields else ""


def _per_group(result: dict) -> dict[str, int]:
    """Units per set (WSD) or part of speech among the result's instances."""
    counts: dict[str, set] = {}
    for r in result.get("instances") or []:
        unit = r.get("id", r.get("item", r.get("target")))
        counts.setdefault(str(r.get("set") or r.get("pos")), set()).add(unit)
    return {group: len(units) for group, units in counts.items()}


def problems(text: str, result: dict) -> list[str]:
    """Each claim of ``text`` that ``result``'s own record does not bear out, in words."""
    out = []
    model, config, sweep = result["model"], result.get("config") or {}, result.get("sweep")
    for m in re.finditer(r"\b(best )?layer (\d+)(, the last)?", text):
        best, n, last = m.group(1), int(m.group(2)), m.group(3)
        recorded = sweep["best"] if best and sweep else model.get("hidden_states_index")
        if n != recorded:
            out.append(f"{m.group(0)!r}: the result read layer {recorded}")
        if last and model.get("layer") != -1:
            out.append(f"{m.group(0)!r}: the result's layer is {model.get('layer')}, not the last (-1)")
    for m in re.finditer(r"--([a-z][a-z-]+) ([^\s);,]+)", text):
        key = m.group(1).replace("-", "_")
        if key in config and str(config[key]) != m.group(2):
            out.append(f"{m.group(0)!r}: the config records {key} = {config[key]!r}")
    for m in re.finditer(r"\b(first|seeded sample of) (\d+) (\w+) (of each|per) (set|part of speech)", text):
        word, n = m.group(1).split()[0], int(m.group(2))
        help_ = _option_help(result, "limit")
        if word not in help_:
            out.append(f"{m.group(0)!r}: --limit draws otherwise ({help_!r})")
        if config.get("limit") != n:
            out.append(f"{m.group(0)!r}: the config's limit is {config.get('limit')}")
        per = _per_group(result)
        if per and max(per.values()) != n:
            out.append(f"{m.group(0)!r}: the instances hold {per} per {m.group(5)}")
    if "in brackets" in text and not re.search(r"\[-?\d+\.\d+, -?\d+\.\d+\]", text.replace("\u00a0", " ")):
        out.append("announces intervals in brackets and prints none")
    return out


NAMES = ["senserank-layer1", "senserank-sweep", "wsd-layer1", "coda21-first", "wdlmpro-seeded"]


@pytest.mark.parametrize("name", NAMES)
def test_every_label_says_what_the_result_records(labelled, name):
    result = labelled[name]
    found = [f"{where}: {p}" for where, text in labels(result) for p in problems(text, result)]
    assert found == []


@pytest.mark.parametrize("name", ["senserank-layer1", "wsd-layer1"])
def test_the_model_record_holds_the_layer_the_run_asked(labelled, tiny_bert, name):
    """The record at the source: asked at layer 1 of a model loaded at its default (-1), the result says layer 1
    (hidden_states index 1 of the tiny BERT's 0..n), and the labels name layer 1, not the last."""
    import json

    result = labelled[name]
    n_layers = json.loads((Path(tiny_bert) / "config.json").read_text())["num_hidden_layers"]
    assert n_layers > 1 and result["config"]["layer"] == 1
    assert (result["model"]["layer"], result["model"]["hidden_states_index"]) == (1, 1)
    said = " ".join(text for _, text in labels(result))
    assert "layer 1" in said and f"layer {n_layers}" not in said and "the last" not in said


def test_a_sweep_records_its_layers_and_the_best_one_its_metrics_are(labelled):
    result = labelled["senserank-sweep"]
    assert result["model"]["layers"] == [0, 1]
    assert result["model"]["hidden_states_index"] == result["model"]["layer"] == result["sweep"]["best"]
    assert contract.summary_tag(get("senserank"), result) == f"best layer {result['sweep']['best']}"


@pytest.mark.parametrize("name, draw", [
    ("wsd-layer1", "a seeded sample of 2 instances of each set (--limit 2 --seed 1)"),
    ("coda21-first", "the first 1 groups of each part of speech (--limit 1)"),
    ("wdlmpro-seeded", "a seeded sample of 1 groups per part of speech (--limit 1 --seed 2)")])
def test_the_banner_says_the_draw_the_benchmark_made(labelled, name, draw):
    """Each benchmark records its own draw (``Items.draw`` -> ``dataset.draw``), and the banner says it."""
    from lexprobe.report.html import sample_note

    result = labelled[name]
    assert result["dataset"]["draw"] == draw
    assert "".join(text for text, _ in sample_note(result)) == f"ran on {draw}"


def test_a_result_without_its_draw_says_the_options_as_given():
    """A result from before the draw was recorded: its options as given, never read as one benchmark's draw."""
    from lexprobe.report.html import sample_note

    note = "".join(t for t, _ in sample_note({"config": {"limit": 100, "seed": 0}, "dataset": {"name": "ALL"}}))
    assert note == "ran with --limit 100 (part of the data, drawn as the benchmark's option says)"
    assert "first" not in note


def test_a_console_line_under_the_grid_is_named_by_its_rows_name_columns():
    """The position-bias line of a choose table is named by the row's model, setting or part of speech, never
    by a figure or a failure count ("Position bias, Nouns, unparseable 4, unparseable 4:" before)."""
    from lexprobe.tables import Cell, Table, to_text

    table = Table("coda21", "t", ["Model", "Setting", "POS", "Label acc. (%)", "Generation failures",
                                  "Lenient failures", "Position bias"], nowrap=("Setting", "Position bias"))
    table.rows = [["m", "default", pos, Cell(0.1, [0.0, 0.2]), f"unparseable {n}", f"unparseable {n}", f"label: {n}"]
                  for pos, n in (("Nouns", 4), ("Verbs", 5), ("All", 9))]
    lines = [line for line in to_text(table).splitlines() if line.startswith("Position bias")]
    assert lines == ["Position bias, Nouns: label: 4", "Position bias, Verbs: label: 5", "Position bias, All: label: 9"]


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium not installed")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    from scripts.report_screenshots import ARGS

    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()


def test_an_items_group_header_counts_the_group_whatever_the_filter_hides(labelled, result_files, browser,
                                                                          tmp_path):
    """Each group's header says its items and failures as the items page's rows (``contract.failure_rows``)
    hold them, with "failures only" on and off: a 16-item group with 10 right read "6 items, 6 failed"."""
    from lexprobe.report.build import write_report

    paths = [result_files["coda21-gpt2"], result_files["coda21-random"]]
    write_report(paths, tmp_path / "report")
    rows = [row for p in paths for row in contract.failure_rows(get("coda21"), load(p))]
    expected = {}
    for row in rows:
        n, failed = expected.get((row["model"], row["task"]), (0, 0))
        expected[(row["model"], row["task"])] = (n + 1, failed + (not row["ok"]))
    assert any(0 < failed < n for n, failed in expected.values())  # a group with right and wrong items
    page = browser.new_page()
    page.goto((tmp_path / "report" / "coda21.html").as_uri())
    for failures_only in (True, False):
        page.set_checked("#failures", failures_only)
        headers = page.eval_on_selector_all("details.group > summary", "s => s.map(e => e.textContent)")
        assert headers
        for text in headers:
            m = re.fullmatch(r"(.+) · data (.+): (\d+) items?, (\d+) failed(?: \((\d+) shown: failures only\))?", text)
            assert m, text
            n, failed = expected[(m.group(1), m.group(2))]
            assert (int(m.group(3)), int(m.group(4))) == (n, failed), text
            assert int(m.group(5) or n) == (failed if failures_only else n), text
    page.close()
