"""The two CoDA21 recipes: the paper's text (``paper``) and the authors' released code (``authors``).

lksenel/CoDA21 differs from the paper's description in these places, each a field here:
the target is hidden with ``str.replace`` (also inside longer words) instead of as a whole
word; ties in the alignment keep the file order and the first best permutation in
enumeration order instead of a seeded order that never favours the gold alignment; a
masked LM reads the definition after two spaces (RoBERTa: a lone ``Ġ`` token scored with
the definition, ``authors_pll.py``); a static-vector group with a text none of whose
tokens has a vector is skipped (the authors' run stopped there); and ``coda build``
takes a synset's word as ``name.split('.')[0]`` for the shared-word rule. Both recipes
pick a synset's context by averaging the word pieces' probabilities (the paper's
footnote 4; the authors' scorer for that step is not released).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CodaRecipe:
    name: str
    replace_substrings: bool  #: hide the target with str.replace (authors), not as a whole word (paper)
    file_order_ties: bool  #: ties: file order, first best permutation (authors); else a seeded order
    context_average: str  #: "log" or "prob": how `coda build` averages a context's masked-LM scores
    authors_pll_input: bool = False  #: masked LMs: the released code's double-space input (``authors_pll``)
    static_skip: bool = False  #: static vectors: skip a group with a text that has no token with a vector
    word_rule: str = "paper"  #: `coda build`'s word of a synset name: paper (POS, sense dropped), authors (split('.'))


RECIPES = {
    "paper": CodaRecipe("paper", replace_substrings=False, file_order_ties=False, context_average="prob"),
    "authors": CodaRecipe("authors", replace_substrings=True, file_order_ties=True, context_average="prob",
                          authors_pll_input=True, static_skip=True, word_rule="authors"),
}
