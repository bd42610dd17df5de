"""All-words word sense disambiguation by definition choice on Raganato et al.'s unified framework (EACL 2017).

Each instance of Senseval-2/3 and SemEval-2007/2013/2015 (ALL: their concatenation, 7,253 instances) is a
word in its sentence with its WordNet 3.0 senses as candidates; a model picks one sense (``methods.py``),
and the result holds the framework's P, R and F1 per set and part of speech beside the random,
WordNet-first-sense and SemCor most-frequent-sense baselines (``results.py``). docs/wsd.md has the recipes.

The package is dataset + methods + presentation: items (``items.py``), three methods that turn instances
into requests (``methods.py``), and the figures, tables and console text (``results.py``); resume,
distribution over ranks, run records, intervals, ``report``, ``compare`` and ``run`` come from the core.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from lexprobe.benchmarks.wsd import methods
from lexprobe.benchmarks.wsd import results as res
from lexprobe.benchmarks.wsd.config import WsdConfig, WsdRecipe
from lexprobe.benchmarks.wsd.export import EXPORT
from lexprobe.benchmarks.wsd.methods import Embedding, Likelihood
from lexprobe.core.contract import (
    Benchmark,
    BenchmarkMeta,
    Items,
    LLMPart,
    Presentation,
    Results,
    RunParts,
    Sample,
    SummaryColumn,
    prefers,
)
from lexprobe.prompting.templates import TemplateField


class Choose(methods.Choose):
    #: its results in the benchmark's tables, beside the other methods' on the same data (one table per data set)
    presentation = Presentation(tables=res.tables, format_result=res.format_result, figures=res.figures,
                                written=lambda *_: None, outputs=lambda out, config: {"--out": [out]})


def load_items(config: WsdConfig):
    """The run's items, with the systems its answers are compared with (the published systems' answers on these
    instances, ``--answers`` files): read before the model loads, so a bad answer file stops the run before any
    work."""
    from lexprobe.benchmarks.wsd import systems
    from lexprobe.benchmarks.wsd.items import load_items

    items = load_items(config)
    items.systems = systems.load(config, items.instances, items.universe)
    if config.method == "choose":  # a too-large --permutations or lettered options refused before the model loads
        from lexprobe.prompting.choose import check_labels, check_permutations

        largest = max(len(s) for s in items.senses.values())
        check_permutations(config.choose.permutations, largest, config.choose.max_candidates)
        check_labels(config.choose.template, largest, config.choose.max_candidates)
    return items


def key_file(out: Path) -> Path:
    """Where a result's key file is: ``<out>.key.txt`` (declared with ``--out``: guarded as an output)."""
    return Path(out).with_suffix(".key.txt")


def draw(config: WsdConfig) -> str | None:
    """``--limit`` as ``items.sample_per_set`` draws it: per set of the data, seeded (a smaller set whole)."""
    if not config.limit:
        return None
    return f"a seeded sample of {config.limit} instances of each set (--limit {config.limit} --seed {config.seed})"


def written(result: dict, out: Path, config: WsdConfig) -> None:
    """The answers as a key file beside the result, for the framework's own scorer (``Scorer.java``); the result
    records it (``evaluate.write`` writes it again)."""
    from lexprobe.outputs import write_atomic

    path = key_file(out)
    write_atomic(path, res.key_lines(result))
    result["key_file"] = str(path)


def counts(result: dict) -> dict[str, int]:
    rules: dict[str, int] = {}
    for r in result["instances"]:
        if r.get("mfs_rule") and r.get("permutation", 0) == 0 and r.get("rotation", 0) == 0:
            rules[r["mfs_rule"]] = rules.get(r["mfs_rule"], 0) + 1
    return {f"mfs {rule}": n for rule, n in rules.items()}


