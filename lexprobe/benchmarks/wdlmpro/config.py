"""WDLMPro's options (``WDLMProConfig``, from which ``lexprobe wdlmpro eval`` is derived) and items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from lexprobe.core.cli_common import non_negative_int, positive_int
from lexprobe.core.options import nested, option
from lexprobe.data.exported import read_beside
from lexprobe.outputs import OUTPUT
from lexprobe.prompting.choose_cli import ChooseOptions

TASK_CHOICES = {"w2d": ("w2d",), "d2w": ("d2w",), "both": ("w2d", "d2w")}
#: how a masked LM's patterns are combined (``recipe.py``): the paper's text, the former default, the best pattern
PATTERN_AGGREGATIONS = ("mean-prob", "mean-logprob", "best")
#: groups per resumable unit: small enough that Ctrl-C keeps nearly all work, and the bar moves per chunk
DEFAULT_CHUNK_SIZE = 32


@dataclass(frozen=True)
class WDLMProConfig:
    method: str = option("likelihood", "likelihood: score every candidate; choose: ask a causal LM to choose",
                         choices=("likelihood", "choose"))
    recipe: str = option("paper", "paper: the paper's text; authors: the authors' released code (--method "
                         "likelihood: the choose prompt is the --template's)", choices=("paper", "authors"),
                         method="likelihood")
    task: str = option("both", "w2d: word -> definition, d2w: definition -> word, or both",
                       choices=tuple(TASK_CHOICES))
    pos: str = option("both", "part of speech", choices=("n", "v", "both"))
    data: str | None = option(None, "dataset folder or JSONL file from `wdlmpro build` (default: built from "
                                    "WordNet once, cached)", key=False, input=True, reads=read_beside)
    limit: int | None = option(None, "evaluate a seeded sample of N groups per POS (default: all)", type=positive_int)
    draw: str = option("dataset", "how --limit draws its groups: dataset (a seeded sample of the built dataset, or of "
                       "--data) or wordnet (seeded rejection sampling straight from WordNet, no build: `lexprobe "
                       "run`'s samples); the two give different groups for the same seed",
                       choices=("dataset", "wordnet"), key=False)
    counts: str | None = option(None, "word<TAB>count file for frequency bands (default: wordfreq Zipf bands; "
                                      "--method likelihood: the breakdowns are its)", key=False, input=True,
                                method="likelihood")
    pattern_aggregation: str = option(
        "mean-prob", "masked LMs: how the patterns' scores are combined: mean-prob (the paper's text: W2D averages "
        "the patterns' probabilities, D2W their average log-probabilities), mean-logprob (log-probabilities for both "
        "tasks; lexprobe before issue 18), or best (the authors' notebook: each target's best pattern, an oracle); "
        "recorded for every model", choices=PATTERN_AGGREGATIONS, method="likelihood")
    seed: int = option(0, "seed of the --limit sample, the choose options and the random scorer",
                       type=non_negative_int)
    chunk_size: int = option(DEFAULT_CHUNK_SIZE, "--method likelihood: groups scored together (sister groups "
                             "share pairs); every finished group is logged, so Ctrl-C keeps all finished chunks",
                             type=positive_int, record=False, method="likelihood")
    plot: str | None = option(None, "also draw the breakdowns to this PNG (default: next to --out; --method "
                                    "likelihood)", record=False, method="likelihood", path=OUTPUT)
    choose: ChooseOptions = nested(ChooseOptions, "ask-to-choose prompting (--method choose; causal LMs)",
                                   method="choose")


@dataclass
class WDLMProItems:
    groups: list
    attributes: Callable | None = None  #: groups -> per-target attributes for the breakdowns
    #: what these groups are, when a caller drew them itself (``lexprobe run``'s seeded sample): the
    #: result's ``dataset`` record, so the report says the figures are not the whole benchmark's
    dataset: dict | None = None
