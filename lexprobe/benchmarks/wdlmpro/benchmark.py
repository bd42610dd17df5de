"""WDLMPro as a ``Benchmark``: its metadata, config, recipes, methods and hooks.

Methods: ``likelihood`` (every candidate scored through requests: ``likelihood.py``) and ``choose`` (the
candidates as a multiple-choice question to a causal LM, ``choose.py``). Recipes: ``paper`` and ``authors``
(``recipe.py``). The hooks are the functions of ``results.py`` (unit values, baselines, breakdowns, items pages),
``tables.py`` (the report's tables, which the console prints), ``plot.py``, ``cli.py`` and ``human.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lexprobe.benchmarks.wdlmpro import cli, human, plot, results, tables
from lexprobe.benchmarks.wdlmpro.choose import Choose
from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems
from lexprobe.benchmarks.wdlmpro.export import EXPORT
from lexprobe.benchmarks.wdlmpro.likelihood import Likelihood
from lexprobe.benchmarks.wdlmpro.recipe import RECIPES
from lexprobe.core.contract import (
    Benchmark,
    BenchmarkMeta,
    HumanItems,
    Items,
    LLMPart,
    Presentation,
    Results,
    RunParts,
    Sample,
    SummaryColumn,
    default_slices,
    mean_aggregate,
)
from lexprobe.errors import DataError, LexprobeError
from lexprobe.prompting.templates import TemplateField


def check_config(config: WDLMProConfig) -> None:
    """What the declarations cannot say (``evaluate`` checks choices and integers from them first)."""
    if config.counts and not Path(config.counts).is_file():
        raise DataError(f"--counts {config.counts} is not a file; pass a word<TAB>count file")
    if config.draw == "wordnet" and (config.data or not config.limit):
        raise LexprobeError("--draw wordnet samples --limit N groups straight from WordNet; "
                            + ("drop --data (or use --draw dataset)" if config.data else "add --limit N"))
    if config.plot:
        from lexprobe.outputs import check_image_file

        check_image_file(config.plot, "--plot")


def dataset(config: WDLMProConfig) -> dict | None:
    """A ``--draw wordnet`` sample says what it is (the report's sample banner; ``lexprobe run``'s parts)."""
    from lexprobe.benchmarks.wdlmpro.dataset import wordnet_sample_record

    return wordnet_sample_record(config.limit) if config.draw == "wordnet" and config.limit else None


def draw(config: WDLMProConfig) -> str | None:
    """``--limit`` as ``select_groups`` draws it (a ``--draw wordnet`` sample: its ``dataset`` record says it)."""
    if not config.limit or config.draw == "wordnet":
        return None
    return f"a seeded sample of {config.limit} groups per part of speech (--limit {config.limit} --seed {config.seed})"


def load_items(config: WDLMProConfig) -> WDLMProItems:
    from lexprobe.benchmarks.wdlmpro import dataset as ds
    from lexprobe.benchmarks.wdlmpro.attributes import attributes_fn

    groups: list = ds.select_groups(config.data, config.pos, config.limit, config.seed, config.draw)
    if not groups:
        raise DataError("no WDLMPro groups selected; check --data, --pos and --limit")
    if config.method == "choose":  # a too-large --permutations refused before the (slow) model load
        from lexprobe.prompting.choose import check_labels, check_permutations

        check_permutations(config.choose.permutations, max(len(g.candidates) for g in groups),
                           config.choose.max_candidates)
        check_labels(config.choose.template, max(len(g.candidates) for g in groups), config.choose.max_candidates)
    attributes = attributes_fn(config.counts) if config.method == "likelihood" else None
    if attributes is not None:  # every target's depth band is known before the (slow) model load
        from lexprobe.benchmarks.wdlmpro.attributes import synset_depth
        from lexprobe.data.wordnet import load_wordnet

        wn = load_wordnet()
        for g in groups:
            synset_depth(g.target, wn)
    return WDLMProItems(groups, attributes)


def written(result: dict, out: Path, config: Any) -> None:
    if plot.has_breakdowns(result):
        result["plot"] = str(plot.plot_breakdowns(result, config.plot or out.with_suffix(".png")))


def aggregate(result: dict, task: str, slice: str, units: list) -> dict:
    """The mean of each unit metric; a slice without units still names P@1 and RS (None)."""
    return {"p_at_1": None, "rank_score": None, **mean_aggregate(result, task, slice, units)}


def slices(result: dict, units: list) -> dict:
    """A likelihood run's slices hold the targets it ranked: one the recipe dropped (no rank) is in ``counts``."""
    return default_slices(result, [u for u in units if any(v is not None for v in u.values.values())])


