"""WDLMPro as a ``Benchmark``: its metadata, config, recipes, methods and hooks.

Methods: ``likelihood`` (every candidate scored by the model: masked-slot or continuation
log-probabilities, embedding cosines, or random scores; ``scoring.py`` picks by capability)
and ``choose`` (the candidates as a multiple-choice question to a causal LM,
``protocols/choose_wdlmpro.py``). Recipes: ``paper`` and ``authors`` (``protocol.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar

from lexprobe.benchmarks.base import Benchmark, BenchmarkMeta, Method, nested, option
from lexprobe.cli_common import non_negative_int, positive_int
from lexprobe.errors import DataError
from lexprobe.protocols.choose_cli import ChooseOptions
from lexprobe.scorers.capabilities import (
    Generation,
    RandomScores,
    SentenceEmbeddings,
    SlotLogprobs,
    TokenLogprobs,
)

TASK_CHOICES = {"w2d": ("w2d",), "d2w": ("d2w",), "both": ("w2d", "d2w")}
#: groups per resumable unit: small enough that Ctrl-C keeps nearly all work, and the bar moves per chunk
DEFAULT_CHUNK_SIZE = 32


@dataclass(frozen=True)
class WDLMProConfig:
    method: str = option("likelihood", "likelihood: score every candidate; choose: ask a causal LM to choose",
                         choices=("likelihood", "choose"))
    recipe: str = option("paper", "paper: the paper's text; authors: the authors' released code",
                         choices=("paper", "authors"))
    task: str = option("both", "w2d: word -> definition, d2w: definition -> word, or both",
                       choices=tuple(TASK_CHOICES))
    pos: str = option("both", "part of speech", choices=("n", "v", "both"))
    data: str | None = option(None, "dataset folder or JSONL file from `wdlmpro build` (default: built from "
                                    "WordNet once, cached)", key=False)
    limit: int | None = option(None, "evaluate a seeded sample of N groups per POS (default: all)", type=positive_int)
    counts: str | None = option(None, "word<TAB>count file for frequency bands (default: wordfreq Zipf bands)",
                                key=False)
    seed: int = option(0, "seed of the --limit sample, the choose options and the random scorer",
                       type=non_negative_int)
    chunk_size: int = option(DEFAULT_CHUNK_SIZE, "groups scored together (sister groups share pairs); every "
                             "finished group is logged, so Ctrl-C keeps all finished chunks", type=positive_int,
                             record=False)
    plot: str | None = option(None, "also draw the breakdowns to this PNG (default: next to --out)", record=False)
    choose: ChooseOptions = nested(ChooseOptions, "ask-to-choose prompting (--method choose; causal LMs)",
                                   method="choose")


@dataclass
class WDLMProItems:
    groups: list
    attributes: Callable | None = None  #: groups -> per-target attributes for the breakdowns
    tasks: tuple[str, ...] = ("w2d", "d2w")


class Likelihood(Method):
    name = "likelihood"
    requires = (RandomScores, SlotLogprobs, TokenLogprobs, SentenceEmbeddings)

    def run(self, job):
        from lexprobe.benchmarks.wdlmpro.evaluate import run_likelihood

        return run_likelihood(job)


class Choose(Method):
    name = "choose"
    requires = (Generation,)

    def run(self, job):  # (one process: the choose run keeps its own resume log)
        from lexprobe.protocols.choose_wdlmpro import evaluate_choose

        cfg = job.config.choose.to_config(seed=job.config.seed)
        result = evaluate_choose(job.scorer, job.items.groups, job.items.tasks, cfg, out=job.out,
                                 progress=job.progress)
        result["_items"] = job.items.groups
        result["_config"] = {"choose": {"template_record": cfg.template.record()}}
        return result


class WDLMPro(Benchmark):
    meta = BenchmarkMeta(
        name="wdlmpro", title="WDLMPro", help="WDLMPro: word <-> definition matching among WordNet sisters",
        unit="target", tasks=("w2d", "d2w"), datasets=("wordnet",), main_score="p_at_1",
        unit_metrics=(("p_at_1", "P@1"), ("rank_score", "RS")),
    )
    Config = WDLMProConfig
    methods: ClassVar[dict[str, Method]] = {"likelihood": Likelihood(), "choose": Choose()}
    has_human_items = True

    @property
    def recipes(self):  # type: ignore[override]
        from lexprobe.benchmarks.wdlmpro.protocol import PROTOCOLS

        return PROTOCOLS

    def check_config(self, config: WDLMProConfig) -> None:
        if config.counts and not Path(config.counts).is_file():
            raise DataError(f"--counts {config.counts} is not a file; pass a word<TAB>count file")

    def check_outputs(self, out: Path, config: WDLMProConfig) -> None:
        if config.plot:
            from lexprobe.outputs import check_output_file

            check_output_file(config.plot, "--plot")

    def load_items(self, config: WDLMProConfig) -> WDLMProItems:
        from lexprobe.benchmarks.wdlmpro.attributes import attributes_fn
        from lexprobe.benchmarks.wdlmpro.dataset import default_dataset, load_dataset, pos_list, sample_groups

        groups: list = []
        for pos in pos_list(config.pos):
            pool = load_dataset(config.data, pos) if config.data else default_dataset(pos)
            groups.extend(sample_groups(pool, config.limit, seed=config.seed) if config.limit else pool)
        if not groups:
            raise DataError("no WDLMPro groups selected; check --data, --pos and --limit")
        attributes = attributes_fn(config.counts) if config.method == "likelihood" else None
        return WDLMProItems(groups, attributes, TASK_CHOICES[config.task])

    def written(self, result: dict, out: Path, config: Any) -> None:
        if result.get("readings") or not any(result["breakdowns"].get(t) for t in result["tasks"]):
            return
        from lexprobe.benchmarks.wdlmpro.plot import plot_breakdowns

        result["plot"] = str(plot_breakdowns(result, config.plot or out.with_suffix(".png")))

    def upgrade(self, legacy: dict) -> dict:
        from lexprobe.benchmarks.wdlmpro.results import upgrade

        return upgrade(legacy)

    # --- reading results ---------------------------------------------------------------
    def unit_values(self, result):
        from lexprobe.benchmarks.wdlmpro.results import unit_values

        return unit_values(result)

    def unit_metrics(self, result):
        from lexprobe.benchmarks.wdlmpro.results import CHOOSE_METRICS

        return CHOOSE_METRICS if result.get("readings") else self.meta.unit_metrics

    def tables(self, results):
        from lexprobe.benchmarks.wdlmpro.tables import tables

        return tables(results)

    def figures(self, result, folder, stem):
        if result.get("readings") or not any(result["breakdowns"].get(t) for t in result["tasks"]):
            return []
        from lexprobe.benchmarks.wdlmpro.plot import plot_breakdowns
        from lexprobe.result_schema import model_name

        return [(f"WDLMPro breakdowns: {model_name(result)}", plot_breakdowns(result, folder / f"{stem}.png"))]

    @property
    def failure_columns(self):  # type: ignore[override]
        from lexprobe.benchmarks.wdlmpro.results import FAILURE_COLUMNS

        return FAILURE_COLUMNS

    def failure_rows(self, result):
        from lexprobe.benchmarks.wdlmpro.results import failure_rows

        return failure_rows(result)

    def format_result(self, result):
        if result.get("readings"):
            from lexprobe.benchmarks.wdlmpro.report import choose_report

            return choose_report(result)
        from lexprobe.benchmarks.wdlmpro.report import full_report

        return full_report(result)

    # --- commands, lexprobe run, human items ---------------------------------------------
    def register_commands(self, sub):
        from lexprobe.benchmarks.wdlmpro.cli import register_commands

        register_commands(sub)

    def default_run(self, out_dir, model, sample=None):
        from lexprobe.benchmarks.wdlmpro.cli import run_default

        return run_default(out_dir, model, **({"sample": sample} if sample is not None else {}))

    def human_item_set(self, args):
        from lexprobe.benchmarks.wdlmpro import dataset as ds
        from lexprobe.human import items

        pos = args.pos or "both"
        groups = ds.load_dataset(args.data, pos) if args.data else ds.default_dataset(pos)
        n = items.PAPER_WDLMPRO["n"] if args.subset == "paper" else args.subset
        return items.wdlmpro_item_set(groups, n, args.max_candidates, 0 if args.seed is None else args.seed,
                                      str(args.subset))

    def human_results(self, item_set, answers):
        from lexprobe.human.score import wdlmpro_results

        return wdlmpro_results(item_set, answers)
