"""Layer sweeps for sense ranking: the paper's metric at every layer, from one forward pass.

``--layers all`` (or a list such as ``0,4,8-12,-1``) embeds every target once with all
the requested hidden states (``TokenEmbedder.embed_layers``), then runs the ordinary
evaluation (``evaluate.evaluate``) once per layer on those vectors: each layer's figures
are exactly those of a single run with ``--layer L``. Works for encoders and decoder
LMs alike (see docs/llm.md for what a decoder's token vector means). Layer numbers are
``hidden_states`` indices: 0 = embedding layer, n = last block.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Sequence

from lexprobe.errors import LexprobeError
from lexprobe.scorers.base import EmbeddedTargets


def parse_layers(text: str) -> list[int] | str:
    """``all``, or comma-separated indices and ranges (``0,3,8-12,-1``) -> ints in the order given."""
    if text.strip() == "all":
        return "all"
    out: list[int] = []
    try:
        for piece in text.split(","):
            piece = piece.strip()
            if "-" in piece[1:]:  # a range a-b (a leading minus is a negative index)
                cut = piece.index("-", 1)
                lo, hi = int(piece[:cut]), int(piece[cut + 1:])
                if hi < lo:
                    raise ValueError
                out.extend(range(lo, hi + 1))
            else:
                out.append(int(piece))
    except ValueError:
        raise LexprobeError(f"--layers {text!r}: use `all` or indices and ranges like 0,4,8-12,-1") from None
    return out


class _LayerView:
    """An embedder for ``evaluate`` that serves one layer of vectors computed for all layers at once."""

    def __init__(self, embedder, layers: Sequence[int]):
        self.embedder = embedder
        self.layers = list(layers)
        self.current = self.layers[0]
        self._key: tuple | None = None
        self._all: Any = None

    def embed(self, instances, progress: bool = True) -> EmbeddedTargets:
        key = tuple(i.sentence_key + (i.index,) for i in instances)
        if key != self._key:
            self._all = self.embedder.embed_layers(instances, self.layers, progress=progress)
            self._key = key
        return self._all.layer(self.current)

    def describe(self) -> dict:
        d = dict(self.embedder.describe())
        d.update(layer=self.current, hidden_states_index=self.current)
        return d


def sweep(cfg, layers: Sequence[int] | str, instances=None, embedder=None, progress: bool = True) -> dict:
    """Evaluate ``cfg`` at each layer through ``benchmarks.evaluate`` (a schema-2 result with ``sweep``)."""
    from lexprobe.benchmarks.evaluate import evaluate
    from lexprobe.benchmarks.senserank.config import SenseConfig

    spec = layers if isinstance(layers, str) else ",".join(str(x) for x in layers)
    if embedder is None:
        from lexprobe.models import load_scorer

        embedder = load_scorer(cfg.model, device=cfg.device, dtype=cfg.dtype, batch_size=cfg.batch_size,
                               prefer="token")
    if instances is None:
        from lexprobe.data.corpora import load_corpus

        instances = load_corpus(cfg.corpus, cfg.path, seed=cfg.seed)
    result = evaluate("senserank", embedder, SenseConfig.from_engine(cfg, layers=spec), items=instances,
                      progress=progress)
    if result is None:
        raise LexprobeError("a layer sweep runs in one process; start it without torchrun")
    return result


def sweep_legacy(cfg, layers: Sequence[int] | str, instances, embedder, progress: bool = True, key=None) -> dict:
    """The sweep as one schema-1 summary: ``evaluate._evaluate`` per layer on vectors of one pass."""
    from lexprobe.benchmarks.senserank.evaluate import _evaluate

    t0 = time.time()
    if isinstance(layers, str):
        layers = parse_layers(layers)
    wanted = range(embedder.n_layers + 1) if layers == "all" else layers
    indices = list(dict.fromkeys(embedder.layer_index(x) for x in wanted))
    view = _LayerView(embedder, indices)
    per_layer = {}
    for layer in indices:
        view.current = layer
        result = _evaluate(replace(cfg, layer=layer), instances, view, progress and layer == indices[0], None)
        assert result is not None  # one process (checked by the method)
        per_layer[layer] = result
    first = per_layer[indices[0]]
    best = max(indices, key=lambda x: (per_layer[x]["metrics"].get("pooled") or 0.0, -x))
    return {
        "_items": first["_items"],
        "benchmark": "senserank",
        "task": cfg.corpus,
        "model": first["model"],
        "config": dict(first["config"], layer=None, layers=indices),
        "layers": {str(x): {"metrics": r["metrics"], "breakdowns": {"buckets": r["breakdowns"]["buckets"]}}
                   for x, r in per_layer.items()},
        "best_layer": best,
        "counts": first["counts"],
        "timing": {"total_s": round(time.time() - t0, 2)},
    }


from lexprobe.benchmarks.senserank.report import format_sweep, plot_sweep  # noqa: E402,F401  (former home)
