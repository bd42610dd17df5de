"""CWE sense ranking as a ``Benchmark``: one method (``similarity`` of token embeddings).

Recipes: ``paper`` and ``authors`` (``recipe.py``). The memory-mapped embedding store and
the per-lemma ranking logs are ``similarity.py``'s; a ``--layers`` sweep embeds once with
every requested hidden state into one store and ranks per layer, each layer with its own
resume log (``layers.py``).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, ClassVar

from lexprobe.benchmarks.base import Benchmark, BenchmarkMeta, Method, SummaryColumn, recorded
from lexprobe.benchmarks.senserank.config import CORPUS_CHOICES, SenseConfig
from lexprobe.benchmarks.senserank.recipe import RECIPES
from lexprobe.errors import LexprobeError
from lexprobe.scorers.capabilities import TokenEmbeddings


class Similarity(Method):
    name = "similarity"
    requires = (TokenEmbeddings,)

    def run(self, job):
        from lexprobe.benchmarks.senserank.similarity import rank_senses
        from lexprobe.distributed import context

        cfg = job.config
        embedder = job.scorer
        if hasattr(embedder, "view"):  # the configured layer and the recipe's tokenisation, same weights
            embedder = embedder.view(layer=cfg.layer if cfg.layers is None else None,
                                     words_alone=job.recipe.words_alone)
        if cfg.layers is not None:
            from lexprobe.benchmarks.senserank.layers import sweep

            if not hasattr(embedder, "layer_index"):
                raise LexprobeError(f"--layers sweeps a transformer's hidden states; model "
                                    f"{getattr(job.scorer, 'name', '?')!r} has no layers (random scores or static "
                                    "vectors): drop --layers or pass a transformer")
            if context().enabled:
                raise LexprobeError("a layer sweep runs in one process; start it without torchrun")
            config = recorded(cfg)  # each layer's records aggregated as a single run's
            return sweep(cfg, job.items, embedder, lambda records: job.benchmark.sections(records, self.name, config),
                         job.progress, key=job.key, out=job.out)
        return rank_senses(cfg, job.items, embedder, job.progress, job.out, run_key=job.key)


class SenseRank(Benchmark):
    meta = BenchmarkMeta(
        name="senserank", title="Sense ranking", help="CWE similarity ranking (query-by-example word-sense retrieval)",
        unit="query", tasks=CORPUS_CHOICES, datasets=("semcor",), main_score="pooled",
        unit_metrics=(("pooled", "MAP@50 (paper, pooled)"), ("map", "MAP@50 (per-query AP)")), load_as="token",
        summary=(SummaryColumn("Sense ranking MAP@50 (layer)", digits=2),),
    )
    Config = SenseConfig
    recipes = RECIPES
    methods: ClassVar[dict[str, Method]] = {"similarity": Similarity()}

    def check_config(self, config: SenseConfig) -> None:
        config.validate()

    def resolve_data(self, config: SenseConfig) -> SenseConfig:
        """SemCor without ``--path`` and none in the data directory: the sample shipped in the package,
        said in one line; ``config.path`` (recorded in the result) names it."""
        import dataclasses
        import sys

        from lexprobe.data.semcor import sample_instead

        sample = sample_instead() if config.corpus == "semcor" and config.path is None else None
        if sample is None:
            return config
        print("lexprobe: SemCor not in the data directory: ranking senses on the SemCor sample shipped with "
              "lexprobe (1,202 sentences); `lexprobe data fetch semcor` gets the full corpus", file=sys.stderr)
        return dataclasses.replace(config, path=str(sample))

    def outputs(self, out: Path, config: Any) -> dict[str, list]:
        """The result and its plot beside it (``outputs.guard`` checks both, and that they are two files)."""
        return {"--out": [out], "--out (its plot)": [Path(out).with_suffix(".png")]}

    failure_note = ("a failure is a query whose AP@50 is below the share of its lemma's database instances "
                    "that have its sense (what a random order gets on average at every rank): the model ranks "
                    "its same-sense instances no better than chance.")

    def dataset(self, config: SenseConfig) -> dict | None:
        """The corpus, or the SemCor sample shipped in the package: read from ``--path``, or in place of a
        SemCor missing from the data directory."""
        from lexprobe.data.semcor import default_archive, sample_archive

        if config.corpus != "semcor":
            return {"name": config.corpus, "sample": False}
        path = Path(config.path) if config.path else default_archive()
        if path.resolve() == sample_archive().resolve() or (config.path is None and not path.exists()):
            return {"name": "semcor (bundled sample)", "sample": True,
                    "what": "the SemCor sample shipped with lexprobe (1,202 sentences), not the full SemCor 3.0",
                    "get": "lexprobe data fetch semcor"}
        return {"name": "semcor", "sample": False}

    def load_items(self, config: SenseConfig):
        from lexprobe.benchmarks.senserank.similarity import load_instances

        return load_instances(config)

    def written(self, result: dict, out: Path, config: Any) -> None:
        plot = Path(out).with_suffix(".png")
        if result.get("sweep"):
            from lexprobe.benchmarks.senserank.plot import plot_sweep

            plot_sweep(result, plot)
        else:
            from lexprobe.benchmarks.senserank.plot import save_curves_plot

            save_curves_plot(result, plot)
        result["plot"] = str(plot)

    def finished(self, out: Path, config: SenseConfig, result: dict | None = None) -> None:
        if result is not None and result.get("sweep"):  # the per-layer ranking logs too
            from lexprobe.benchmarks.senserank.layers import clean_sweep

            clean_sweep(out, result["sweep"]["values"], keep_embeddings=config.keep_embeddings)
        elif not config.keep_embeddings:
            from lexprobe.benchmarks.senserank.similarity import store_path

            shutil.rmtree(store_path(out), ignore_errors=True)

    def upgrade(self, legacy: dict) -> dict:
        from lexprobe.benchmarks.senserank.results import upgrade

        return upgrade(legacy)

    def unit_values(self, result):
        from lexprobe.errors import DataError

        if result.get("sweep"):
            raise DataError(f"{result.get('_path', 'the result')} is a layer sweep (--layers), which keeps no "
                            "per-query records; compare single-layer runs (senserank eval --layer L) item by item")
        from lexprobe.benchmarks.senserank.results import unit_values

        return unit_values(result)

    def baseline_values(self, result):
        from lexprobe.benchmarks.senserank.results import unit_values

        return {name: unit_values(result, name) for name in ("random", "oracle")}

    def slices(self, result, units):
        from lexprobe.benchmarks.senserank.results import slices

        return slices(result, units)

    def aggregate(self, result, task, slice, units):
        from lexprobe.benchmarks.senserank.results import aggregate

        return aggregate(super().aggregate(result, task, slice, units), units)

    def breakdowns(self, result):
        from lexprobe.benchmarks.senserank.results import breakdowns

        return breakdowns(result)

    def table_group(self, result):
        from lexprobe.benchmarks.senserank.results import corpus

        return corpus(result)

    def tables(self, results):
        from lexprobe.benchmarks.senserank.tables import tables

        return tables(results)

    def figures(self, result, folder, stem):
        from lexprobe.benchmarks.senserank.plot import plot_sweep, save_curves_plot
        from lexprobe.benchmarks.senserank.results import corpus
        from lexprobe.result_schema import model_name

        if result.get("sweep"):
            path = plot_sweep(result, folder / f"{stem}-layers.png")
            return [(f"Sense ranking {corpus(result)} by layer: {model_name(result)}", Path(path))]
        if not result["breakdowns"].get(corpus(result), {}).get("curves"):
            return []
        path = folder / f"{stem}.png"
        save_curves_plot(result, path)
        return [(f"Sense ranking precision at k: {model_name(result)}", path)]

    @property
    def failure_columns(self):  # type: ignore[override]
        from lexprobe.benchmarks.senserank.results import FAILURE_COLUMNS

        return FAILURE_COLUMNS

    def failure_rows(self, result):
        from lexprobe.benchmarks.senserank.results import failure_rows

        return failure_rows(result)

    def format_result(self, result):
        from lexprobe.benchmarks.senserank.console import format_report, format_sweep

        return format_sweep(result) if result.get("sweep") else format_report(result)

    def summary_tag(self, result):
        """The layer the vectors came from, as a hidden_states index (0 = embeddings, as the sweep tables
        count), from the model's record: the config's ``layer`` (-1 by default) is there for every model,
        also one without layers (random scores, static or sentence vectors), which gets no tag."""
        if result.get("sweep"):
            return f"best layer {result['sweep']['best']}"
        model = result.get("model") or {}
        index = model.get("hidden_states_index")
        if index is None:
            return None
        return f"layer {index}" + (", the last" if model.get("layer") == -1 else "")

    def register_commands(self, sub):
        from lexprobe.benchmarks.senserank.cli import register_commands

        register_commands(sub)

    #: ``lexprobe run``: instances sampled (docs/llm.md, "The main job")
    run_samples: ClassVar[dict[str, int | None]] = {"quick": 1500, "full": 4000}

    def default_run(self, out_dir, part):
        from lexprobe.benchmarks.senserank.cli import run_default

        self.likelihood_only(part)
        return run_default(out_dir, part.model, part.sample, stem=part.stem("senserank-semcor"), options=part.options)
