"""CWE sense ranking as a ``Benchmark``: one method (``similarity`` of token embeddings).

Recipes: ``paper`` and ``authors`` (``SenseRecipe``). The memory-mapped embedding store and
the per-lemma ranking logs stay in ``evaluate.py``; a ``--layers`` sweep embeds once with
every requested hidden state and ranks per layer (``layers.py``).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from lexprobe.benchmarks.base import Benchmark, BenchmarkMeta, Method, option
from lexprobe.cli_common import non_negative_int, positive_int
from lexprobe.errors import LexprobeError
from lexprobe.scorers.capabilities import TokenEmbeddings

CORPUS_CHOICES = ("semcor", "ontonotes", "pdep", "streusle")


@dataclass(frozen=True)
class SenseRecipe:
    name: str
    semcor_sentence_split: bool  #: SemCor split by sentence, shuffled with random.Random(42) (authors); else by document
    words_alone: bool  #: every word tokenised on its own (the authors' AllenNLP indexer)


RECIPES = {"paper": SenseRecipe("paper", False, False), "authors": SenseRecipe("authors", True, True)}


@dataclass(frozen=True)
class SenseConfig:
    method: str = option("similarity", "similarity: rank same-lemma instances by cosine of token embeddings",
                         choices=("similarity",))
    recipe: str = option("paper", "paper: the paper's text; authors: the authors' released code (SemCor split by "
                         "sentence with seed 42, words tokenised one by one)", choices=tuple(RECIPES))
    corpus: str = option("semcor", "sense-annotated corpus", choices=CORPUS_CHOICES)
    path: str | None = option(None, "corpus file or folder (default: the data directory; `lexprobe data list`)",
                              key=False)
    layer: int = option(-1, "hidden_states index (0 = embeddings, -1 = last; the original code's layer L is L+1)",
                        type=int)
    layers: str | None = option(None, "layer sweep: `all` or a list like 0,4,8-12,-1 (one forward pass; metric "
                                      "per layer, with a plot)")
    pos: tuple[str, ...] | None = option(None, "keep only these coarse POS (default: all)", nargs="+",
                                         choices=("n", "v", "a", "r", "p"))
    limit: int | None = option(None, "evaluate at most N queries (seeded sample; default: all)", type=positive_int)
    max_instances: int | None = option(None, "sample whole lemmas (seeded) until database + queries reach this "
                                              "size (default: all)", type=positive_int)
    match_pos: bool = option(False, "restrict neighbours to the same lemma AND POS")
    min_sense_count: int = option(5, "drop queries whose sense has fewer instances in the database",
                                  type=positive_int)
    freq_edges: str = option("0,500,inf", "frequency (l) bucket edges")
    rarity_edges: str = option("0,0.25,1", "sense-proportion (r) bucket edges")
    bucket_by: str = option("sense", "l = the query sense's frequency in D (the authors' code, Table 1) or the "
                            "lemma's (the paper's text)", choices=("sense", "lemma"))
    seed: int = option(0, "seed of the SemCor document split, of samples and of the random baseline",
                       type=non_negative_int)
    k: int = option(50, "rank cut-off of AP@k and P@k", cli=False)
    keep_embeddings: bool = option(False, "keep the memory-mapped target vectors in OUT.embeddings/ after the run "
                                   "(reruns with the same model then skip encoding)", record=False)

    def engine(self, model: str = ""):
        """The ranking engine's ``evaluate.EvalConfig`` of these options."""
        from lexprobe.benchmarks.senserank.evaluate import EvalConfig
        from lexprobe.metrics.retrieval import parse_edges

        edges: dict[str, tuple[float, ...]] = {}
        for name in ("freq_edges", "rarity_edges"):
            try:
                edges[name] = parse_edges(getattr(self, name))
            except ValueError as err:
                raise LexprobeError(f"--{name.replace('_', '-')}: {err}") from None
        return EvalConfig(corpus=self.corpus, path=self.path, model=model, layer=self.layer,
                          pos=tuple(self.pos) if self.pos else None, limit=self.limit,
                          max_instances=self.max_instances, k=self.k, min_sense_count=self.min_sense_count,
                          match_pos=self.match_pos, seed=self.seed, bucket_by=self.bucket_by, protocol=self.recipe,
                          freq_edges=edges["freq_edges"], rarity_edges=edges["rarity_edges"])

    @classmethod
    def from_engine(cls, cfg, **changes) -> "SenseConfig":
        def text(edges):
            return ",".join("inf" if x == float("inf") else f"{x:g}" for x in edges)

        return cls(recipe=cfg.protocol, corpus=cfg.corpus, path=cfg.path, layer=cfg.layer,
                   pos=tuple(cfg.pos) if cfg.pos else None, limit=cfg.limit, max_instances=cfg.max_instances,
                   match_pos=cfg.match_pos, min_sense_count=cfg.min_sense_count, freq_edges=text(cfg.freq_edges),
                   rarity_edges=text(cfg.rarity_edges), bucket_by=cfg.bucket_by, seed=cfg.seed, k=cfg.k, **changes)


