"""All-words WSD's one config (``WsdConfig``): ``lexprobe wsd eval`` is derived from it and the methods read it.

The likelihood method's prompt patterns are here (``PATTERNS``, ``--pattern``): the sentence with the
target marked, then a cue; the continuation is a space and the candidate's WordNet definition."""

from __future__ import annotations

from dataclasses import dataclass

from lexprobe.core.cli_common import non_negative_int, positive_int
from lexprobe.core.options import nested, option
from lexprobe.data import wsd_hard  # noqa: F401  (registers the release's sets: --data ALLamended ...)
from lexprobe.data.wsd import read_beside
from lexprobe.prompting.choose_cli import ChooseOptions

#: ``--pattern``: the context before each definition ({marked}: the sentence with the target in double quotes)
PATTERNS = {
    "means": '{marked}\nIn this sentence, "{word}" means',
    "definition-of": "{marked} Definition of {word} is",
    "gloss": '{marked}\n"{word}":',
}
#: ``--vector``: what the embedding method compares with each definition's vector
VECTORS = ("auto", "token", "sentence")


@dataclass(frozen=True)
class WsdRecipe:
    """The one recipe: the framework's protocol (its data, WordNet 3.0 inventory and scorer)."""

    name: str = "paper"


@dataclass(frozen=True)
class WsdChooseOptions(ChooseOptions):
    """The choose options with every sense shown by default (the LLM-WSD setting): the choice among a lemma's
    senses is the task, so none is left out unless ``--max-candidates`` asks (the gold sense kept)."""

    max_candidates: int = option(99, "instances with more senses are cut to a seeded sample of this many "
                                     "options, a gold one kept (default: every sense)", type=positive_int)


@dataclass(frozen=True)
class WsdConfig:
    data: str = option("ALL", "a set of the framework (senseval2, senseval3, semeval2007, semeval2013, "
                              "semeval2015, ALL: their concatenation; `lexprobe data fetch wsd`) or of Maru et al. "
                              "2022 (ALLamended, S10amended, 42D, hardEN, softEN; `lexprobe data fetch wsd-hard`) "
                              "from the data directory, or a <name>.data.xml file with its <name>.gold.key.txt beside "
                              "it", key=False, input=True, reads=read_beside)
    method: str = option("likelihood", "likelihood: log P(definition | sentence) per sense (causal LMs); "
                         "embedding: cosine of the target's (or the sentence's) vector and each definition's "
                         "(encoders, static vectors); choose: ask to choose among the numbered definitions",
                         choices=("likelihood", "embedding", "choose"))
    recipe: str = option("paper", "the framework's protocol (Raganato et al. 2017)", choices=("paper",))
    pos: tuple[str, ...] | None = option(None, "keep only these parts of speech (default: all)", nargs="+",
                                         choices=("N", "V", "A", "R"))
    limit: int | None = option(None, "a seeded sample of N instances of each set (default: all)",
                               type=positive_int)
    seed: int = option(0, "seed of the sample, the choose options and the random scorer", type=non_negative_int)
    pattern: str = option("means", "the context before each definition (likelihood)", choices=tuple(PATTERNS),
                          method="likelihood")
    reduce: str = option("mean", "a definition's score: its tokens' mean log-probability, or their sum "
                         "(likelihood)", choices=("mean", "sum"), method="likelihood")
    vector: str = option("auto", "token: the target's contextual vector (--layer) against each definition's "
                         "mean token vector; sentence: the sentence's vector against each definition's; auto: "
                         "token where the model gives token vectors (embedding)", choices=VECTORS,
                         method="embedding")
    layer: int = option(-1, "hidden_states index of the token vectors (0 = embeddings, -1 = last; embedding)",
                        type=int, method="embedding")
    answers: tuple[str, ...] | None = option(
        None, "key files of other systems' answers on the same set (`<instance id> <sense key>` per line, tab or "
              "space separated), each compared with the model instance by instance beside the published systems "
              "(named by the file's name without .key.txt)", nargs="+", metavar="FILE", input=True, record=False)
    chunk_size: int = option(64, "instances per resumable chunk", type=positive_int, cli=False, key=False)
    choose: WsdChooseOptions = nested(WsdChooseOptions, "ask-to-choose prompting (--method choose; causal LMs and "
                                      "chat APIs)", method="choose")
