"""Sense ranking's configs, declared once: ``SenseConfig`` (``lexprobe senserank eval`` is derived from it, the
method and the API read it directly; ``validate`` is its one check) and ``FinetuneConfig`` (``senserank finetune``).
Light on purpose (no torch): the CLI builds its parser from them."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from lexprobe.benchmarks.senserank.recipe import RECIPES
from lexprobe.core.cli_common import non_negative_int, positive_float, positive_int
from lexprobe.core.options import option
from lexprobe.errors import DataError, LexprobeError
from lexprobe.outputs import OUTPUT_DIR

CORPUS_CHOICES = ("semcor", "ontonotes", "pdep", "streusle")


@dataclass(frozen=True)
class SenseConfig:
    method: str = option("similarity", "similarity: rank same-lemma instances by cosine of token embeddings",
                         choices=("similarity",))
    recipe: str = option("paper", "paper: the paper's text; authors: the authors' released code (SemCor split by "
                         "sentence with seed 42, words tokenised one by one)", choices=tuple(RECIPES))
    corpus: str = option("semcor", "sense-annotated corpus", choices=CORPUS_CHOICES, names_data=True)
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
    k: int = option(50, "rank cut-off of AP@k and P@k", type=positive_int, cli=False)
    keep_embeddings: bool = option(False, "keep the memory-mapped target vectors in OUT.embeddings/ after the run "
                                   "(reruns with the same model then skip encoding)", record=False)

    @property
    def bucket_edges(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """(frequency, sense-proportion) bucket edges of ``freq_edges`` and ``rarity_edges``."""
        return bucket_edges(self.freq_edges, self.rarity_edges)

    def validate(self) -> None:
        """What the declarations cannot say (``evaluate`` checks choices and integers from them first)."""
        bucket_edges(self.freq_edges, self.rarity_edges)  # one line on a bad list
        if self.layers is not None:  # `--layers ""` is an error, not "no sweep"
            parse_layers(self.layers)
            if self.layer != -1:
                raise LexprobeError("--layer and --layers exclude each other; pass one of them")


def bucket_edges(freq_edges: str, rarity_edges: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The two bucket-edge options parsed (a config's, or a result's recorded ones), one line on a bad list."""
    from lexprobe.metrics.retrieval import parse_edges

    edges = []
    for name, text in (("freq_edges", freq_edges), ("rarity_edges", rarity_edges)):
        try:
            edges.append(parse_edges(text))
        except ValueError as err:
            raise LexprobeError(f"--{name.replace('_', '-')}: {err}") from None
    return edges[0], edges[1]


#: more hidden states than any model has; a longer list is a typo (``0-99999999`` once grew to 4.4 GB)
MAX_LAYERS = 1024


def parse_layers(text: str) -> list[int] | str:
    """``all``, or comma-separated indices and ranges (``0,3,8-12,-1``; ``-3--1``) -> ints in the order given;
    each index within +-MAX_LAYERS (checked against the model once it loads)."""
    if text.strip() == "all":
        return "all"
    out: list[int] = []
    for piece in text.split(","):
        m = re.fullmatch(r"\s*(-?\d+)(?:-(-?\d+))?\s*", piece)
        lo, hi = (int(m[1]), int(m[2] or m[1])) if m else (0, -1)
        if hi < lo:
            raise LexprobeError(f"--layers {text!r}: use `all` or indices and ranges like 0,4,8-12,-1")
        if max(abs(lo), abs(hi)) > MAX_LAYERS:
            raise LexprobeError(f"--layers {text!r}: layer {lo if abs(lo) > MAX_LAYERS else hi} does not exist in "
                                f"any model (at most {MAX_LAYERS} hidden states); use `all` or the model's indices")
        out.extend(range(lo, hi + 1))
        if len(out) > MAX_LAYERS:
            raise LexprobeError(f"--layers {text!r} names more than {MAX_LAYERS} layers; no model has that many: "
                                "use `all` or the model's indices")
    return out


#: ``--instances``: the paper's training sizes
FINETUNE_SIZES = (100, 250, 500, 1000, 2500)
#: what the authors' ``all_experiments.sh`` fixes (``--recipe authors``, ``finetune.py``)
AUTHORS_BATCH_SIZE = 8
AUTHORS_PATIENCE = 5


@dataclass
class FinetuneConfig:
    """``senserank finetune``'s options, declared once: the command's flags are derived from them
    (``core.options``), the API takes the same dataclass."""

    model: str = option("all-MiniLM-L6-v2", "encoder to fine-tune", input=True)
    instances: int = option(100, "training instances, equal numbers of nouns, verbs and prepositions", type=int,
                            choices=FINETUNE_SIZES, required=True)
    out: str = option("finetuned", "folder for the fine-tuned encoder", required=True, path=OUTPUT_DIR)
    path: str | None = option(None, "STREUSLE 4.4 folder (default: the data directory, `lexprobe data fetch "
                              "streusle`)", input=True)
    epochs: int = option(40, "most training epochs", type=positive_int)
    patience: int = option(3, "epochs without dev improvement before stopping", type=positive_int)
    lr: float = option(2e-5, "learning rate", type=positive_float)
    batch_size: int = option(16, "training batch size", type=positive_int)
    device: str | None = option("auto", "auto, cpu, cuda or cuda:N")
    seed: int = option(0, "seed of the sample and the training", type=non_negative_int)
    max_length: int = option(256, cli=False)
    dev_instances: int | None = option(None, cli=False)
    #: paper | authors (all_experiments.sh: 33/33/33, fixed batches of 8, ...): RECIPES
    recipe: str = option("paper", "paper: follow the paper's text; authors: reproduce the authors' released code",
                         choices=tuple(RECIPES))
    #: HuggingFace AdamW's default (the paper's optimiser) and the authors' code
    weight_decay: float = option(0.0, cli=False)

    def effective(self) -> "FinetuneConfig":
        """The settings actually used: the authors' script fixes batch size, decay and patience."""
        if recipe_of(self).authors_inoculation:
            return replace(self, batch_size=AUTHORS_BATCH_SIZE, weight_decay=0.0, patience=AUTHORS_PATIENCE)
        return self


def recipe_of(cfg: FinetuneConfig):
    """The sense-ranking recipe object of ``cfg.recipe`` (``recipe.RECIPES``); one line for an unknown name."""
    if cfg.recipe not in RECIPES:
        raise DataError(f"unknown recipe {cfg.recipe!r} for fine-tuning; use {' or '.join(RECIPES)}")
    return RECIPES[cfg.recipe]
