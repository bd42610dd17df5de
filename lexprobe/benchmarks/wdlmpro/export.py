"""WDLMPro's export: the groups per part of speech, and its W2D and D2W lm-eval tasks in the paper's causal pattern.

The items are those ``lexprobe wdlmpro eval`` reads with the same options (``dataset.select_groups``: the
full build from WordNet by default, 51,260 noun and 8,487 verb groups). The lm-eval prompts are the paper
recipe's causal pattern (``recipe.PAPER``, ``scoring.fill``: ``<DEF> is the definition of`` + `` word``,
verbs ``to <DEF> is the definition of``): W2D is lm-eval's multiple-input form (one word after each
candidate definition), D2W the usual one (each candidate word after the target's definition).
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.benchmarks.wdlmpro import dataset as ds
from lexprobe.core.exports import (
    BenchmarkExport,
    Configuration,
    ExportOptions,
    LMEvalTask,
    PartRows,
    Selection,
    Source,
)

CITATION = """@inproceedings{senel-schutze-2021-wink,
    title = "Does He Wink or Does He Nod? A Challenging Benchmark for Evaluating Word Understanding of Language Models",
    author = {Senel, L{\\"u}tfi Kerem and Sch{\\"u}tze, Hinrich},
    booktitle = "Proceedings of the 16th Conference of the European Chapter of the Association for Computational Linguistics: Main Volume",
    year = "2021",
    publisher = "Association for Computational Linguistics",
}"""

SUMMARY = ("WDLMPro (Senel & Schütze 2021) tests whether a model matches words and their WordNet definitions. Each "
           "row is a synset group: a target synset and its taxonomic sisters (the hyponyms of its direct "
           "hypernyms), the target first in `candidates`. W2D asks for the target's definition among the "
           "candidates' definitions, D2W for the target's word among the candidates' words; the gold answer is "
           "always candidate 0.")

BUILT = """For every noun and verb synset *t* of WordNet 3.0 in data-file order: *t*, then the hyponyms of each
direct hypernym of *t* (no instance relations), hypernyms and hyponyms each in order of synset name; a candidate
whose string form (the synset name without POS and sense number, `_` as spaces) or definition already occurs in
the group is skipped; groups with fewer than 5 members are dropped (`lexprobe wdlmpro build`; docs/wdlmpro.md of
lexprobe). This gives 51,260 noun and 8,487 verb groups, the paper's counts."""

NOTES = """- **W2D** scores ` word` after `<definition> is the definition of` (verbs: `to <definition> is the
  definition of`) for every candidate definition: lm-eval's multiple-input form. lexprobe's causal-LM W2D
  scores the same continuation with the same tokenisation (context and continuation encoded together and
  split), so `acc` equals lexprobe's W2D P@1 and `rank_score` its RS.
- **D2W** scores each candidate ` word` after the target's definition. lm-eval scores the **whole word**
  (the sum of its tokens' log-probabilities); lexprobe's causal D2W (the paper's) scores its **first token**
  only, so a word of several tokens and two words sharing a first token are ranked differently: lm-eval's
  `acc` equals lexprobe's D2W P@1 only where every candidate word is one token. docs/interop.md gives the
  measured difference.
- **Ties**: lm-eval's own `acc` takes the first best choice, and the gold answer is always choice 0, so a
  tie would count for the model; these tasks' `process_results` count a tie against the gold answer, as
  lexprobe does (`acc`, `rank_score`).
- Only the paper recipe's causal pattern is exported: masked LMs (the patterns with a blank), the authors'
  recipe, sentence encoders and `--method choose` stay in lexprobe."""


def select(options: ExportOptions) -> Selection:
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig

    groups = ds.select_groups(options.data, options.pos_of(WDLMProConfig, "wdlmpro"), options.limit, options.seed)
    parts = []
    for pos in ("n", "v"):
        mine = [ds.group_to_dict(g) for g in groups if g.pos == pos]
        if mine:
            parts.append(PartRows({"pos": pos}, ds.POS_NAMES[pos], mine))
    configurations = [Configuration("all", tuple(p.folder for p in parts), default=True)]
    configurations += [Configuration(p.folder, (p.folder,)) for p in parts]
    return Selection(parts, configurations, _sources(options), _built(options, parts), items=groups)


