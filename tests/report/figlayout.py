"""Text that a saved matplotlib figure draws, and where it collides: the check of issue #29's figures.

``saved_figures()`` records every figure saved inside it; ``collisions(fig, dpi)`` draws the figure
at the dpi it was saved with and returns, in words, every pair of drawn texts (tick labels, titles,
axis labels, legends, annotations) whose boxes intersect, every text not wholly inside the
figure, and every figure-level legend that covers an axes.
"""

from __future__ import annotations

import contextlib
from unittest import mock

#: boxes may touch: an intersection under this many pixels each way is not an overlap
TOLERANCE = 1.0


@contextlib.contextmanager
def saved_figures():
    """[(figure, dpi)] of every ``Figure.savefig`` call inside the block."""
    from matplotlib.figure import Figure

    saved: list = []
    original = Figure.savefig

    def savefig(self, *args, **kwargs):
        saved.append((self, kwargs.get("dpi") or self.dpi))
        return original(self, *args, **kwargs)

    with mock.patch.object(Figure, "savefig", savefig):
        yield saved


def drawn_texts(fig, dpi: float) -> list:
    """(text, window extent) of each non-empty Text the figure draws at ``dpi``."""
    import matplotlib.text as mtext

    drawn = []
    original = mtext.Text.draw

    def draw(self, renderer):
        original(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn.append((self, self.get_window_extent(renderer)))

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)  # a closed figure (pyplot.close) has lost its drawing canvas
    fig.set_dpi(dpi)
    with mock.patch.object(mtext.Text, "draw", draw):
        fig.canvas.draw()
    return drawn


def _intersect(a, b) -> bool:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w > TOLERANCE and h > TOLERANCE


def collisions(fig, dpi: float) -> list[str]:
    texts = drawn_texts(fig, dpi)
    assert texts, "the figure drew no text at all"
    frame = fig.bbox
    out = []
    for i, (t, box) in enumerate(texts):
        if box.x0 < frame.x0 - TOLERANCE or box.y0 < frame.y0 - TOLERANCE or box.x1 > frame.x1 + TOLERANCE \
                or box.y1 > frame.y1 + TOLERANCE:
            out.append(f"{t.get_text()!r} leaves the figure ({box.bounds} in {frame.bounds})")
        for u, other in texts[i + 1:]:
            if _intersect(box, other):
                out.append(f"{t.get_text()!r} overlaps {u.get_text()!r}")
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            out.append(f"a legend inside the axes {ax.get_title()!r} may cover what it plots")
    for legend in fig.legends:
        for ax in fig.axes:
            if ax.get_visible() and ax.axison and _intersect(legend.get_window_extent(renderer),
                                                            ax.get_window_extent(renderer)):
                out.append(f"a legend covers the axes {ax.get_title()!r}")
    return out
