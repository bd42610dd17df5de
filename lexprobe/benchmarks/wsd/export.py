"""All-words WSD's export: the framework's instances per set, with their WordNet candidates, and one lm-eval task
per set whose choices are the candidate definitions.

The items are those ``lexprobe wsd eval`` reads with the same options (``--data``: ALL by default, a set, a file
of one's own; ``--pos``; ``--limit``/``--seed``: a seeded sample of each set). The framework has no licence
file: the card says research use under its terms, as docs/wsd.md does. The lm-eval prompt is lexprobe's
likelihood pattern (``--pattern means``: the sentence with the target in double quotes, then ``In this
sentence, "<word>" means``), each candidate's definition a choice; lm-eval sums a choice's log-probabilities,
so its accuracy is lexprobe's F1 with ``--reduce sum`` (lexprobe's default, the per-token mean, has no lm-eval
counterpart).
"""

from __future__ import annotations

from lexprobe.core.exports import (
    BenchmarkExport,
    Configuration,
    ExportOptions,
    LMEvalTask,
    PartRows,
    Selection,
    Source,
)
from lexprobe.data.wsd import ROWS, SETS

CITATION = """@inproceedings{raganato-etal-2017-word,
    title = "Word Sense Disambiguation: A Unified Evaluation Framework and Empirical Comparison",
    author = "Raganato, Alessandro and Camacho-Collados, Jose and Navigli, Roberto",
    booktitle = "Proceedings of the 15th Conference of the European Chapter of the Association for Computational Linguistics: Volume 1, Long Papers",
    year = "2017",
    publisher = "Association for Computational Linguistics",
}"""

SUMMARY = ("The unified all-words WSD evaluation framework (Raganato, Camacho-Collados & Navigli, EACL 2017): "
           "Senseval-2, Senseval-3, SemEval-2007, SemEval-2013 and SemEval-2015 in one format with WordNet 3.0 "
           "sense keys. Each row is an instance: `tokens[index]` of its sentence, its lemma and part of speech "
           "(N, V, A, R), its gold sense keys (any one is right) and its candidates, the WordNet 3.0 senses of "
           "the lemma and part of speech in WordNet's order (sense 1 first), each with its key and definition.")

BUILT = """lexprobe reads the framework's `<set>.data.xml` and `<set>.gold.key.txt` (a copy pinned by SHA-256: docs/wsd.md)
strictly, and looks the candidates up in WordNet 3.0 (adjectives with satellites; every gold key is a candidate).
The `ALL` configuration is the five sets together, as the framework's ALL (instance ids prefixed with the set)."""

NOTES = """- One task per set; a doc is an instance, its choices the candidates' definitions after lexprobe's
  likelihood prompt (`--pattern means`), `acc` = 1 when the best-scoring definition (the first in WordNet's order
  on a tie, as lexprobe picks) is one of the gold senses. `acc` equals lexprobe's F1 with `--reduce sum` (every
  instance answered); lexprobe's default `--reduce mean` (per-token mean) has no lm-eval counterpart: lm-eval
  hands a task only summed log-likelihoods (the measured difference on SmolLM2: docs/wsd.md).
- The embedding and ask-to-choose methods, and the baselines, stay in lexprobe."""


def select(options: ExportOptions) -> Selection:
    from lexprobe.benchmarks.wsd.config import WsdConfig
    from lexprobe.benchmarks.wsd.items import load_items
    from lexprobe.data import wsd_hard
    from lexprobe.data.registry import DATASETS
    from lexprobe.data.wsd import OFFICIAL, instance_row
    from lexprobe.outputs import require_name
    from lexprobe.tables import md_code

    config = WsdConfig(data=options.data or "ALL", pos=options.pos_of(WsdConfig, "wsd"), limit=options.limit,
                       seed=options.seed)
    items = load_items(config)
    parts = []
    for name in dict.fromkeys(i.set_name for i in items.instances):
        require_name(name, "the WSD set")  # a set names a part's folder and a task: one name (`...data.xml`: '..')
        rows = [instance_row(i, items.senses[i.id]) for i in items.instances if i.set_name == name]
        parts.append(PartRows({"set": name}, name, rows))
    folders = tuple(p.folder for p in parts)
    configurations = [Configuration("ALL", folders, True)] if len(folders) > 1 else []
    configurations += [Configuration(f, (f,), not configurations and i == 0) for i, f in enumerate(folders)]
    ds = DATASETS["wsd"]
    source = Source(ds.title, ds.licence, ds.upstream, ds.pin, redistributable=True, hub_licence="other",
                    licence_name="research use under the WSD framework's terms",
                    licence_link="http://lcl.uniroma1.it/wsdeval/")
    if any(OFFICIAL[p.folder].dataset == wsd_hard.NAME for p in parts if p.folder in OFFICIAL):
        hard = DATASETS[wsd_hard.NAME]  # Maru et al.'s sets: their licence, not the framework's
        source = Source(hard.title, hard.licence, hard.upstream, hard.pin, redistributable=False, hub_licence="other",
                        licence_name="CC BY-NC 4.0", licence_link="https://creativecommons.org/licenses/by-nc/4.0/")
    wordnet = Source("WordNet 3.0 (candidate senses and definitions)", "WordNet 3.0 licence", "wordnet.princeton.edu",
                     "3.0", hub_licence=None)
    counts = ", ".join(f"{md_code(p.folder)}: {len(p.rows)} instances" for p in parts)
    built = f"{BUILT}\n\nThis export: {counts}" + (f"; a seeded sample of {options.limit} per set (--limit, --seed "
                                                  f"{options.seed})." if options.limit else ".")
    return Selection(parts, configurations, [source, wordnet], built, items=items)


def lm_eval(selection: Selection) -> list[LMEvalTask]:
    from lexprobe.benchmarks.wsd.config import PATTERNS
    from lexprobe.benchmarks.wsd.items import marked

    items = selection.items
    tasks = []
    for name in dict.fromkeys(i.set_name for i in items.instances):
        docs = []
        for inst in (i for i in items.instances if i.set_name == name):
            senses = items.senses[inst.id]
            golds = [j for j, s in enumerate(senses) if s.key in inst.gold]
            if not senses or not golds:
                continue
            docs.append({"id": inst.id, "pos": inst.pos, "gold": golds[0], "golds": golds,
                         "context": PATTERNS["means"].format(marked=marked(inst), word=inst.tokens[inst.index]),
                         "continuations": [s.definition for s in senses], "keys": [s.key for s in senses]})
        label = name if name not in SETS else name
        tasks.append(LMEvalTask(f"lexprobe_wsd_{label.lower()}", "senses", "lexprobe_wsd", docs,
                                f"All-words WSD, {label}: choose the sense's definition"))
    return tasks


EXPORT = BenchmarkExport(
    benchmark="wsd", pretty_name="All-words WSD (Raganato et al. 2017)", rows=ROWS, summary=SUMMARY,
    citation=CITATION, task_categories=("multiple-choice",), select=select, lm_eval=lm_eval, lm_eval_notes=NOTES,
)
