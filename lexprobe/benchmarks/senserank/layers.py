"""Layer sweeps for sense ranking: the paper's metric at every layer, from one forward pass.

``--layers all`` (or a list such as ``0,4,8-12,-1``) embeds every target once with all
the requested hidden states, then runs the ordinary evaluation (``evaluate._evaluate``)
once per layer on those vectors: each layer's figures are exactly those of a single run
with ``--layer L``. Works for encoders and decoder LMs alike (see docs/llm.md for what a
decoder's token vector means). Layer numbers are ``hidden_states`` indices: 0 =
embedding layer, n = last block.

Resumable as a single run is: the vectors of all swept layers go to one embedding store
beside the output (``<out>.embeddings/``, rows ``[layers, dim]``), appended every
``4 x batch size`` sentences, and each layer's lemma rankings to its own resume log
(``<out>.layer<L>.partial.jsonl``, 64 lemmas at a time). Ctrl-C keeps both; a rerun
embeds and ranks only what is missing. ``clean_sweep`` removes them once the result
is written.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from lexprobe.errors import LexprobeError


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


class _AllLayers:
    """An embedder for ``evaluate._evaluate`` whose vectors hold every swept layer (one store row per target).

    Its description names the layer list, not one layer, so every layer's evaluation finds
    the same store; everything else is the wrapped embedder's.
    """

    def __init__(self, embedder, layers: Sequence[int]):
        self._embedder = embedder
        self.layers = list(layers)

    def __getattr__(self, name):
        return getattr(self._embedder, name)

    def encode_jobs(self, jobs, layers=None):
        return self._embedder.encode_jobs(jobs, self.layers)

    def describe(self) -> dict:
        d = {k: v for k, v in self._embedder.describe().items() if k not in ("layer", "hidden_states_index")}
        return dict(d, layers=self.layers)


def _stage(layer: int) -> str:
    return f"layer{layer}"


def sweep(cfg, layers: Sequence[int] | str, instances=None, embedder=None, progress: bool = True,
          out: str | Path | None = None) -> dict | None:
    """Evaluate ``cfg`` at each layer; returns one result with the metrics per layer.

    With ``out`` the store and the per-layer logs sit beside it (and stay until
    ``clean_sweep``); without, in a temporary folder. Under torchrun rank 0 gets the
    result, the other ranks None.
    """
    from lexprobe.benchmarks.senserank.evaluate import _evaluate
    from lexprobe.distributed import context

    t0 = time.time()
    if out is None and context().enabled:
        raise LexprobeError("a distributed layer sweep needs --out on a filesystem every rank sees")
    if instances is None:
        from lexprobe.data.corpora import load_corpus

        instances = load_corpus(cfg.corpus, cfg.path, seed=cfg.seed)
    if embedder is None:
        from lexprobe.scorers.token_embeddings import TokenEmbedder

        embedder = TokenEmbedder(cfg.model, layer=-1, device=cfg.device, batch_size=cfg.batch_size, dtype=cfg.dtype)
    wanted = range(embedder.n_layers + 1) if layers == "all" else layers
    indices = list(dict.fromkeys(embedder.layer_index(x) for x in wanted))
    view = _AllLayers(embedder, indices)
    chunk = 4 * int(getattr(embedder, "batch_size", 32) or 32)
    per_layer = {}
    with tempfile.TemporaryDirectory(prefix="lexprobe-sweep-") as tmp:
        base = Path(out) if out is not None else Path(tmp) / "sweep.json"
        for row, layer in enumerate(indices):
            per_layer[layer] = _evaluate(replace(cfg, layer=layer), instances, view, progress and row == 0, base,
                                         store_row=row, log_stage=_stage(layer), store_chunk=chunk)
            if per_layer[layer] is None:  # another rank than 0
                return None
    first = per_layer[indices[0]]
    best = max(indices, key=lambda x: (per_layer[x]["metrics"].get("pooled") or 0.0, -x))
    return {
        "benchmark": "senserank",
        "task": cfg.corpus,
        "model": first["model"],
        "config": dict(first["config"], layer=None, layers=indices,
                       embedder={k: v for k, v in embedder.describe().items()
                                 if k not in ("layer", "hidden_states_index")}),
        "layers": {str(x): {"metrics": r["metrics"], "breakdowns": {"buckets": r["breakdowns"]["buckets"]}}
                   for x, r in per_layer.items()},
        "best_layer": best,
        "counts": first["counts"],
        # every layer ran on the same items with the same embedder; the layer itself is in `layers`
        "run": first.get("run"),
        "intervals": first.get("intervals"),
        "timing": {"total_s": round(time.time() - t0, 2)},
    }


def clean_sweep(out: str | Path, result: dict) -> None:
    """The result is written: remove the sweep's store and per-layer resume logs."""
    from lexprobe.benchmarks.senserank.evaluate import store_path
    from lexprobe.cache import partial_path
    from lexprobe.distributed import remove_logs

    for layer in result["layers"]:
        remove_logs(partial_path(out, _stage(int(layer))))
    shutil.rmtree(store_path(out), ignore_errors=True)


def format_sweep(result: dict) -> str:
    from lexprobe.reporting import format_table

    rows = []
    for layer, r in result["layers"].items():
        m = r["metrics"]
        pct = (lambda v: "-" if v is None else f"{100 * v:.2f}")
        rows.append([layer, pct(m.get("pooled")), pct(m.get("map")), pct(m.get("pooled_random")),
                     pct(m.get("pooled_oracle")), m.get("queries", 0)])
    title = (f"CWE similarity ranking on {result['task']} by layer ({result['model']}): the paper's MAP@50 x100; "
             f"best layer {result['best_layer']} (hidden_states index, 0 = embeddings)")
    return format_table(["layer", "MAP@50 (paper)", "per-query MAP@50", "random", "oracle", "queries"], rows,
                        title=title)


def plot_sweep(result: dict, path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lexprobe.reporting import save_figure

    layers = [int(x) for x in result["layers"]]
    metric = lambda key: [100 * (r["metrics"].get(key) or 0.0) for r in result["layers"].values()]  # noqa: E731
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ax.plot(layers, metric("pooled"), "o-", color="C0", label=f"{result['model']} (paper's MAP@50)")
    ax.plot(layers, metric("map"), "s--", color="C2", label="per-query MAP@50")
    ax.plot(layers, metric("pooled_oracle"), "k:", label="oracle")
    ax.plot(layers, metric("pooled_random"), ":", color="C3", label="random")
    ax.axvline(result["best_layer"], color="0.7", lw=1)
    ax.set_xlabel("layer (hidden_states index; 0 = embeddings)")
    ax.set_ylabel("MAP@50 x100")
    ax.set_title(f"senserank {result['task']}: metric by layer", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, path)
