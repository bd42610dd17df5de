"""Candidate senses of a WSD instance from WordNet 3.0, and sense-key counts from SemCor.

Candidates are the WordNet senses of the lemma and part of speech in WordNet's order (adjectives include
satellites), each with its sense key and definition: the framework's inventory (the first candidate reproduces
the paper's first-sense row; ``outside_inventory`` counts gold keys outside it: none with WordNet 3.0). A synset
is a candidate when one of its lemma names is ``lemma_form`` case aside: the base forms NLTK's ``synsets`` also
tries (``axes`` -> ``axis``) are left out, so a lemma WordNet lacks has no candidates rather than another word's.
Where a synset names a lemma in two cases (``Earth``, ``earth``) the key is the one ``index.sense`` lists, the
one the gold uses. ``semcor_sense_counts`` counts every sense-tagged SemCor term (the most-frequent-sense baseline).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Iterable, NamedTuple

from lexprobe.data.wsd import WsdInstance


class Sense(NamedTuple):
    key: str  # the lemma's sense key in this synset, e.g. "art%1:09:00::"
    synset: str  # NLTK's synset name, e.g. "art.n.03"
    definition: str


def lemma_form(lemma: str) -> str:
    """The framework's lemma as WordNet's index spells it: lower case, words joined by ``_``."""
    return "_".join(lemma.lower().split())


def senses(lemma: str, pos: str, wordnet=None) -> tuple[Sense, ...]:
    """The WordNet senses of ``lemma`` with WordNet part of speech ``pos`` (n, v, a, r), in WordNet's order."""
    if wordnet is None:
        from lexprobe.data.wordnet import load_wordnet

        wordnet = load_wordnet()
    form = lemma_form(lemma)
    out: list[Sense] = []
    seen: set[str] = set()
    for synset in wordnet.synsets(form, pos):
        name = synset.name()
        if name in seen:
            continue
        keys = [lem.key() for lem in synset.lemmas() if lem.name().lower() == form]
        if not keys:  # a synset of a base form NLTK's morphy found, not of this lemma
            continue
        seen.add(name)
        indexed = _indexed_keys(wordnet)
        out.append(Sense(next((k for k in keys if k in indexed), keys[0]), name, synset.definition()))
    return tuple(out)


_INDEXED: dict[str, frozenset[str]] = {}


def known_keys(wordnet=None) -> frozenset[str]:
    """Every sense key WordNet knows (its ``index.sense``): what a gold key must be."""
    if wordnet is None:
        from lexprobe.data.wordnet import load_wordnet

        wordnet = load_wordnet()
    return _indexed_keys(wordnet)


def _indexed_keys(wordnet) -> frozenset[str]:
    """Every sense key of WordNet's ``index.sense`` (read once per WordNet copy, ~0.2 s)."""
    root = str(wordnet.root)
    if root not in _INDEXED:
        with wordnet.open("index.sense") as f:
            _INDEXED[root] = frozenset(line.split(" ", 1)[0] for line in f.read().splitlines() if line.strip())
    return _INDEXED[root]


def sense_inventory(instances: Iterable[WsdInstance], wordnet=None) -> dict[str, tuple[Sense, ...]]:
    """Each instance's candidate senses (id -> senses); a (lemma, pos) is looked up once."""
    if wordnet is None:
        from lexprobe.data.wordnet import load_wordnet

        wordnet = load_wordnet()
    looked_up: dict[tuple[str, str], tuple[Sense, ...]] = {}
    out = {}
    for inst in instances:
        key = (inst.lemma, inst.wordnet_pos)
        if key not in looked_up:
            looked_up[key] = senses(inst.lemma, inst.wordnet_pos, wordnet)
        out[inst.id] = looked_up[key]
    return out


def candidate_keys(inventory: dict[str, tuple[Sense, ...]]) -> dict[str, tuple[str, ...]]:
    """id -> candidate sense keys (what the baselines and the scorer take)."""
    return {instance: tuple(s.key for s in found) for instance, found in inventory.items()}


def outside_inventory(instances: Iterable[WsdInstance], inventory: dict[str, tuple[Sense, ...]]) -> list[WsdInstance]:
    """The instances none of whose gold keys is a candidate (no method could answer them right)."""
    return [inst for inst in instances if not set(inst.gold) & {s.key for s in inventory.get(inst.id, ())}]


def semcor_sense_counts(archive: str | Path | None = None) -> Counter:
    """How often SemCor tags each sense key (every tagged term, multi-word ones too); ``archive``: SemCor in
    any packaging the reader takes (default: the data directory's)."""
    from lexprobe.data.semcor import iter_semcor_sentences

    counts: Counter = Counter()
    for sentence in iter_semcor_sentences(archive):
        counts.update(a.sense_key for a in sentence.annotations)
    return counts
