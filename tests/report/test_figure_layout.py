"""Issue #29: every figure the report and the `plot` commands write keeps its text apart.

Each figure kind is drawn from made-up results at the extremes (long names, 100% bars, one bar, many
bars, many panels) through the same functions the report and `lexprobe wdlmpro plot` call; the
figure is then drawn at the dpi it was saved with and no two texts (tick labels, titles, axis labels,
legends, "n=" labels) may intersect, none may leave the figure, and no legend may sit on a plot.
"""

from __future__ import annotations

import pytest

from tests.report.figlayout import collisions, saved_figures

LONG = "a-remarkably-long-model-name/with-a-revision-suffix-and-more-words-v2.1-instruct-q4"


def _bands(names, p1, n=7):
    return {b: {"n": n, "p_at_1": p1, "random_p_at_1": 0.1, "rank_score": 0.5, "mean_candidates": 9.0}
            for b in names}


def _wdlmpro(tasks, poses, bands, p1, name="m"):
    breakdowns = {t: {panel: {pos: _bands(names, p1, n=1234 if i else 7) for i, pos in enumerate(poses)}
                      for panel, names in bands.items()} for t in tasks}
    return {"tasks": list(tasks), "breakdowns": breakdowns, "model": {"name": name}, "config": {}}


WDLMPRO_CASES = {
    "two tasks, two POS, 100% bars": _wdlmpro(("w2d", "d2w"), ("n", "v"), {
        "frequency": ["rare", "medium", "frequent"], "depth": ["1-3", "4-6", "7-9", "10+"],
        "word_tokens": ["1", "2", "3", "4+"]}, 1.0, LONG),
    "many bands": _wdlmpro(("w2d",), ("n", "v"), {
        "frequency": ["rare", "medium", "frequent"], "depth": [str(d) for d in range(1, 20)],
        "word_tokens": [str(k) for k in range(1, 13)]}, 1.0),
    "one bar": _wdlmpro(("d2w",), ("n",), {"depth": ["5"]}, 1.0),
    "zero bars": _wdlmpro(("w2d",), ("v",), {"frequency": ["rare", "medium", "frequent"]}, 0.0),
}


@pytest.mark.parametrize("case", list(WDLMPRO_CASES))
def test_wdlmpro_breakdowns_keep_text_apart(case, tmp_path):
    from lexprobe.benchmarks.wdlmpro.plot import plot_breakdowns

    with saved_figures() as saved:
        plot_breakdowns(WDLMPRO_CASES[case], tmp_path / "b.png")
    assert [c for fig, dpi in saved for c in collisions(fig, dpi)] == []


def test_wdlmpro_plot_command_keeps_text_apart(tmp_path):
    """`lexprobe wdlmpro plot` draws through the same function, at the size it writes."""
    import json

    from lexprobe.cli import main

    result = dict(WDLMPRO_CASES["two tasks, two POS, 100% bars"], schema_version=2, benchmark="wdlmpro",
                  method="likelihood", recipe="paper", readings=[], baselines={}, counts={}, skipped=[],
                  metrics={t: {"all": {"n": 7, "p_at_1": 1.0}} for t in ("w2d", "d2w")})
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result))
    with saved_figures() as saved:
        assert main(["wdlmpro", "plot", "--result", str(path), "--out", str(tmp_path / "p.png")]) == 0
    assert len(saved) == 1 and collisions(*saved[0]) == []


def _group(k, names, right=True):
    import numpy as np

    scores = np.random.default_rng(k).normal(size=(k, k)) * 1e3
    pairs = [[i, i if right else (i + 1) % k] for i in range(k)]
    return {"id": f"n/{k}", "ancestor": "entity.n.01", "scores": scores.tolist(), "predicted_pairs": pairs,
            "synsets": names}


HEATMAP_CASES = {
    "long synset names": _group(6, [f"extraordinarily_long_compound_lemma_name_number_{i}.n.01" for i in range(6)]),
    "two rows": _group(2, ["a.n.01", "b.n.02"], right=False),
    "ten rows": _group(10, [f"word{i}.v.0{i % 9 + 1}" for i in range(10)]),
}


@pytest.mark.parametrize("case", list(HEATMAP_CASES))
def test_coda21_heatmap_keeps_text_apart(case, tmp_path):
    from lexprobe.benchmarks.coda21.plot import draw_heatmap

    with saved_figures() as saved:
        draw_heatmap(HEATMAP_CASES[case], tmp_path / "h.png")
    # the score printed in each cell is inside its cell; the labels around the map must not touch
    assert [c for fig, dpi in saved for c in collisions(fig, dpi)] == []


def _senserank(buckets, name="m"):
    import numpy as np

    k = np.arange(1, 51)
    curve = {"model": (1 / k).tolist(), "random": [0.2] * 50, "oracle": [1.0] * 50}
    slices = {b: {"n": 10 + i, "pooled": 0.3} for i, b in enumerate(buckets)} | {"all": {"n": 999, "pooled": 0.3}}
    return {"tasks": ["semcor"], "model": {"name": name}, "config": {},
            "metrics": {"semcor": slices},
            "breakdowns": {"semcor": {"curves": {b: curve for b in list(buckets) + ["all"]}}}}


SENSERANK_CASES = {
    "four buckets, long name": _senserank(["l<500 r<0.25", "l<500 0.25<=r<1", "l>=500 r<0.25", "l>=500 0.25<=r<1"],
                                          LONG),
    "only all": _senserank([]),
    "eight buckets": _senserank([f"l<{e} r<0.{d}" for e in (10, 100, 1000, 10000) for d in (2, 5)]),
}


@pytest.mark.parametrize("case", list(SENSERANK_CASES))
def test_senserank_curves_keep_text_apart(case, tmp_path):
    from lexprobe.benchmarks.senserank.plot import save_curves_plot

    with saved_figures() as saved:
        save_curves_plot(SENSERANK_CASES[case], tmp_path / "c.png")
    assert [c for fig, dpi in saved for c in collisions(fig, dpi)] == []


@pytest.mark.parametrize("layers", [1, 33])
def test_senserank_layer_sweep_keeps_text_apart(layers, tmp_path):
    from lexprobe.benchmarks.senserank.plot import plot_sweep

    block = {"metrics": {"semcor": {"all": {"n": 5, "pooled": 0.4, "map": 0.5}}},
             "baselines": {"random": {"semcor": {"all": {"pooled": 0.2}}}, "oracle": {"semcor": {"all": {"pooled": 0.9}}}}}
    result = {"tasks": ["semcor"], "model": {"name": LONG},
              "sweep": {"parameter": "layer", "values": {str(i): block for i in range(layers)}, "best": 0}}
    with saved_figures() as saved:
        plot_sweep(result, tmp_path / "s.png")
    assert [c for fig, dpi in saved for c in collisions(fig, dpi)] == []


def test_the_check_finds_overlaps(tmp_path):
    """The check itself: two texts on one spot, a text off the figure, a legend on the plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1], label="line")
    ax.legend()
    ax.text(0.5, 0.5, "first text")
    ax.text(0.5, 0.5, "second text")
    fig.text(0.95, 0.5, "runs off the edge of the figure")
    with saved_figures() as saved:
        fig.savefig(tmp_path / "x.png", dpi=100)
    found = collisions(*saved[0])
    assert any("overlaps" in c for c in found)
    assert any("leaves the figure" in c for c in found)
    assert any("legend" in c for c in found)
    plt.close(fig)