def default_run(out_dir: Path, part: Any) -> dict:
    """``lexprobe run``'s part: a seeded sample of each set of ALL (``--limit N --seed 0``, exactly what
    ``lexprobe wsd eval`` draws with those options); a model without continuations (MiniLM) by embedding.
    Without the framework in the data directory the part is skipped (``DataMissing``): nothing stands in. With the
    published systems' answers there (``lexprobe data fetch wsd-hard``) the part's result holds them on the same
    sample and their rows are printed; without them one line says so."""
    from lexprobe.asking.engine import serves
    from lexprobe.asking.requests import Continuation
    from lexprobe.benchmarks.wsd.config import WsdChooseOptions
    from lexprobe.core.contract import serves_method
    from lexprobe.core.evaluate import run_part
    from lexprobe.data.wsd import default_root
    from lexprobe.errors import DataMissing
    from lexprobe.models import load_scorer, prepare_model

    method = part.method
    # a model without continuations (MiniLM): its token vectors; read from its files (``PreparedModel.serves``: a
    # served model is known only once asked, so it keeps likelihood; its kind was once read as a local path)
    if method == "likelihood" and serves_method(WSD, "likelihood", prepare_model(part.model, **part.options).serves) \
            is False:
        method = "embedding"
    if not default_root().is_dir():
        raise DataMissing("the WSD framework is not in the data directory (nothing can stand in for it): "
                          "`lexprobe data fetch wsd`, or `lexprobe data import wsd PATH` for a copy you have",
                          method=method)
    scorer = load_scorer(part.model, prefer=prefers(WSD, method), **part.options)
    if method == "likelihood" and not serves(scorer, Continuation):
        method = "embedding"
    choose = WsdChooseOptions(chat=part.chat, units_per_batch=1) if method == "choose" else WsdChooseOptions()
    config = WsdConfig(method=method, limit=part.sample, seed=0, choose=choose)
    result = run_part(WSD, part, config, out_dir / f"{part.stem('wsd')}.json", scorer=scorer, quiet=True)
    shown = res.format_systems(result)  # the published systems on the same sample (none: ``systems.load`` said so)
    if shown:
        print(shown.strip(), flush=True)
    return {"metrics": result["metrics"]}


WSD = Benchmark(
    meta=BenchmarkMeta(
        name="wsd", title="All-words WSD", help="WSD: choose each word's WordNet sense in context (Raganato et al.)",
        unit="instance", tasks=(res.TASK,), datasets=("wordnet", "wsd", "semcor"), main_score="f1",
        unit_metrics=(("f1", "F1"), ("precision", "P"), ("recall", "R")),
        summary=(SummaryColumn("WSD F1 (%)", part="WSD"),)),
    Config=WsdConfig,
    #: the dataset is recorded from the items (``WsdItems.dataset``); --limit N: N instances of each set
    items=Items(load=load_items, draw=draw, sample=Sample("limit", lambda config, items: list(
        Counter(i.set_name for i in items.instances).values()))),
    methods={"likelihood": Likelihood(), "embedding": Embedding(), "choose": Choose()},
    recipes={"paper": WsdRecipe()},
    results=Results(unit_values=lambda result: res.unit_values(result["instances"]),
                    baseline_values=lambda result: res.baseline_values(result["instances"]),
                    slices=lambda result, units: res.slices(result["instances"], units),
                    aggregate=lambda result, task, slice, units: res.aggregate(units),
                    breakdowns=lambda result: res.breakdowns(result["instances"]),
                    counts=counts),
    presentation=Presentation(
        tables=res.tables, format_result=res.format_result, figures=res.figures, failure_rows=res.failure_rows,
        written=written, table_group=res.data_group, breakdowns=res.breakdown_figures,
        outputs=lambda out, config: {"--out": [out], "--out (its key file)": [key_file(out)]},
        failure_columns=(("set", "set"), ("word", "word"), ("sentence", "sentence"), ("gold", "gold sense"),
                         ("predicted", "chosen sense")),
        failure_note="a failure is an instance whose chosen sense is none of its gold senses (or that was not answered)."),
    #: instances per set (5 sets): the default model's, and the causal LM's by likelihood and asked in chat
    run=RunParts(default_run, {"quick": 20, "full": 100},
                 (LLMPart("likelihood", False, {"quick": 6, "full": 40}),
                  LLMPart("choose", True, {"quick": 3, "full": 20}))),
    template_fields={
        "wsd": TemplateField(frozenset({"sentence", "word", "options"}), required=frozenset({"word", "options"}),
                             texts={
            "default": ('In the sentence below, which definition fits the word "{word}"?\n{sentence}\n{options}\n'
                        "Reply with the number of the definition only."),
            "letters": ('Question: in the sentence below, which definition fits the word "{word}"?\n{sentence}\n'
                        "{options}\nReply with the letter of the definition only."),
            "dictionary": ('A dictionary lists several senses of "{word}". Which one is meant here?\n{sentence}\n'
                           "{options}\nGive only the number.")})},
    exports=EXPORT,
)
