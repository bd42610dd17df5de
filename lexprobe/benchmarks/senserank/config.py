"""Sense ranking's options (``SenseConfig``, from which ``lexprobe senserank eval`` is derived) and recipes."""

from __future__ import annotations

from dataclasses import dataclass

from lexprobe.benchmarks.base import option
from lexprobe.cli_common import non_negative_int, positive_int

CORPUS_CHOICES = ("semcor", "ontonotes", "pdep", "streusle")


@dataclass(frozen=True)
class SenseRecipe:
    name: str
    semcor_sentence_split: bool  #: SemCor split by sentence, shuffled with random.Random(42) (authors); else by document
    words_alone: bool  #: every word tokenised on its own (the authors' AllenNLP indexer)
    #: SemCor as the authors' reader has it (``data/semcor.authors_semcor_instances``: their sentence split,
    #: sentence-final targets dropped, synset_lemma labels, NE labels never queries; pools keyed by
    #: ``label.split("_")[0]``, r by the label's lemma name); with it ``semcor_sentence_split`` is implied
    authors_semcor: bool = False
    #: ``senserank finetune``: the authors' all_experiments.sh recipe (``finetune_authors.py``); else the paper's
    authors_inoculation: bool = False


RECIPES = {"paper": SenseRecipe("paper", False, False),
           "authors": SenseRecipe("authors", True, True, authors_semcor=True, authors_inoculation=True)}


@dataclass(frozen=True)
class SenseConfig:
    method: str = option("similarity", "similarity: rank same-lemma instances by cosine of token embeddings",
                         choices=("similarity",))
    recipe: str = option("paper", "paper: the paper's text; authors: the authors' released code (SemCor split by "
                         "sentence with seed 42, words tokenised one by one)", choices=tuple(RECIPES))
    corpus: str = option("semcor", "sense-annotated corpus", choices=CORPUS_CHOICES)
    path: str | None = option(None, "corpus file or folder (default: the data directory; `lexprobe data list`)",
                              key=False, input=True)
    layer: int = option(-1, "hidden_states index (0 = embeddings, -1 = last; the original code's layer L is L+1)",
                        type=int)
    layers: str | None = option(None, "layer sweep: `all` or a list like 0,4,8-12,-1 (one forward pass; metric "
                                      "per layer, with a plot)")
    pos: tuple[str, ...] | None = option(None, "keep only these coarse POS (default: all)", nargs="+",
                                         choices=("n", "v", "a", "r", "p"))
    limit: int | None = option(None, "evaluate at most N queries (seeded sample; default: all)", type=positive_int)
    max_instances: int | None = option(None, "sample whole lemmas (seeded) until database + queries reach this "
                                              "size (default: all)", type=positive_int)
    match_pos: bool = option(False, "restrict neighbours to the same lemma AND POS")
    min_sense_count: int = option(5, "drop queries whose sense has fewer instances in the database",
                                  type=positive_int)
    freq_edges: str = option("0,500,inf", "frequency (l) bucket edges")
    rarity_edges: str = option("0,0.25,1", "sense-proportion (r) bucket edges")
    bucket_by: str = option("sense", "l = the query sense's frequency in D (the authors' code, Table 1) or the "
                            "lemma's (the paper's text)", choices=("sense", "lemma"))
    seed: int = option(0, "seed of the SemCor document split, of samples and of the random baseline",
                       type=non_negative_int)
    k: int = option(50, "rank cut-off of AP@k and P@k", cli=False)
    keep_embeddings: bool = option(False, "keep the memory-mapped target vectors in OUT.embeddings/ after the run "
                                   "(reruns with the same model then skip encoding)", record=False)

    @classmethod
    def from_engine(cls, cfg, **changes) -> "SenseConfig":
        def text(edges):
            return ",".join("inf" if x == float("inf") else f"{x:g}" for x in edges)

        return cls(recipe=cfg.protocol, corpus=cfg.corpus, path=cfg.path, layer=cfg.layer,
                   pos=tuple(cfg.pos) if cfg.pos else None, limit=cfg.limit, max_instances=cfg.max_instances,
                   match_pos=cfg.match_pos, min_sense_count=cfg.min_sense_count, freq_edges=text(cfg.freq_edges),
                   rarity_edges=text(cfg.rarity_edges), bucket_by=cfg.bucket_by, seed=cfg.seed, k=cfg.k, **changes)
