"""The two WDLMPro recipes: the paper's text (``paper``) and the authors' released code (``authors``).

The scorers are the same; a protocol only changes what the benchmark feeds them and
how it turns their log-probabilities into a ranking. ``authors`` follows
lksenel/definition_benchmark (WDLaMPro/W2D and D2W ``definition_processor.py``,
``evaluate.py``):

- text shown: a word or definition that starts the input is capitalised with
  ``str.capitalize()`` (which also lower-cases the rest: "genus Canis" -> "genus canis"),
  for every model; the paper capitalises only the word's first letter, for case-sensitive
  models (WDLMPro words are lower-case synset names, so for words the two agree);
- D2W verb patterns start with a capital ("Definition of _ is to <DEF>", "To <DEF> is
  the definition of _"; causal "To <DEF> is the definition of"); W2D keeps the paper's;
- definitions are cut to their first 48 model tokens (``convert_tokens_to_string(
  tokenize(d)[:48])``);
- W2D with several masked patterns averages the patterns' probabilities (each a
  product of token probabilities), not their log-probabilities;
- ties: the gold item's position in ``np.argsort(scores)`` (NumPy's default, unstable
  sort) gives its rank, RS = position / (L - 1), and the last item of that order is the
  prediction; NaN sorts last, i.e. best. The paper protocol counts ties against the
  gold item.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lexprobe.errors import DataError

PROTOCOL_NAMES = ("paper", "authors")
AUTHORS_MAX_DEFINITION_TOKENS = 48

_PAPER_MASKED = {
    "n": ("_ is <DEF>", "_ means <DEF>", "_ is defined as <DEF>"),
    "v": ("definition of _ is to <DEF>", "to <DEF> is the definition of _"),
}
_PAPER_CAUSAL = {"n": "<DEF> is the definition of _", "v": "to <DEF> is the definition of _"}


@dataclass(frozen=True)
class Protocol:
    name: str
    masked_patterns: dict  # (task, pos) -> patterns
    causal_patterns: dict  # (task, pos) -> pattern
    python_capitalize: bool  # str.capitalize() for every model, else first letter for cased models
    capitalize_definition: bool  # also a definition that starts the input
    max_definition_tokens: int | None
    w2d_average: str  # "logprob" or "prob": what the W2D masked patterns average
    ties: str  # "against_gold" or "argsort"

    def show_word(self, word: str, starts_input: bool, case_sensitive: bool) -> str:
        if not starts_input or not word:
            return word
        if self.python_capitalize:
            return word.capitalize()
        return word[0].upper() + word[1:] if case_sensitive else word

    def show_definition(self, definition: str, starts_input: bool, tokenizer=None) -> str:
        if starts_input and self.capitalize_definition:
            definition = definition.capitalize()
        if self.max_definition_tokens is not None and tokenizer is not None:
            tokens = tokenizer.tokenize(definition)[: self.max_definition_tokens]
            definition = tokenizer.convert_tokens_to_string(tokens)
        return definition

    def average_patterns(self, task: str, values: list[float]) -> float:
        """One score from the per-pattern scores (log-probabilities) of a (word, definition) pair."""
        v = np.asarray(values, dtype=np.float64)
        if task == "w2d" and self.w2d_average == "prob":
            return float(np.logaddexp.reduce(v) - np.log(len(v)))  # log of the mean probability
        return float(v.mean())


def _both_tasks(table: dict) -> dict:
    return {(task, pos): v for task in ("w2d", "d2w") for pos, v in table.items()}


PAPER = Protocol(
    name="paper",
    masked_patterns=_both_tasks(_PAPER_MASKED),
    causal_patterns=_both_tasks(_PAPER_CAUSAL),
    python_capitalize=False,
    capitalize_definition=False,
    max_definition_tokens=None,
    w2d_average="logprob",
    ties="against_gold",
)

AUTHORS = Protocol(
    name="authors",
    masked_patterns={
        **_both_tasks(_PAPER_MASKED),
        ("d2w", "v"): ("Definition of _ is to <DEF>", "To <DEF> is the definition of _"),
    },
    causal_patterns={**_both_tasks(_PAPER_CAUSAL), ("d2w", "v"): "To <DEF> is the definition of _"},
    python_capitalize=True,
    capitalize_definition=True,
    max_definition_tokens=AUTHORS_MAX_DEFINITION_TOKENS,
    w2d_average="prob",
    ties="argsort",
)

PROTOCOLS = {"paper": PAPER, "authors": AUTHORS}


def get_protocol(protocol: str | Protocol) -> Protocol:
    if isinstance(protocol, Protocol):
        return protocol
    try:
        return PROTOCOLS[protocol]
    except KeyError:
        raise DataError(f"unknown WDLMPro protocol {protocol!r}; use one of: {', '.join(PROTOCOL_NAMES)}") from None


def argsort_rank(scores, gold: int = 0) -> tuple[int, int]:
    """(gold rank k, predicted index) as the authors' code has them: from ``np.argsort(scores)``.

    Their rank score is ``position of gold in argsort / (L - 1)``, i.e. k = L - position.
    """
    order = np.argsort(np.asarray(scores, dtype=np.float64))
    position = int(np.flatnonzero(order == gold)[0])
    return len(order) - position, int(order[-1])
