"""The two CoDA21 recipes: the paper's text (``paper``) and the authors' released code (``authors``).

lksenel/CoDA21 differs from the paper's description in three places, each a field here:
the target is hidden with ``str.replace`` (also inside longer words) instead of as a whole
word; ties in the alignment keep the file order and the first best permutation in
enumeration order instead of a seeded order that never favours the gold alignment; and
``coda build`` picks each synset's context by averaging probabilities rather than
log-probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CodaRecipe:
    name: str
    replace_substrings: bool  #: hide the target with str.replace (authors), not as a whole word (paper)
    file_order_ties: bool  #: ties: file order, first best permutation (authors); else a seeded order
    context_average: str  #: "log" or "prob": how `coda build` averages a context's masked-LM scores


RECIPES = {
    "paper": CodaRecipe("paper", replace_substrings=False, file_order_ties=False, context_average="log"),
    "authors": CodaRecipe("authors", replace_substrings=True, file_order_ties=True, context_average="prob"),
}