WDLMPRO = Benchmark(
    meta=BenchmarkMeta(
        name="wdlmpro", title="WDLMPro", help="WDLMPro: word <-> definition matching among WordNet sisters",
        unit="target", tasks=("w2d", "d2w"), datasets=("wordnet",), main_score="p_at_1",
        unit_metrics=(("p_at_1", "P@1"), ("rank_score", "RS")), binary_metrics=("p_at_1",),
        summary=(SummaryColumn("W2D P@1 (%)", task="w2d", part="W2D"), SummaryColumn("D2W P@1 (%)", task="d2w", part="D2W")),
    ),
    Config=WDLMProConfig,
    #: --limit N keeps N groups of each part of speech (the estimate's suggested --limit)
    items=Items(load=load_items, check=check_config, dataset=dataset, draw=draw,
                sample=Sample("limit", lambda config, items: [sum(g.pos == p for g in items.groups)
                                                             for p in sorted({g.pos for g in items.groups})])),
    methods={"likelihood": Likelihood(), "choose": Choose()},
    recipes=RECIPES,
    results=Results(unit_values=results.unit_values, baseline_values=results.baseline_values, slices=slices,
                    aggregate=aggregate, breakdowns=results.breakdowns,
                    instance_spec=lambda result: results.LikelihoodRecord),
    presentation=Presentation(
        tables=tables.likelihood_tables, format_result=tables.format_result, figures=plot.figures,
        failure_rows=results.failure_rows, written=written, failure_columns=tuple(results.FAILURE_COLUMNS),
        outputs=lambda out, config: {"--out": [out], "--plot": [config.plot or out.with_suffix(".png")]},
        failure_note=("a failure is an item whose gold answer the model did not rank first (a choose run: did "
                      "not pick; a generated answer that names no option counts as a failure).")),
    commands=cli.register_commands,
    #: ``lexprobe run``: the samples (groups per POS) sized in docs/llm.md, "The main job"
    run=RunParts(cli.run_default, {"quick": 30, "full": 100},
                 (LLMPart("likelihood", False, {"quick": 8, "full": 25}),
                  LLMPart("choose", True, {"quick": 8, "full": 25}))),
    human=HumanItems("choice", human.item_set, human.results),
    template_fields={
        "w2d": TemplateField(frozenset({"word", "options", "n"}), required=frozenset({"word", "options"}), texts={
            "default": ('Which definition fits the word "{word}"?\n{options}\n'
                        "Reply with the number of the definition only."),
            "letters": ('Question: which definition fits the word "{word}"?\n{options}\n'
                        "Reply with the letter of the definition only."),
            "dictionary": ('A dictionary lists several senses. Which of these is the meaning of "{word}"?\n{options}\n'
                           "Give only the number.")}),
        "d2w": TemplateField(frozenset({"definition", "options", "n"}), required=frozenset({"definition", "options"}),
                             texts={
            "default": ('Which word has the definition "{definition}"?\n{options}\n'
                        "Reply with the number of the word only."),
            "letters": ('Question: which word has the definition "{definition}"?\n{options}\n'
                        "Reply with the letter of the word only."),
            "dictionary": ('A dictionary entry reads: "{definition}". Which headword does it define?\n{options}\n'
                           "Give only the number.")}),
    },
    exports=EXPORT,
)
