"""Sense ranking's one config (``SenseConfig``): ``lexprobe senserank eval`` is derived from it, the
similarity engine, the layer sweep and the API read it directly; ``validate`` is its one check."""

from __future__ import annotations

from dataclasses import dataclass

from lexprobe.benchmarks.base import option
from lexprobe.benchmarks.senserank.recipe import RECIPES
from lexprobe.cli_common import non_negative_int, positive_int
from lexprobe.errors import LexprobeError

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
    """``all``, or comma-separated indices and ranges (``0,3,8-12,-1``) -> ints in the order given;
    each index within +-MAX_LAYERS (checked against the model once it loads)."""
    if text.strip() == "all":
        return "all"
    out: list[int] = []
    try:
        for piece in text.split(","):
            piece = piece.strip()
            if "-" in piece[1:]:  # a range a-b (a leading minus is a negative index)
                cut = piece.index("-", 1)
                lo, hi = int(piece[:cut]), int(piece[cut + 1:])
                if hi < lo:
                    raise ValueError
                _bounded(text, lo, hi)
                out.extend(range(lo, hi + 1))
            else:
                out.append(_bounded(text, int(piece)))
            if len(out) > MAX_LAYERS:
                raise LexprobeError(f"--layers {text!r} names more than {MAX_LAYERS} layers; no model has that "
                                    "many: use `all` or the model's indices")
    except ValueError:
        raise LexprobeError(f"--layers {text!r}: use `all` or indices and ranges like 0,4,8-12,-1") from None
    return out


def _bounded(text: str, *indices: int) -> int:
    for index in indices:
        if abs(index) > MAX_LAYERS:
            raise LexprobeError(f"--layers {text!r}: layer {index} does not exist in any model (at most "
                                f"{MAX_LAYERS} hidden states); use `all` or the model's indices")
    return indices[0]
