"""The report's own figures (``lexprobe.report.figures``, #48 item 5) hold the numbers of the results they are
drawn from: a forest plot's dots and intervals are the results' metrics and ``ci`` (and what is drawn is what
the data says, read back from the figure's marks by their ``gid``), WSD's breakdown lines are its
``breakdowns`` and baselines, position bias bars are the recorded counts over the answers, CoDA21's
accuracy by k is ``by_k``, the slope chart's ends are the results' scores on the items both have; hand-computed
cases beside; no text of any of them touches another; the report shows them (forest first, the tables folded
under it) and WSD's methods on the same items share one table with intervals and flags."""

from __future__ import annotations

import re

import pytest

from lexprobe.core.registry import get
from lexprobe.core.result_schema import load
from lexprobe.report import figures as fg
from tests.report.figlayout import collisions


@pytest.fixture(scope="module")
def wsd_files(tmp_path_factory):
    """WSD on the same five instances by likelihood (a backend of continuations only), by the random scorer and
    asked to choose (a backend that always answers "1")."""
    from lexprobe.benchmarks.wsd.config import WsdChooseOptions, WsdConfig
    from lexprobe.core.evaluate import evaluate
    from lexprobe.models import load_scorer
    from tests.data.test_wsd import write_pair
    from tests.standins.continuation import ContinuationOnly
    from tests.standins.generation import GenerateOnly

    folder = tmp_path_factory.mktemp("wsd-figures")
    data = str(write_pair(folder / "data", name="mini"))
    out = {}
    for name, scorer, config in (
            ("likelihood", ContinuationOnly(), WsdConfig(data=data)),
            ("random", load_scorer("random"), WsdConfig(data=data)),
            ("choose", GenerateOnly(), WsdConfig(data=data, method="choose",
                                                 choose=WsdChooseOptions(reading="generation")))):
        evaluate("wsd", scorer, config, folder / f"wsd-{name}.json", progress=False)
        out[name] = folder / f"wsd-{name}.json"
    return out


@pytest.fixture(scope="module")
def results(every_kind_of_result, llm_files, wsd_files) -> list[dict]:
    paths = list(every_kind_of_result) + [llm_files["wdl-paper"], llm_files["coda-paper"]] + list(wsd_files.values())
    return [load(p) for p in paths]


def _marks(fig, gid: str) -> list:
    return [a for ax in fig.axes for a in ax.get_children() if getattr(a, "get_gid", lambda: None)() == gid]


def test_every_forest_point_is_a_metric_and_its_interval(results):
    """Each model's row of each panel is its result's main score in the panel's task and slice, with its
    interval, and the random baseline of its own items."""
    forests = fg.forests(results)
    assert {f.benchmark for f in forests} == {"wdlmpro", "coda21", "senserank", "wsd"}
    expected = {}
    for r in results:
        if r.get("sweep"):
            continue
        main = get(r["benchmark"]).meta.main_score
        for task, slices in r["metrics"].items():
            for slice_, m in slices.items():
                rnd = ((r["baselines"].get("random") or {}).get(task) or {}).get(slice_) or {}
                for reading in fg.readings(r):
                    key = f"{reading}.{main}" if reading else main
                    if m.get(key) is not None:
                        expected.setdefault((r["benchmark"], task, slice_, fg.row_label(r, reading)), []).append(
                            (m[key], tuple(m["ci"][key]) if m["ci"].get(key) else None, rnd.get(main)))
    seen = 0
    for forest in forests:
        for panel in forest.panels:
            for p in panel.points:
                if p.kind == "model":
                    label = re.sub(r" \([^()]*\.json\)", "", p.label)  # (a model twice: the file named)
                    found = expected[(forest.benchmark, forest.task, panel.slice, label)]
                    assert (p.value, p.ci, p.chance) in found, p
                    seen += 1
    assert seen >= 20


