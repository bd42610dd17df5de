"""Word-in-context, multilingual and cross-lingual: does a word mean the same in two sentences? (MCL-WiC, Martelli,
Kalach, Tola & Navigli, SemEval-2021 Task 2).

A benchmark of the pair task type (``tasks.pair``): its items (``items.py``: MCL-WiC's pairs by language pair) and
how it asks (the yes/no question of lm-eval's WiC task, naming the word of each sentence where they differ); the
methods (embedding, ask), the fitted thresholds, results, tables and exports are the task type's. docs/wic.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexprobe.benchmarks.wic import items
from lexprobe.core.cli_common import positive_int
from lexprobe.core.contract import Items, LLMPart, RunParts, SummaryColumn
from lexprobe.core.exports import Source
from lexprobe.core.options import option
from lexprobe.data import mcl_wic
from lexprobe.prompting.choose_cli import ChooseOptions
from lexprobe.tasks import pair

CITATION = """@inproceedings{martelli-etal-2021-semeval,
    title = "{S}em{E}val-2021 Task 2: Multilingual and Cross-lingual Word-in-Context Disambiguation ({MCL}-{W}i{C})",
    author = "Martelli, Federico and Kalach, Najla and Tola, Gabriele and Navigli, Roberto",
    booktitle = "Proceedings of the 15th International Workshop on Semantic Evaluation (SemEval-2021)",
    year = "2021",
    publisher = "Association for Computational Linguistics",
    pages = "24--36",
}"""


@dataclass(frozen=True)
class WicConfig(pair.PairOptions):
    data: str = option(f"{mcl_wic.NAME}:en-en", "the pairs: mcl-wic:<language pair> (en-en, ar-ar, fr-fr, ru-ru, "
                                                "zh-zh, en-ar, en-fr, en-ru, en-zh), mcl-wic:multilingual, "
                                                "mcl-wic:crosslingual, mcl-wic:all; a .data file of your own (its "
                                                ".gold beside it); or an export folder", key=False)
    split: str = option("test", "the split scored (dev: the multilingual pairs only)", choices=("dev", "test"))
    fit_on: str = option("training", "where each threshold is fitted: the en-en training set, or each pair's own "
                                     "dev set (cross-lingual pairs: en-en's); never the split scored",
                         choices=("training", "dev"))
    fit_limit: int | None = option(None, "a seeded sample of N pairs of each set fitted on (default: all)",
                                   type=positive_int)


def question(p: pair.PairItem) -> str:
    """lm-eval's WiC prompt (``super_glue/wic``), each sentence's word named where they differ (cross-lingual)."""
    w1, w2 = p.first.word, p.second.word
    word = f"the word '{w1}'" if w1 == w2 else f"the word '{w1}' in sentence 1 and '{w2}' in sentence 2"
    what = "used in the same way in the two sentences above" if w1 == w2 else "used with the same meaning"
    return f"Sentence 1: {p.first.text}\nSentence 2: {p.second.text}\nQuestion: Is {word} {what}?\nAnswer:"


def default_run(out_dir: Path, part: Any) -> dict:
    """``lexprobe run``'s part: a seeded sample of the en-en test pairs (``--limit``), each threshold fitted on a
    seeded sample of the en-en training set twice its size; skipped in one line without MCL-WiC (nothing stands
    in for it)."""
    from lexprobe.core.evaluate import run_part
    from lexprobe.errors import DataMissing

    method = "embedding" if part.method == "likelihood" else part.method
    if not (mcl_wic.folder() / mcl_wic.set_files("test", "en-en")[0]).is_file():
        raise DataMissing(f"MCL-WiC is not in the data directory (nothing can stand in for it): `lexprobe data fetch "
                          f"{mcl_wic.NAME}`, or `lexprobe data import {mcl_wic.NAME} PATH` for a copy you have",
                          method=method)
    limit = part.sample or 200
    choose = ChooseOptions(chat=part.chat, units_per_batch=1) if method == "choose" else ChooseOptions()
    config = WicConfig(method=method, limit=limit, fit_limit=2 * limit, choose=choose)
    result = run_part(WIC, part, config, out_dir / f"{part.stem('wic')}.json", quiet=True)
    return {"metrics": result["metrics"]}


SOURCES = [Source("MCL-WiC (SemEval-2021 Task 2)", mcl_wic.DATASET.licence, mcl_wic.UPSTREAM, mcl_wic.COMMIT,
                  redistributable=False, hub_licence="other", licence_name="CC BY-NC 4.0",
                  licence_link="https://creativecommons.org/licenses/by-nc/4.0/")]

WIC = pair.benchmark(
    "wic", "Word-in-context (MCL-WiC)",
    "word-in-context: the same meaning of a word in two sentences, multilingual and cross-lingual (MCL-WiC)",
    WicConfig, Items(load=items.load, dataset=items.dataset), pair.PairPhrasing(question, yes="yes", no="no"),
    sources=SOURCES, citation=CITATION, languages=mcl_wic.LANGUAGES,
    meta_datasets=(mcl_wic.NAME,), meta_summary=(SummaryColumn("WiC acc. (%)"),),
    run=RunParts(default_run, {"quick": 200, "full": 1000}, (LLMPart("ask", False, {"quick": 60, "full": 300}),)),
)
