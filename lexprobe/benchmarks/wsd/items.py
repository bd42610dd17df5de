"""The items of a WSD run: instances with their WordNet candidates and their three baselines' answers.

Why one record of everything a unit needs: every result carries the random, WordNet-first-sense and
SemCor most-frequent-sense baselines beside its figures (per set and part of speech), and ``compare``
and the report read them from the result alone; so each unit's candidate keys, first sense and MFS
answer are decided here, once, and go into its record whatever the method.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from lexprobe.data.wsd import ALL, OFFICIAL, WsdInstance
from lexprobe.errors import DataError

POS_WORDS = {"N": "noun", "V": "verb", "A": "adjective", "R": "adverb"}


@dataclass
class WsdItems:
    """The instances of a run (in file order, a seeded sample of each set with ``--limit``) and, by id, their
    candidate senses (WordNet order) and the most-frequent-sense answer with how it was chosen."""

    instances: list[WsdInstance]
    senses: dict[str, tuple]  #: id -> ``data.wsd_senses.Sense``s
    mfs: dict[str, tuple[str, str]] = field(default_factory=dict)  #: id -> (key, rule); empty without SemCor
    mfs_source: str | None = None  #: what the MFS counts came from (None: no SemCor, no MFS baseline)
    dataset: dict | None = None
    #: the ids of every instance of ``--data`` (before ``--pos`` and ``--limit``): what an answer file may name
    universe: frozenset[str] = frozenset()
    #: the systems the run's answers are compared with (``systems.Systems``; None: none)
    systems: Any = None

    def unscorable(self, inst: WsdInstance) -> str | None:
        """Why ``inst`` cannot be scored (its lemma has no WordNet sense of its part of speech: nothing to choose
        from), decided with the items, before any unit is scored; None when it can be."""
        if self.senses[inst.id]:
            return None
        return f"no WordNet 3.0 sense of {inst.lemma!r} as a {POS_WORDS[inst.pos]} (nothing to choose from)"

    def unit(self, inst: WsdInstance) -> dict[str, Any]:
        """The fields every record of ``inst`` carries (the baselines are read from them)."""
        cands = self.senses[inst.id]
        gold = next((s.definition for s in cands if s.key in inst.gold), None)
        out: dict[str, Any] = {"id": inst.id, "set": inst.set_name, "pos": inst.pos, "lemma": inst.lemma,
                               "word": inst.tokens[inst.index], "sentence": marked(inst), "gold": list(inst.gold),
                               "candidates": [s.key for s in cands], "gold_definition": gold}
        if inst.id in self.mfs:
            out["mfs"], out["mfs_rule"] = self.mfs[inst.id]
        return out


def marked(inst: WsdInstance) -> str:
    """The sentence with the target in double quotes (what the likelihood and choose prompts show)."""
    tokens = list(inst.tokens)
    tokens[inst.index] = f'"{tokens[inst.index]}"'
    return " ".join(tokens)


def load_items(config: Any) -> WsdItems:
    """The run's instances (``--data``, ``--pos``, ``--limit`` per set with ``--seed``), their candidates from
    WordNet and the MFS answers from SemCor in the data directory (absent: the MFS baseline is left out and
    the result says so)."""
    from lexprobe.data.wordnet import load_wordnet
    from lexprobe.data.wsd import load_wsd
    from lexprobe.data.wsd_senses import sense_inventory

    instances = load_wsd(config.data)
    universe = frozenset(i.id for i in instances)
    if config.pos:
        instances = [i for i in instances if i.pos in config.pos]
    if config.limit is not None:
        instances = sample_per_set(instances, config.limit, config.seed)
    if not instances:
        raise DataError(f"no WSD instances selected from {config.data}; check --pos and --limit")
    wordnet = load_wordnet()
    senses = sense_inventory(instances, wordnet)
    check_gold_keys([i for i in instances if senses[i.id]], wordnet)  # one without senses is skipped, whatever its gold
    mfs, source = most_frequent(instances, senses)
    items = WsdItems(instances, senses, mfs, source, universe=universe)
    items.dataset = dataset_record(config, instances)
    return items


def check_gold_keys(instances: list[WsdInstance], wordnet: Any) -> None:
    """Every gold key must be a sense key of WordNet 3.0 (its ``index.sense``): one the inventory lacks can never
    be answered, so a run would score 0 on it and say nothing. One ``DataError`` naming where the key was read."""
    from lexprobe.data.wsd_senses import known_keys

    known = known_keys(wordnet)
    for inst in instances:
        unknown = next((k for k in inst.gold if k not in known), None)
        if unknown is not None:
            raise DataError(f"{inst.where or inst.id}: the gold key {unknown!r} of instance {inst.id!r} is not a "
                            "WordNet 3.0 sense key (the candidates' inventory: its index.sense); correct the key, "
                            "or leave the instance out")


def sample_per_set(instances: list[WsdInstance], n: int, seed: int) -> list[WsdInstance]:
    """A seeded sample of ``n`` instances of each set, in file order (the same arguments, the same sample)."""
    out = []
    for name in dict.fromkeys(i.set_name for i in instances):
        pool = [i for i in instances if i.set_name == name]
        keep = set(random.Random(f"{seed}:{name}").sample(range(len(pool)), n)) if n < len(pool) else None
        out += [inst for j, inst in enumerate(pool) if keep is None or j in keep]
    return out


def most_frequent(instances: list[WsdInstance], senses: dict[str, tuple]) -> tuple[dict, str | None]:
    """Each instance's SemCor most-frequent-sense answer and rule (``metrics.wsd_baselines``), from SemCor 3.0
    in the data directory; ({}, None) where it is absent (the bundled sample is too small to count senses)."""
    from lexprobe.data.locations import default_semcor
    from lexprobe.metrics.wsd_baselines import most_frequent_answers

    archive = default_semcor()
    if not archive.exists():
        return {}, None
    from lexprobe.data.wsd_senses import semcor_sense_counts

    counts = semcor_sense_counts(archive)
    answers, how = most_frequent_answers({i.id: [s.key for s in senses[i.id]] for i in instances}, counts)
    return {k: (v[0], how[k]) for k, v in answers.items()}, "SemCor 3.0 (NAF, the data directory)"


def dataset_record(config: Any, instances: list[WsdInstance]) -> dict:
    name = str(config.data)
    full = OFFICIAL[name].count if name in OFFICIAL else None
    sample = config.limit is not None and full is not None and len(instances) < full
    out: dict[str, Any] = {"name": OFFICIAL[name].short if name in OFFICIAL else name, "sample": False,
                           "instances": len(instances)}
    if sample:
        out["what"] = (f"a seeded sample of {config.limit} instances per set (--limit {config.limit} --seed "
                       f"{config.seed}) of {name if name != ALL else 'the five sets'}")
    return out
