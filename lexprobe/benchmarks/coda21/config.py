"""CoDA21's options: ``CodaConfig``, the one config. ``lexprobe coda21 eval`` is derived from it, the
methods read it, and ``evaluate`` refuses what its declarations refuse (``options.check_declared``) for a
config built in Python too."""

from __future__ import annotations

from dataclasses import dataclass

from lexprobe.benchmarks.coda21.recipe import RECIPES
from lexprobe.core.cli_common import non_negative_int, positive_int
from lexprobe.core.options import nested, option
from lexprobe.data.exported import read_beside
from lexprobe.prompting.choose_cli import ChooseOptions

ALIGN_METHODS = ("optimal", "exhaustive", "none")
#: ``--pattern``: the language models' prompt after the context (verbs: `` to`` appended)
PATTERNS = {
    "definition-of": "{context} Definition of {nonce} is",
    "defined-as": "{context} {nonce} is defined as",
    "is": "{context} {nonce} is",
}


@dataclass(frozen=True)
class AskOptions:
    """``--method ask``: the authors' yes/no questions (``ask.py``)."""

    questions: tuple[int, ...] = option(
        (1,), "which of the authors' three questions to ask (1: Is <nonce> defined as <definition>?, 2: Can <nonce> "
              "be defined as <definition>?, 3: Is <nonce> <definition>?; verbs: '... as to', 'to'); several: their "
              "P(Yes) averaged per pair (1 2 3: the authors' 'Ensamble'); 1 is their released table's",
        type=int, choices=(1, 2, 3), nargs="+")


@dataclass(frozen=True)
class CodaConfig:
    data: str = option(None, "CoDA21 JSON file (official format), or a variant name (clean-easy, clean-hard, "
                             "noisy-easy, noisy-hard) read from the data directory (`lexprobe data fetch coda21`)",
                       required=True, key=False, input=True, reads=read_beside)
    method: str = option("likelihood", "likelihood: a match score per (context, definition); choose: ask a "
                         "causal LM to match them; ask: P(Yes) to the authors' yes/no question per pair (causal or "
                         "masked LMs)", choices=("likelihood", "choose", "ask"))
    recipe: str = option("paper", "paper: the paper's text; authors: the authors' released code (--method "
                         "likelihood or ask)", choices=tuple(RECIPES), method=("likelihood", "ask"))
    pos: str = option("both", "part of speech", choices=("n", "v", "both"))
    limit: int | None = option(None, "evaluate only the first N groups of each POS (default: all)",
                               type=positive_int)
    align: str = option("optimal", "optimal: Hungarian; exhaustive: all k! alignments (reference); none: simple "
                        "matching (--method likelihood or ask; choose: optimal)", choices=ALIGN_METHODS,
                        method=("likelihood", "ask"))
    nonce: str = option("bkatuhla", "made-up word that replaces the target (--method likelihood or ask; choose "
                        "shows a blank)", method=("likelihood", "ask"))
    pattern: str = option("definition-of", "prompt pattern (LMs; --method likelihood)", choices=tuple(PATTERNS),
                          method="likelihood")
    normalize: str = option("sum", "sum or average the definition's token log-probabilities (LMs; --method "
                            "likelihood)", choices=("sum", "mean"), method="likelihood")
    pll: str = option("token", "masked LMs: mask one token at a time, or also the later pieces of the same word "
                      "(--method likelihood)", choices=("token", "word-l2r"), method="likelihood")
    seed: int = option(0, "seed of the choose options and of the random scorer", type=non_negative_int)
    max_definition_tokens: int = option(48, "definitions cut to this many tokens (LMs)", type=positive_int,
                                        cli=False)
    exhaustive_max_k: int = option(10, "largest k for --align exhaustive", type=positive_int, cli=False)
    groups_per_chunk: int | None = option(None, "resumable unit (default: 16 groups for LMs, 256 for cheap "
                                                "scorers)", type=positive_int, cli=False, key=False)
    choose: ChooseOptions = nested(ChooseOptions, "ask-to-choose prompting (--method choose; causal LMs)",
                                   method="choose")
    ask: AskOptions = nested(AskOptions, "yes/no questions per pair (--method ask; causal or masked LMs)",
                             method="ask")


def parts_of_speech(pos: str) -> tuple[str, ...]:
    """The parts of speech ``--pos`` evaluates, in result order (also the result's slices besides ``all``)."""
    return ("n", "v") if pos == "both" else (pos,)

