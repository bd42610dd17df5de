"""The two WDLMPro recipes: the paper's text (``paper``) and the authors' released code (``authors``).

The backends are the same; a recipe only changes what the method asks them and how it ranks their answers
(capitalisation, string forms, patterns, 48-token definitions, the causal batch shift, static-vector drops,
the tie rule, how masked-LM patterns combine). docs/wdlmpro.md, "Recipes", has every choice with its file:line
in lksenel/definition_benchmark @54fa97b and its measured effect.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

AUTHORS_MAX_DEFINITION_TOKENS = 48
#: definitions per batch in the authors' W2D run (``--max_batch_size`` default, W2D ``evaluate.py:79``)
AUTHORS_BATCH = 48

_PAPER_MASKED = {
    "n": ("_ is <DEF>", "_ means <DEF>", "_ is defined as <DEF>"),
    "v": ("definition of _ is to <DEF>", "to <DEF> is the definition of _"),
}
_PAPER_CAUSAL = {"n": "<DEF> is the definition of _", "v": "to <DEF> is the definition of _"}


@dataclass(frozen=True)
class Recipe:
    name: str
    masked_patterns: dict  # (task, pos) -> patterns
    causal_patterns: dict  # (task, pos) -> pattern
    python_capitalize: bool  # str.capitalize(), else the first letter upper-cased
    capitalize_definition: bool  # also a definition that starts the input
    max_definition_tokens: int | None
    pattern_aggregation: str  # mean-prob | mean-logprob | best (see the module docstring)
    ties: str  # "against_gold" or "argsort"
    string_form: str = "paper"  # paper: name without POS and sense number; authors: name.split('.')[0]
    causal_batch_shift: int | None = None  # authors: W2D contexts batched by this many, longest shifted
    static_drop: bool = False  # authors: skip targets and candidates that static vectors cannot embed

    def show_word(self, word: str, starts_input: bool) -> str:
        if not starts_input or not word:
            return word
        return word.capitalize() if self.python_capitalize else word[0].upper() + word[1:]

    def show_definition(self, definition: str, starts_input: bool, tokenizer=None) -> str:
        if starts_input and self.capitalize_definition:
            definition = definition.capitalize()
        if self.max_definition_tokens is not None and tokenizer is not None:
            tokens = tokenizer.tokenize(definition)[: self.max_definition_tokens]
            definition = tokenizer.convert_tokens_to_string(tokens)
        return definition

    def word_of(self, synset: str, word: str) -> str:
        """The string a synset is shown as: the dataset's word, or the authors' ``split('.')[0]``."""
        if self.string_form == "authors":
            return synset.split(".")[0].replace("_", " ")
        return word

    def average_patterns(self, task: str, values: list[float]) -> float:
        """One score from a (word, definition) pair's per-pattern log-probabilities: W2D under ``mean-prob`` the log
        of the mean probability; D2W and ``mean-logprob`` the mean log-probability (D2W's per-pattern score is
        itself an average log-probability). ``best`` ranks each pattern on its own (``best_pattern_rank``); the
        mean log-probability stands in as the score."""
        v = np.asarray(values, dtype=np.float64)
        if task == "w2d" and self.pattern_aggregation == "mean-prob":
            return float(np.logaddexp.reduce(v) - np.log(len(v)))  # log of the mean probability
        return float(v.mean())

    def with_aggregation(self, aggregation: str | None) -> "Recipe":
        """The recipe with ``--pattern-aggregation`` applied (checked by the config's declared choices)."""
        if aggregation is None or aggregation == self.pattern_aggregation:
            return self
        return replace(self, pattern_aggregation=aggregation)


def _both_tasks(table: dict) -> dict:
    return {(task, pos): v for task in ("w2d", "d2w") for pos, v in table.items()}


PAPER = Recipe(name="paper", masked_patterns=_both_tasks(_PAPER_MASKED), causal_patterns=_both_tasks(_PAPER_CAUSAL),
               python_capitalize=False, capitalize_definition=False, max_definition_tokens=None,
               pattern_aggregation="mean-prob", ties="against_gold")

AUTHORS = Recipe(
    name="authors",
    masked_patterns={
        **_both_tasks(_PAPER_MASKED),
        ("d2w", "v"): ("Definition of _ is to <DEF>", "To <DEF> is the definition of _"),
    },
    causal_patterns={**_both_tasks(_PAPER_CAUSAL), ("d2w", "v"): "To <DEF> is the definition of _"},
    python_capitalize=True, capitalize_definition=True, max_definition_tokens=AUTHORS_MAX_DEFINITION_TOKENS,
    pattern_aggregation="mean-prob", ties="argsort", string_form="authors", causal_batch_shift=AUTHORS_BATCH,
    static_drop=True,
)

RECIPES = {"paper": PAPER, "authors": AUTHORS}


def argsort_rank(scores, gold: int = 0) -> tuple[int, int]:
    """(gold rank k, predicted index) as the authors' code has them, from ``np.argsort(scores)``: their rank score
    is ``position of gold in argsort / (L - 1)``, i.e. k = L - position."""
    order = np.argsort(np.asarray(scores, dtype=np.float64))
    position = int(np.flatnonzero(order == gold)[0])
    return len(order) - position, int(order[-1])


def best_pattern_rank(pattern_scores, rank) -> tuple[int, int, int]:
    """(gold rank, predicted index, pattern) of the pattern that ranks the gold item best (the first such).

    The authors' notebook (``save_results-checkpoint.ipynb``, cell 0) keeps, per target, the highest per-pattern
    rank score, so a target is correct if any pattern ranks the gold first; ``rank(scores) -> (k, predicted)``
    applies the recipe's tie rule within a pattern.
    """
    ranks = [rank(row) for row in pattern_scores]
    j = min(range(len(ranks)), key=lambda i: ranks[i][0])
    return ranks[j][0], ranks[j][1], j
