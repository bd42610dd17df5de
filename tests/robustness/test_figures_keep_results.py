"""Issue #33 D1 and item 5: nothing computed is lost to presentation.

The model name went into matplotlib titles unescaped, so a name with ``$...$`` (a folder, a server's model id)
was parsed as mathtext; an invalid one raised after every unit was scored and before the result was written,
and every rerun failed at the same point. Now the result file is written before any figure, a figure that fails
is a warning naming it (the result stays, exit 0), and every text reaches matplotlib as plain text in one place
(``reporting.save_figure``, which every plot module uses).

``test_D1_a_model_folder_named_like_mathtext_loses_nothing`` fails on the code before the change (a
``ValueError`` traceback from mathtext, no r.json); ``test_a_figure_that_fails_is_a_warning_after_the_result``
too (the figure was drawn before the result was written, and its error lost the result).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.human.helpers import wdlmpro_data
from tests.robustness import run_cli

MATHTEXT_NAME = r"m$\frac{1}{$"  # an invalid mathtext expression: matplotlib raised on it


def _png(path: Path) -> bool:
    return path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def wresult(tmp_path_factory) -> Path:
    """A small WDLMPro likelihood result (random scorer) whose model name is ``MATHTEXT_NAME``."""
    from lexprobe.cli import main

    folder = tmp_path_factory.mktemp("wresult")
    out = folder / "w.json"
    assert main(["wdlmpro", "eval", "--data", str(wdlmpro_data(folder)), "--model", "random", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    result["model"]["name"] = MATHTEXT_NAME
    result["run"]["model"] = MATHTEXT_NAME
    out.write_text(json.dumps(result))
    return out


def test_D1_a_model_folder_named_like_mathtext_loses_nothing(tiny_llama, tmp_path, capsys):
    """The issue's repro: a tiny model in a folder named ``m$\\frac{1}{$``; the result and its figure are written."""
    model = tmp_path / MATHTEXT_NAME
    shutil.copytree(tiny_llama, model)
    out = tmp_path / "r.json"
    code, err = run_cli(["wdlmpro", "eval", "--model", model, "--limit", "1", "--pos", "v", "--out", out], capsys)
    assert code == 0, err
    result = json.loads(out.read_text())
    assert MATHTEXT_NAME in result["model"]["name"] and result["metrics"]["w2d"]["all"]["n"] == 1
    assert result["plot"] == str(out.with_suffix(".png")) and _png(out.with_suffix(".png"))
    assert "warning" not in err


def test_a_figure_that_fails_is_a_warning_after_the_result(tmp_path, capsys, monkeypatch):
    """Any figure error (here the plot function raising): the result file was already on disk when the figure
    was drawn, the error is one warning line naming the figure, the result keeps no ``plot``, exit 0."""
    from lexprobe.benchmarks.wdlmpro import plot

    out = tmp_path / "r.json"
    seen = []

    def failing(result, path):
        seen.append(json.loads(out.read_text())["benchmark"])  # the result is written before any figure
        raise ValueError("the figure cannot be drawn")

    monkeypatch.setattr(plot, "plot_breakdowns", failing)
    code, err = run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path), "--out", out],
                        capsys)
    assert code == 0, err
    assert seen == ["wdlmpro"]
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and str(out.with_suffix(".png")) in warnings[0], err
    assert "the figure cannot be drawn" in warnings[0] and "Traceback" not in err
    result = json.loads(out.read_text())
    assert "plot" not in result and result["instances"] and not out.with_suffix(".png").exists()
    assert not Path(f"{out}.partial.jsonl").exists()  # the result is complete: its resume log is gone


def test_the_plot_command_draws_a_mathtext_name_as_written(wresult, tmp_path, capsys):
    out = tmp_path / "p.png"
    code, err = run_cli(["wdlmpro", "plot", "--result", wresult, "--out", out], capsys)
    assert code == 0 and _png(out), err


def test_the_report_draws_a_mathtext_name_as_written(wresult, tmp_path, capsys, caplog):
    code, err = run_cli(["report", wresult, "--out", tmp_path / "rep"], capsys)
    assert code == 0, err
    assert "no figure" not in caplog.text and "no figure" not in err
    figures = list((tmp_path / "rep" / "figures").glob("*.png"))
    assert len(figures) >= 1 and all(_png(f) for f in figures)  # the result's figure and the report's own


def test_a_heatmap_with_mathtext_labels_and_title_is_drawn(tmp_path):
    """Tick labels (synset names) and the title, not only a model name: every text of the figure is plain."""
    from lexprobe.benchmarks.coda21.plot import draw_heatmap

    instance = {"id": "n/$0$", "scores": [[0.9, 0.1], [0.2, 0.8]], "predicted_pairs": [[0, 0], [1, 1]],
                "synsets": [r"a$\frac{1}{$.n.01", r"b$\sqrt{$.n.02"], "ancestor": r"$\alpha"}
    out = draw_heatmap(instance, tmp_path / "h.png")
    assert _png(out)
    draw_heatmap(instance, tmp_path / "t.png", title=r"$\frac{")
    assert _png(tmp_path / "t.png")


def test_save_figure_draws_dollars_literally_and_leaves_other_figures_alone(tmp_path):
    """The text is shown as written (``$x$`` stays ``$x$``, not an italic x), and the plain-text setting does not
    leak into figures drawn outside ``save_figure``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lexprobe.reporting import save_figure

    fig, ax = plt.subplots()
    title = ax.set_title(r"$x$ and m$\frac{1}{$")
    ax.set_xticks([0, 1], [r"$\frac{", "b"])
    save_figure(fig, tmp_path / "f.png")
    assert _png(tmp_path / "f.png") and title.get_parse_math() is False
    assert matplotlib.rcParams["text.parse_math"] is True
    other, ax = plt.subplots()
    assert ax.set_title("$x$").get_parse_math() is True
    plt.close(other)