def test_a_forest_by_hand_and_as_drawn():
    """Two results on one set of items: a model's row at its figure and interval, flagged at chance where its
    interval reaches the random baseline; the baselines' rows; the drawing's marks at those values (x100)."""
    def result(name, p1, ci, path):
        return {"benchmark": "wdlmpro", "method": "likelihood", "recipe": "paper", "model": {"name": name},
                "tasks": ["w2d"], "readings": [], "_path": path, "run": {"items_digest": "d1"},
                "metrics": {"w2d": {"n": {"p_at_1": p1, "n": 4, "ci": {"p_at_1": ci}},
                                    "all": {"p_at_1": p1, "n": 4, "ci": {"p_at_1": ci}}}},
                "baselines": {"random": {"w2d": {"n": {"p_at_1": 0.25, "ci": {"p_at_1": [0.2, 0.3]}},
                                                 "all": {"p_at_1": 0.25, "ci": {"p_at_1": [0.2, 0.3]}}}}}}

    forest, = fg.forests([result("good", 0.75, [0.5, 1.0], "a.json"), result("bad", 0.25, [0.0, 0.5], "b.json")])
    assert forest.title == "WDLMPro, W2D" and forest.metric == "P@1"
    assert [p.name for p in forest.panels] == ["Nouns", "All"]
    rows = forest.panels[1].points
    assert [(p.label, p.value, p.ci, p.kind, p.flags) for p in rows] == [
        ("good · likelihood", 0.75, (0.5, 1.0), "model", ()),
        ("bad · likelihood", 0.25, (0.0, 0.5), "model", ("chance",)),
        ("random", 0.25, (0.2, 0.3), "random", ())]
    fig = fg.forest_figure(forest)
    (dot,) = [m for m in _marks(fig, "good · likelihood") if m.axes is fig.axes[1]]
    assert list(dot.get_xdata()) == [75.0]
    (line,) = [m for m in _marks(fig, "good · likelihood ci") if m.axes is fig.axes[1]]
    assert line.get_segments()[0][:, 0].tolist() == [50.0, 100.0]
    (hollow,) = [m for m in _marks(fig, "bad · likelihood") if m.axes is fig.axes[1]]
    assert hollow.get_markerfacecolor() == "white"  # at chance: drawn hollow, and its label says ⚠
    assert any(t.get_text().endswith("⚠") for t in fig.axes[1].get_yticklabels())
    assert collisions(fig, 120) == []


def test_wsd_breakdowns_are_the_results_breakdowns_and_baselines(results):
    data = fg.wsd_breakdowns(results)
    wsd = [r for r in results if r["benchmark"] == "wsd" and r["breakdowns"].get("wsd", {}).get("senses")]
    assert len(data) == 1 and len(wsd) == 2  # likelihood and random on the same instances: one figure
    (senses_title, senses), (_, first) = data[0].panels
    for r in wsd:
        line, = [s for s in senses if s.label == fg.row_label(r, None)]
        block = r["breakdowns"]["wsd"]["senses"]
        assert line.x == tuple(block) and line.y == tuple(b["model"]["f1"] for b in block.values())
        assert line.ci == tuple(tuple(b["model"]["ci"]["f1"]) for b in block.values())
        mfs_lfs, = [s for s in first if s.label == fg.row_label(r, None)]
        assert dict(zip(mfs_lfs.x, mfs_lfs.y)) == {k: v["model"]["f1"] for k, v in r["breakdowns"]["wsd"]["first_sense"].items()}
    baseline, = [s for s in first if s.kind == "first_sense"]
    assert dict(zip(baseline.x, baseline.y)).get("LFS") in (None, 0.0)  # the first sense is never right on LFS
    assert data[0].lines == (("first_sense", "WordNet first sense, all instances",
                              wsd[0]["baselines"]["first_sense"]["wsd"]["all"]["f1"]),)  # (no SemCor here: no MFS)
    fig = fg.breakdown_figure(data[0])
    x0 = data[0].panels[0][1][0].x[0]
    dot, = _marks(fig, f"{senses[0].label} @ {x0}")
    assert dot.get_ydata()[0] == pytest.approx(100 * senses[0].y[0])
    assert collisions(fig, 120) == []


def test_position_bars_are_the_shares_of_the_recorded_answers():
    """By hand: 4 answers, 3 at position 1 and one not read; gold at 1 and at 3 (position 2 drawn too)."""
    result = {"benchmark": "wdlmpro", "method": "choose", "recipe": "paper", "model": {"name": "m"},
              "tasks": ["w2d"], "readings": ["generation"],
              "breakdowns": {"w2d": {"position_bias": {"all": {"generation": {
                  "n": 4, "chosen": {"1": 3, "none": 1}, "gold": {"1": 2, "3": 2}}}}}}}
    bars, = fg.position_bars([result])
    assert bars.positions == ("1", "2", "3", "none")
    assert bars.readings == (("generation", (0.75, 0.0, 0.0, 0.25), (0.5, 0.0, 0.5, 0.0), 4),)
    fig = fg.bars_figure(bars)
    assert [m.get_height() for m in _marks(fig, "generation chosen @ 1")] == [75.0]
    assert [m.get_height() for m in _marks(fig, "generation gold @ 3")] == [50.0]
    assert collisions(fig, 120) == []


