"""Layer sweeps for sense ranking: the paper's metric at every layer, from one forward pass.

``--layers all`` (or a list such as ``0,4,8-12,-1``) embeds every target once with all
the requested hidden states, then runs the ordinary evaluation (``similarity.rank_senses``)
once per layer on those vectors: each layer's figures are exactly those of a single run
with ``--layer L``. Works for encoders and decoder LMs alike (see docs/llm.md for what a
decoder's token vector means). Layer numbers are ``hidden_states`` indices: 0 =
embedding layer, n = last block.

Resumable as a single run is: the vectors of all swept layers go to one embedding store
beside the output (``<out>.embeddings/``, rows ``[layers, dim]``), appended every
``4 x batch size`` sentences, and each layer's lemma rankings to its own resume log
(``<out>.layer<L>.partial.jsonl``, 64 lemmas at a time). Ctrl-C keeps both; a rerun
embeds and ranks only what is missing. ``clean_sweep`` removes them once the result
is written (``SenseRank.finished``; ``--keep-embeddings`` keeps the store).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Sequence

from lexprobe.benchmarks.base import Records
from lexprobe.benchmarks.senserank.config import SenseConfig, parse_layers


class _AllLayers:
    """An embedder for ``similarity.rank_senses`` whose vectors hold every swept layer (one store row per target).

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


def sweep(cfg: SenseConfig, instances, embedder, sections, progress: bool = True, key=None,
          out: str | Path | None = None) -> Records:
    """The sweep of ``cfg.layers``: ``similarity.rank_senses`` per layer on vectors of one pass, each layer's
    records aggregated by ``sections`` (``SenseRank.sections``, as a single run's); the result's ``metrics``
    and ``baselines`` are the best layer's (highest pooled MAP@50), and it keeps no per-query records.

    ``key``: the resume key's maker (``Job.key``); ``out``: where the store and the
    per-layer logs go (``<out>.embeddings/``, ``<out>.layer<L>.partial.jsonl``; a temporary
    folder without). One process (the method refuses torchrun).
    """
    from lexprobe.benchmarks.senserank.similarity import rank_senses

    t0 = time.time()
    layers = parse_layers(cfg.layers or "all")
    wanted = range(embedder.n_layers + 1) if layers == "all" else layers
    indices = list(dict.fromkeys(embedder.layer_index(x) for x in wanted))
    view = _AllLayers(embedder, indices)
    chunk = 4 * int(getattr(embedder, "batch_size", 32) or 32)
    per_layer: dict[int, Records] = {}
    with tempfile.TemporaryDirectory(prefix="lexprobe-sweep-") as tmp:
        base = Path(out) if out is not None else Path(tmp) / "sweep.json"
        for row, layer in enumerate(indices):
            records = rank_senses(replace(cfg, layer=layer), instances, view, progress and row == 0, base,
                                  run_key=key, store_row=row, log_stage=_stage(layer), store_chunk=chunk)
            assert records is not None  # one process (checked by the method)
            per_layer[layer] = records
    values = {}
    for layer, records in per_layer.items():
        s = sections(records)
        values[str(layer)] = {"metrics": s["metrics"], "baselines": s["baselines"]}
    best = max(indices, key=lambda x: (values[str(x)]["metrics"][cfg.corpus]["all"].get("pooled") or 0.0, -x))
    first = per_layer[indices[0]]
    return Records([], items=first.items, counts=first.counts, tasks=[cfg.corpus],
                   timing={"total_s": round(time.time() - t0, 2)},
                   sections={**values[str(best)], "breakdowns": {},
                             "sweep": {"parameter": "layer", "values": values, "best": best}})


def clean_sweep(out: str | Path, layers: Iterable, keep_embeddings: bool = False) -> None:
    """The result is written: remove the sweep's per-layer resume logs and (unless kept) its store."""
    from lexprobe.benchmarks.senserank.similarity import store_path
    from lexprobe.cache import partial_path
    from lexprobe.distributed import remove_logs

    for layer in layers:
        remove_logs(partial_path(out, _stage(int(layer))))
    if not keep_embeddings:
        shutil.rmtree(store_path(out), ignore_errors=True)

