"""CoDA21 as a ``Benchmark`` (command ``coda21``, alias ``coda``).

Methods: ``likelihood`` (a k x k match-score matrix per group from the model's answers to requests:
continuations, pseudo-log-likelihoods, embeddings or random scores, then the alignment; ``likelihood.py``),
``choose`` (the group as one matching question to a causal LM, ``choose.py``) and ``ask`` (the authors'
yes/no question per context-definition pair, P(Yes) aligned; causal or masked LMs, ``ask.py``). Recipes:
``recipe.py``; result sections: ``results.py``; tables and console text: ``tables.py``.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.benchmarks.coda21 import results as res
from lexprobe.benchmarks.coda21 import tables as tab
from lexprobe.benchmarks.coda21.ask import Ask
from lexprobe.benchmarks.coda21.choose import Choose
from lexprobe.benchmarks.coda21.cli import load_items, register_commands, run_default
from lexprobe.benchmarks.coda21.config import CodaConfig, parts_of_speech
from lexprobe.benchmarks.coda21.export import EXPORT
from lexprobe.benchmarks.coda21.human_set import coda_results, human_item_set
from lexprobe.benchmarks.coda21.likelihood import Likelihood
from lexprobe.benchmarks.coda21.recipe import RECIPES
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
)
from lexprobe.errors import LexprobeError
from lexprobe.prompting.templates import BLANK, TemplateField


def check_config(config: CodaConfig) -> None:
    if not config.nonce.strip():
        raise LexprobeError("--nonce must be a non-empty word")
    if len(set(config.ask.questions)) != len(config.ask.questions):
        raise LexprobeError(f"--questions {' '.join(map(str, config.ask.questions))} names a question twice; "
                            "give each of 1, 2, 3 at most once")


def dataset(config: CodaConfig) -> dict | None:
    """The official file's variant, or a stand-in: the small CoDA21-style set ``lexprobe run`` builds from
    WordNet (``cli.build_small``, a ``coda21-small-*.json`` file) when the official files are missing."""
    from lexprobe.benchmarks.coda21.cli import OFFICIAL_FILES, SMALL_PREFIX
    from lexprobe.data.exported import part_keys

    if config.data is None:
        return None
    name = Path(str(config.data)).name
    if name.startswith(SMALL_PREFIX):
        return {"name": name, "sample": True,
                "what": "a small CoDA21-style set built from WordNet in place of the official CoDA21 files",
                "get": "lexprobe data fetch coda21"}
    variant = next((v for v, f in OFFICIAL_FILES.items() if name in (v, f)), None)
    exported = {key.get("variant") for key in part_keys(config.data)}  # an exported folder names its variant
    if len(exported) == 1:
        variant = exported.pop()
    return {"name": f"CoDA21 {variant}" if variant else name, "sample": False}


def draw(config: CodaConfig) -> str | None:
    """``--limit`` as the methods take it: the file's first groups of each part of speech, in file order."""
    return f"the first {config.limit} groups of each part of speech (--limit {config.limit})" if config.limit else None


def figures(result: dict, folder: Path, stem: str) -> list[tuple[str, Path]]:
    """A misaligned and an aligned group's score matrices as heatmaps, each beside its column-centred map."""
    from lexprobe.benchmarks.coda21.plot import draw_heatmap
    from lexprobe.core.result_schema import model_name

    wrong = [g for g in result["instances"] if g["accuracy"] < 1]
    right = [g for g in result["instances"] if g["accuracy"] == 1]
    out = []
    for what, group in (("a misaligned group", wrong[:1]), ("an aligned group", right[:1])):
        for g in group:
            slug = "".join(ch if ch.isalnum() else "-" for ch in g["id"])
            path = draw_heatmap(g, folder / f"{stem}-{slug}.png", centred=True)
            out.append((f"CoDA21 {model_name(result)}: {what} ({g['id']}), raw and column-centred scores", path))
    return out


CODA21 = Benchmark(
    meta=BenchmarkMeta(
        name="coda21", title="CoDA21", help="CoDA21: align contexts with definitions of hidden words",
        unit="group", tasks=("alignment",), datasets=("wordnet", "coda21-clean-easy", "coda21-clean-hard"),
        main_score="accuracy", unit_metrics=(("accuracy", "accuracy"), ("simple_accuracy", "simple matching")),
        aliases=("coda",), summary=(SummaryColumn("CoDA21 acc. (%)", task="alignment", part="CoDA21"),),
    ),
    Config=CodaConfig,
    #: --limit N keeps the first N groups of each part of speech (the estimate's suggested --limit)
    items=Items(load=load_items, check=check_config, dataset=dataset, draw=draw,
                sample=Sample("limit", lambda config, items: [min(len(items.by_pos(p)),
                                                                  config.limit or len(items.groups))
                                                              for p in parts_of_speech(config.pos)])),
    methods={"likelihood": Likelihood(), "ask": Ask(), "choose": Choose()},
    recipes=RECIPES,
    results=Results(unit_values=res.unit_values, baseline_values=lambda result: {"random": res.random_units(result)},
                    slices=res.slices, instance_spec=lambda result: res.GroupInstance, sections=res.sections,
                    breakdowns=lambda result: {res.TASK: {"by_k": res.breakdown_by_k(
                        result["instances"], intervals=result["method"] != "human")}}),
    presentation=Presentation(
        tables=tab.likelihood_tables, format_result=tab.format_result, figures=figures, failure_rows=res.failure_rows,
        table_group=res.data_name, breakdowns=res.breakdown_figures, failure_columns=tuple(res.FAILURE_COLUMNS),
        failure_note=("a failure is a group with at least one context aligned to another synset's definition "
                      "(alignment accuracy below 100%).")),
    commands=register_commands,
    #: ``lexprobe run``: the samples (groups per POS) sized in docs/llm.md, "The main job"
    run=RunParts(run_default, {"quick": 10, "full": None},
                 (LLMPart("likelihood", False, {"quick": 4, "full": 15}, "clean-hard"),
                  LLMPart("choose", True, {"quick": 4, "full": 15}, "clean-hard"))),
    human=HumanItems("align", human_item_set, coda_results),
    template_fields={
        "coda": TemplateField(frozenset({"contexts", "definitions", "k"}), required=frozenset({"contexts", "definitions"}),
                              texts={
            "default": ("In each numbered sentence a word was replaced by " + BLANK + ". The hidden words are different.\n"
                        "Sentences:\n{contexts}\nDefinitions:\n{definitions}\n"
                        "Match each sentence to the definition of its hidden word; use each definition once. "
                        "Reply on one line in the form 1: A, 2: B, ..."),
            "dictionary": ("Each sentence below has one word hidden as " + BLANK + "; every sentence hides a different "
                           "word.\n{contexts}\nDictionary definitions:\n{definitions}\n"
                           "Pair every sentence with the definition of its hidden word, each definition used once. "
                           "Give only the pairs on one line, like 1: A, 2: B, ...")}),
        # read after the prompt before the definition letter of context c (the label likelihood)
        "coda_row": TemplateField(frozenset({"context"}), texts={"default": " {context}:"}, after_answer=True),
    },
    exports=EXPORT,
)
