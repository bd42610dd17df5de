"""CoDA21 as a ``Benchmark`` (command ``coda21``, alias ``coda``).

Methods: ``likelihood`` (a k x k match-score matrix per group from the model's
log-probabilities, pseudo-log-likelihoods, embedding cosines or random scores, then the
alignment; ``likelihood.STRATEGIES`` picks by capability), ``choose`` (the group as one
matching question to a causal LM, ``choose.py``) and ``ask`` (the authors'
yes/no question per context-definition pair, P(Yes) aligned; causal or masked LMs,
``ask.py``). Recipes: ``recipe.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from lexprobe.benchmarks.base import Benchmark, BenchmarkMeta, LLMPart, Method, SummaryColumn
from lexprobe.benchmarks.coda21.config import CodaConfig
from lexprobe.benchmarks.coda21.recipe import RECIPES
from lexprobe.errors import DataError, LexprobeError
from lexprobe.prompting.method import ChooseMethod
from lexprobe.prompting.templates import BLANK, TemplateField
from lexprobe.result_schema import is_choose
from lexprobe.scorers.capabilities import RandomScores, SentenceEmbeddings, SlotLogprobs, TokenLogprobs


class Likelihood(Method):
    name = "likelihood"
    requires = (RandomScores, TokenLogprobs, SlotLogprobs, SentenceEmbeddings)

    def run(self, job):
        from lexprobe.benchmarks.coda21.likelihood import run_likelihood

        return run_likelihood(job)


class Choose(ChooseMethod):
    """The group as one matching question (``choose.py``); a unit is a group whose contexts can hide their
    target (the others are skipped and listed), answered by an alignment."""

    unit_field, answer_key = "id", "assignment"

    def units(self, job):
        from lexprobe.benchmarks.coda21.choose import blankable

        return [(g.id, g) for g in blankable(job.items, job.config.pos, job.config.limit)[0]]

    def skipped(self, job):
        from lexprobe.benchmarks.coda21.choose import blankable

        return [{"unit": p["group"], "reason": p["reason"]}
                for p in blankable(job.items, job.config.pos, job.config.limit)[1]]

    def prompts(self, job, unit):
        from lexprobe.benchmarks.coda21.choose import prompts_per_group

        return prompts_per_group(unit, job.config.choose)

    def items(self, job, units, template):
        from lexprobe.benchmarks.coda21.choose import build_items

        return build_items(units, job.config, template)

    def score(self, job, engine, items, template):
        from lexprobe.benchmarks.coda21.choose import score_items

        return score_items(engine, items, job.config.choose, template)

    def scores(self, reading):
        from lexprobe.benchmarks.coda21.choose import scores

        return scores(reading)

    def gold_positions(self, record):
        from lexprobe.benchmarks.coda21.choose import gold_positions

        return gold_positions(record)

    def random(self, asked):
        from lexprobe.benchmarks.coda21.choose import random_figures

        return random_figures(asked)


class Ask(Method):
    name = "ask"
    requires = (TokenLogprobs, SlotLogprobs)

    def run(self, job):
        from lexprobe.benchmarks.coda21.ask import run_ask

        return run_ask(job)


class CoDA21(Benchmark):
    meta = BenchmarkMeta(
        name="coda21", title="CoDA21", help="CoDA21: align contexts with definitions of hidden words",
        unit="group", tasks=("alignment",), datasets=("wordnet", "coda21-clean-easy", "coda21-clean-hard"),
        main_score="accuracy", unit_metrics=(("accuracy", "accuracy"), ("simple_accuracy", "simple matching")),
        aliases=("coda",), summary=(SummaryColumn("CoDA21 acc. (%)", task="alignment", part="CoDA21"),),
    )
    Config = CodaConfig
    recipes = RECIPES
    methods: ClassVar[dict[str, Method]] = {"likelihood": Likelihood(), "choose": Choose(), "ask": Ask()}
    human_item_kind = "align"
    template_fields: ClassVar[dict[str, TemplateField]] = {
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
    }

    def check_config(self, config: CodaConfig) -> None:
        if not config.nonce.strip():
            raise LexprobeError("--nonce must be a non-empty word")
        if len(set(config.ask.questions)) != len(config.ask.questions):
            raise LexprobeError(f"--questions {' '.join(map(str, config.ask.questions))} names a question twice; "
                            "give each of 1, 2, 3 at most once")

    failure_note = ("a failure is a group with at least one context aligned to another synset's definition "
                    "(alignment accuracy below 100%).")

    def dataset(self, config: CodaConfig) -> dict | None:
        """The official file's variant, or a stand-in: the small CoDA21-style set ``lexprobe run`` builds from
        WordNet (``cli.build_small``, a ``coda21-small-*.json`` file) when the official files are missing."""
        from lexprobe.benchmarks.coda21.cli import OFFICIAL_FILES, SMALL_PREFIX

        if config.data is None:
            return None
        name = Path(str(config.data)).name
        if name.startswith(SMALL_PREFIX):
            return {"name": name, "sample": True,
                    "what": "a small CoDA21-style set built from WordNet in place of the official CoDA21 files",
                    "get": "lexprobe data fetch coda21"}
        variant = next((v for v, f in OFFICIAL_FILES.items() if name in (v, f)), None)
        from lexprobe.data.exported import part_keys

        exported = {key.get("variant") for key in part_keys(config.data)}  # an exported folder names its variant
        if len(exported) == 1:
            variant = exported.pop()
        return {"name": f"CoDA21 {variant}" if variant else name, "sample": False}

    def load_items(self, config: CodaConfig):
        from lexprobe.benchmarks.coda21.cli import resolve_coda_file
        from lexprobe.benchmarks.coda21.dataset import load_coda

        if config.data is None:
            raise DataError("CoDA21 needs --data: a CoDA21 JSON file or a variant name (clean-hard, ...)")
        data = load_coda(resolve_coda_file(config.data))
        for problem in data.problems:
            print(f"lexprobe: skipping {problem}")
        if not data.groups:
            raise DataError(f"{config.data} has no usable CoDA21 groups ({len(data.problems)} malformed)")
        if config.method == "choose":  # a too-large --permutations refused before the (slow) model load
            from lexprobe.prompting.choose import check_labels, check_permutations

            check_permutations(config.choose.permutations, max(g.k for g in data.groups),
                               config.choose.max_candidates, squared=True)
            check_labels(config.choose.template, max(g.k for g in data.groups), config.choose.max_candidates,
                         lettered=True)  # the definitions are lettered whatever the template (coda_question)
        return data

    def upgrade(self, legacy: dict) -> dict:
        from lexprobe.benchmarks.coda21.results import upgrade

        return upgrade(legacy)

    def instance_spec(self, result):
        from lexprobe.benchmarks.coda21.results import instance_spec

        return instance_spec(result)

    def unit_values(self, result):
        if is_choose(result):  # one unit per question, each reading's scores over its orders
            return self.methods["choose"].unit_values(result)
        from lexprobe.benchmarks.coda21.results import unit_values

        return unit_values(result)

    # --- records in, sections out: the groups of the likelihood and ask methods and of people (results.py) ---
    def sections(self, records, method, config):
        from lexprobe.benchmarks.coda21.results import without_empty_slices

        out = super().sections(records, method, config)
        return out if method == "choose" else without_empty_slices(out, method)

    def slices(self, result, units):
        from lexprobe.benchmarks.coda21.results import slices

        return slices(result, units)

    def baseline_values(self, result):
        from lexprobe.benchmarks.coda21.results import random_units

        return {"random": random_units(result)}

    def breakdowns(self, result):
        from lexprobe.benchmarks.coda21.results import TASK, breakdown_by_k

        return {TASK: {"by_k": breakdown_by_k(result["instances"], intervals=result["method"] != "human")}}

    def table_group(self, result):
        from lexprobe.benchmarks.coda21.results import data_name

        return data_name(result)

    def tables(self, results):
        from lexprobe.benchmarks.coda21.tables import tables

        return tables(results)

    def figures(self, result, folder: Path, stem: str):
        if is_choose(result) or not result["instances"]:
            return []  # heatmaps need the likelihood method's score matrices
        from lexprobe.benchmarks.coda21.plot import draw_heatmap
        from lexprobe.result_schema import model_name

        wrong = [g for g in result["instances"] if g["accuracy"] < 1]
        right = [g for g in result["instances"] if g["accuracy"] == 1]
        out = []
        for what, group in (("a misaligned group", wrong[:1]), ("an aligned group", right[:1])):
            for g in group:
                slug = "".join(ch if ch.isalnum() else "-" for ch in g["id"])
                path = draw_heatmap(g, folder / f"{stem}-{slug}.png")
                out.append((f"CoDA21 {model_name(result)}: {what} ({g['id']})", path))
        return out

    @property
    def failure_columns(self):  # type: ignore[override]
        from lexprobe.benchmarks.coda21.results import FAILURE_COLUMNS

        return FAILURE_COLUMNS

    def failure_rows(self, result):
        from lexprobe.benchmarks.coda21.results import failure_rows

        return failure_rows(result)

    def format_result(self, result):
        if is_choose(result):
            from lexprobe.benchmarks.coda21.console import choose_report

            return choose_report(result)
        from lexprobe.benchmarks.coda21.console import format_result

        if result.get("method") == "ask":
            ask = result["config"].get("ask") or {}
            return (f"asked: question(s) {', '.join(map(str, ask.get('questions', [])))}, P(Yes) against P(No)"
                    f"{' averaged' if len(ask.get('questions', [])) > 1 else ''}, aligned\n" + format_result(result))
        return format_result(result)

    def register_commands(self, sub: Any) -> None:
        from lexprobe.benchmarks.coda21.cli import register_commands

        register_commands(sub)

    #: ``lexprobe run``: the samples (groups per POS) sized in docs/llm.md, "The main job"
    run_samples: ClassVar[dict[str, int | None]] = {"quick": 10, "full": None}
    llm_parts = (LLMPart("likelihood", False, {"quick": 4, "full": 15}, "clean-hard"),
                 LLMPart("choose", True, {"quick": 4, "full": 15}, "clean-hard"))

    def default_run(self, out_dir, part):
        from lexprobe.benchmarks.coda21.cli import run_default

        return run_default(out_dir, part)

    def human_item_set(self, args):
        from lexprobe.benchmarks.coda21.cli import resolve_coda_file
        from lexprobe.benchmarks.coda21.dataset import parse_coda
        from lexprobe.benchmarks.coda21.human import S20_SEED, S20_SIZE, build_sample

        path = resolve_coda_file(args.data or "clean-easy")
        pos = args.pos or "n"
        if pos == "both":
            raise DataError("CoDA21 human subsets are drawn from one part of speech; pass --pos n or --pos v")
        seed = S20_SEED if args.seed is None else args.seed
        n = S20_SIZE if args.subset == "paper" else args.subset
        # the same groups, in the same order and with the same ids, as `coda sample-human` writes for the models
        data = parse_coda(build_sample(path, size=n, seed=seed, pos=pos), source=path.name, pos=(pos,))
        if data.problems:
            raise DataError(f"{path}: the sampled group {data.problems[0]}; repair the file or choose another --seed")
        from lexprobe.benchmarks.coda21.human_set import coda_item_set

        return coda_item_set(data.groups, seed, str(args.subset), source=path.name)

    def human_results(self, item_set, answers):
        from lexprobe.benchmarks.coda21.human_set import coda_results

        return coda_results(self, item_set, answers)