class Similarity(Method):
    name = "similarity"
    requires = (TokenEmbeddings,)

    def run(self, job):
        from lexprobe.benchmarks.senserank.evaluate import _evaluate
        from lexprobe.distributed import context

        cfg = job.config.engine(getattr(job.scorer, "name", ""))
        embedder = job.scorer
        if hasattr(embedder, "view"):  # the configured layer and the recipe's tokenisation, same weights
            embedder = embedder.view(layer=cfg.layer if not job.config.layers else None,
                                     words_alone=job.recipe.words_alone)
        if job.config.layers:
            from lexprobe.benchmarks.senserank.layers import sweep_legacy

            if job.config.layer != -1:
                raise LexprobeError("--layer and --layers exclude each other; pass one of them")
            if context().enabled:
                raise LexprobeError("a layer sweep runs in one process; start it without torchrun")
            return sweep_legacy(cfg, job.config.layers, job.items, embedder, job.progress)
        return _evaluate(cfg, job.items, embedder, job.progress, job.out, run_key=job.key)


class SenseRank(Benchmark):
    meta = BenchmarkMeta(
        name="senserank", title="Sense ranking", help="CWE similarity ranking (query-by-example word-sense retrieval)",
        unit="query", tasks=CORPUS_CHOICES, datasets=("semcor",), main_score="pooled",
        unit_metrics=(("pooled", "MAP@50 (paper, pooled)"), ("map", "MAP@50 (per-query AP)")), load_as="token",
    )
    Config = SenseConfig
    recipes = RECIPES
    methods: ClassVar[dict[str, Method]] = {"similarity": Similarity()}

    def check_config(self, config: SenseConfig) -> None:
        config.engine().validate()
        if config.layers:
            from lexprobe.benchmarks.senserank.layers import parse_layers

            parse_layers(config.layers)
            if config.layer != -1:
                raise LexprobeError("--layer and --layers exclude each other; pass one of them")

    def check_outputs(self, out: Path, config: Any) -> None:
        from lexprobe.outputs import check_output_file

        check_output_file(Path(out).with_suffix(".png"), "--out (plot)")

    def load_items(self, config: SenseConfig):
        from lexprobe.benchmarks.senserank.evaluate import load_instances

        return load_instances(config.engine())

    def written(self, result: dict, out: Path, config: Any) -> None:
        plot = Path(out).with_suffix(".png")
        if result.get("sweep"):
            from lexprobe.benchmarks.senserank.report import plot_sweep

            plot_sweep(result, plot)
        else:
            from lexprobe.benchmarks.senserank.report import save_curves_plot

            save_curves_plot(result, plot)
        result["plot"] = str(plot)

    def finished(self, out: Path, config: SenseConfig) -> None:
        if not config.keep_embeddings:
            from lexprobe.benchmarks.senserank.evaluate import store_path

            shutil.rmtree(store_path(out), ignore_errors=True)

    def upgrade(self, legacy: dict) -> dict:
        from lexprobe.benchmarks.senserank.report import upgrade

        return upgrade(legacy)

    def unit_values(self, result):
        from lexprobe.errors import DataError

        if result.get("sweep"):
            raise DataError(f"{result.get('_path', 'the result')} is a layer sweep (--layers), which keeps no "
                            "per-query records; compare single-layer runs (senserank eval --layer L) item by item")
        from lexprobe.benchmarks.senserank.report import unit_values

        return unit_values(result)

    def table_group(self, result):
        from lexprobe.benchmarks.senserank.report import corpus

        return corpus(result)

    def tables(self, results):
        from lexprobe.benchmarks.senserank.tables import tables

        return tables(results)

    def figures(self, result, folder, stem):
        from lexprobe.benchmarks.senserank.report import corpus, plot_sweep, save_curves_plot
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
        from lexprobe.benchmarks.senserank.report import FAILURE_COLUMNS

        return FAILURE_COLUMNS

    def failure_rows(self, result):
        from lexprobe.benchmarks.senserank.report import failure_rows

        return failure_rows(result)

    def format_result(self, result):
        from lexprobe.benchmarks.senserank.report import format_report, format_sweep

        return format_sweep(result) if result.get("sweep") else format_report(result)

    def register_commands(self, sub):
        from lexprobe.benchmarks.senserank.cli import register_commands

        register_commands(sub)

    def default_run(self, out_dir, model, sample=None):
        from lexprobe.benchmarks.senserank.cli import run_default

        return run_default(out_dir, model, sample)