def _sources(options: ExportOptions) -> list[Source]:
    from lexprobe import __version__
    from lexprobe.data.registry import DATASETS

    wordnet = DATASETS["wordnet"]
    out = [Source("WordNet 3.0", wordnet.licence, "Princeton WordNet 3.0, read with NLTK (Debian's wordnet-base or "
                  "nltk_data)", ds.wordnet_key(), hub_licence="other", licence_name="wordnet-3.0",
                  licence_link="https://wordnet.princeton.edu/license-and-commercial-use")]
    if options.data:
        from lexprobe.provenance import file_sha256

        path = Path(options.data)
        out.append(Source(f"WDLMPro groups file {path.name}", "built from WordNet 3.0 (its licence above)",
                          "lexprobe wdlmpro build", f"lexprobe {__version__}, WDLMPro builder {ds.BUILDER_VERSION}",
                          sha256=file_sha256(path) if path.is_file() else None, hub_licence=None))
    return out


def _built(options: ExportOptions, parts: list[PartRows]) -> str:
    counts = ", ".join(f"{len(p.rows):,} {p.folder} groups" for p in parts)
    from lexprobe.tables import md_code

    source = f"read from {md_code(Path(options.data).name)}" if options.data else "built from WordNet (the full build)"
    sample = (f"; a seeded sample of {options.limit} groups per part of speech (seed {options.seed}), the sample "
              f"`lexprobe wdlmpro eval --limit {options.limit} --seed {options.seed}` reads") if options.limit else ""
    return f"{BUILT}\n\nThis export: {counts}, {source}{sample}."


def _context(pattern: str, definition: str) -> str:
    """What a causal LM reads before the word (``likelihood.Asker.continuation``'s context, paper recipe)."""
    from lexprobe.benchmarks.wdlmpro.likelihood import fill
    from lexprobe.benchmarks.wdlmpro.recipe import PAPER

    left, _ = fill(pattern, PAPER.show_definition(definition, pattern.startswith("<DEF>")))
    return left.rstrip()


def lm_eval(selection: Selection) -> list[LMEvalTask]:
    from lexprobe.benchmarks.wdlmpro.recipe import PAPER

    tasks = []
    for part in selection.parts:
        pos = part.key["pos"]
        groups = [g for g in selection.items if g.pos == pos]
        w2d, d2w = PAPER.causal_patterns[("w2d", pos)], PAPER.causal_patterns[("d2w", pos)]
        tasks.append(LMEvalTask(f"lexprobe_wdlmpro_w2d_{part.folder}", "contexts", "lexprobe_wdlmpro_w2d", [
            {"id": g.target, "pos": pos, "word": g.word, "candidates": [c.synset for c in g.candidates],
             "contexts": [_context(w2d, c.definition) for c in g.candidates], "continuation": g.word, "gold": 0}
            for g in groups], f"WDLMPro W2D, {part.folder}s: which definition is the word's"))
        tasks.append(LMEvalTask(f"lexprobe_wdlmpro_d2w_{part.folder}", "continuations", "lexprobe_wdlmpro_d2w", [
            {"id": g.target, "pos": pos, "definition": g.definition, "candidates": [c.synset for c in g.candidates],
             "context": _context(d2w, g.definition), "continuations": [c.word for c in g.candidates], "gold": 0}
            for g in groups], f"WDLMPro D2W, {part.folder}s: which word the definition defines"))
    return tasks


EXPORT = BenchmarkExport(
    benchmark="wdlmpro", pretty_name="WDLMPro", rows=ds.ROWS, summary=SUMMARY, citation=CITATION,
    task_categories=("multiple-choice",), select=select, lm_eval=lm_eval, lm_eval_notes=NOTES,
)