def test_coda21_accuracy_by_k_is_by_k(results):
    data = fg.coda_by_k(results)
    coda = [r for r in results if r["benchmark"] == "coda21" and r["breakdowns"].get("alignment", {}).get("by_k")]
    assert data and coda
    for panel in data:
        (_, series), = panel.panels
        for s in series:
            if s.kind == "random":
                assert all(y == pytest.approx(1 / int(k)) for k, y in zip(s.x, s.y))
                continue
            r, = [r for r in coda if fg.row_label(r, None) == s.label]
            by_k = r["breakdowns"]["alignment"]["by_k"]
            assert {k: y for k, y in zip(s.x, s.y) if y is not None} == {k: v["accuracy"] for k, v in by_k.items()}
        assert collisions(fg.breakdown_figure(panel), 120) == []


def test_the_slope_chart_joins_likelihood_and_choose_on_the_same_items(llm_files):
    """The tiny Llama's likelihood and choose runs on the same WDLMPro items: each end is the result's own score
    (a mean over the items, every item in both)."""
    plain, chose = load(llm_files["wdl-paper"]), load(llm_files["wdl-choose-a"])
    charts = fg.slopes([plain, chose])
    assert {c.title.split(":")[0] for c in charts} == {"WDLMPro, W2D", "WDLMPro, D2W"}
    for chart in charts:
        task = chart.title.split(":")[0][-3:].lower()
        line, = chart.lines
        assert line.n == plain["metrics"][task]["all"]["n"]
        expected = [plain["metrics"][task]["all"]["p_at_1"]] + [chose["metrics"][task]["all"][f"{g}.p_at_1"]
                                                                for g in chose["readings"]]
        assert list(line.y) == pytest.approx(expected)
        assert line.x[0] == "likelihood" and len(line.x) == 1 + len(chose["readings"])
        fig = fg.slope_figure(chart)
        assert [m.get_ydata()[0] for m in _marks(fig, f"{line.label} @ likelihood")] == pytest.approx([100 * expected[0]])
        assert collisions(fig, 120) == []


def test_no_figure_of_real_shapes_has_touching_text(results):
    for forest in fg.forests(results):
        assert collisions(fg.forest_figure(forest), 120) == [], forest.title
    for bars in fg.position_bars(results):
        assert collisions(fg.bars_figure(bars), 120) == [], bars.title


def test_the_report_shows_the_figures_and_one_wsd_table_of_every_method(results, wsd_files, every_kind_of_result,
                                                                        tmp_path):
    from lexprobe.report.build import write_report
    from tests.report.htmltables import read_page

    index = write_report(list(every_kind_of_result) + list(wsd_files.values()), tmp_path / "report")
    html = index.read_text(encoding="utf-8")
    for bench in ("wdlmpro", "coda21", "senserank", "wsd"):
        section = html.split(f"<h2 id='{bench}'>")[1].split("<h2 ")[0]
        # the forest plot first, the tables folded under it
        assert section.index("<figure class='forest'>") < section.index("<details class='tables'>") < \
            section.index("<table class='results'")
    wsd = {caption: rows for caption, rows in read_page(html).tables.items() if caption.startswith("All-words WSD")}
    assert len(wsd) == 1  # likelihood, random and choose on the same instances: one table
    (caption, rows), = wsd.items()
    methods = [row[1][0] for row in rows[1:]]
    assert {"likelihood", "choose, generation", "baseline"} <= set(methods)
    cells = [c for row in rows[1:] for c in row if "data-lo" in c[1]]
    assert cells and all("[" in text for text, _ in cells)  # every figure with its interval
    assert any("flag-chance" in attrs.get("class", "") for row in rows for _, attrs in row)  # the random run's


def test_the_coda21_heatmap_has_its_column_centred_map_beside_it(tmp_path):
    """By hand: [[1, 4], [3, 8]] less its column means (2, 6) is [[-1, -2], [1, 2]]; the raw map as it was."""
    from lexprobe.benchmarks.coda21.plot import draw_heatmap
    from tests.report.figlayout import saved_figures

    group = {"id": "n/0", "ancestor": "entity.n.01", "scores": [[1.0, 4.0], [3.0, 8.0]],
             "predicted_pairs": [[0, 1], [1, 0]], "synsets": ["a.n.01", "b.n.01"]}
    with saved_figures() as saved:
        draw_heatmap(group, tmp_path / "h.png", centred=True)
    (fig, dpi), = saved
    maps = [ax.get_images()[0].get_array().tolist() for ax in fig.axes if ax.get_images()]
    assert maps == [[[1.0, 4.0], [3.0, 8.0]], [[-1.0, -2.0], [1.0, 2.0]]]
    assert collisions(fig, dpi) == []
