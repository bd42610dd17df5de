"""The two sense-ranking recipes: the paper's text (``paper``) and the authors' released code (``authors``).

The authors' code (lgessler/bert-has-uncommon-sense) differs from the paper's description in
these places, each a field here: SemCor is split by sentence with ``random.Random(42)`` instead
of by document; every word is tokenised on its own (their AllenNLP indexer); their SemCor reader
(labels, pools, what counts as a query); and ``senserank finetune`` follows their
``all_experiments.sh`` instead of the paper's Appendix A.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SenseRecipe:
    name: str
    semcor_sentence_split: bool  #: SemCor split by sentence, shuffled with random.Random(42) (authors); else by document
    words_alone: bool  #: every word tokenised on its own (the authors' AllenNLP indexer)
    #: SemCor as the authors' reader has it (``data/semcor.authors_semcor_instances``: their sentence split,
    #: sentence-final targets dropped, synset_lemma labels, NE labels never queries; pools keyed by
    #: ``label.split("_")[0]``, r by the label's lemma name); with it ``semcor_sentence_split`` is implied
    authors_semcor: bool = False
    #: ``senserank finetune``: the authors' all_experiments.sh recipe (``finetune.py``); else the paper's
    authors_inoculation: bool = False


RECIPES = {"paper": SenseRecipe("paper", False, False),
           "authors": SenseRecipe("authors", True, True, authors_semcor=True, authors_inoculation=True)}
