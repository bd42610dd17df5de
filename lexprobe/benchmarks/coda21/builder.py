"""Build a CoDA21-style dataset from WordNet and SemCor (paper section 2.1).

1. A synset is eligible when SemCor has at least ``min_contexts`` sentences of it (clean: 5, noisy: 1).
2. Parents are visited in WordNet order (``all_synsets``, as the official release did); a parent's group is its
   eligible hyponyms (hard) or their hyponyms (easy) not used before, instance hyponyms not followed. A candidate
   whose word (``native`` of ``native.n.02``) is already in the group is skipped, as the authors'
   ``create_CoDA.py`` did: the context would give the other's word away.
3. Complete-link clustering of definition embeddings with *similarity* as the merge distance. Paper
   (``cluster="paper"``): merging stops before a cluster would exceed ``k_max`` members or similarity ``theta``;
   authors' code (``cluster="authors"``): the largest cluster within both limits anywhere in the full merge tree.
   The largest cluster (of at least ``k_min``) becomes a group, its synsets are removed, and clustering repeats.
4. Each synset gets one context (``contexts.py``); the groups are written in the official JSON format.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np
from scipy.cluster.hierarchy import linkage
from scipy.spatial.distance import squareform

from lexprobe.benchmarks.coda21.contexts import FirstContextSelector, Occurrence, collect_contexts
from lexprobe.benchmarks.coda21.dataset import Candidate, Group
from lexprobe.errors import DataError

log = logging.getLogger(__name__)

Embed = Callable[[Sequence[str]], np.ndarray]
CLUSTER_RULES = ("paper", "authors")


@dataclass(frozen=True)
class BuildConfig:
    variant: str = "clean-hard"  # clean|noisy - hard|easy
    k_min: int = 5
    k_max: int = 10
    theta: float = 0.8
    pos: tuple[str, ...] = ("n", "v")
    max_groups: int | None = None  # per POS; for small builds
    cluster: str = "paper"  # paper: stop merging at the first violation; authors: anywhere in the tree
    skip_shared_words: bool = True  # the release's rule; False only to measure its effect
    word_rule: str = "paper"  # the word of a synset name: paper drops POS and sense; authors split('.')[0]

    @property
    def min_contexts(self) -> int:
        return 5 if self.variant.startswith("clean") else 1

    @property
    def relation(self) -> str:
        return "grandparent" if self.variant.endswith("easy") else "parent"

    def validate(self) -> None:
        clean, _, hard = self.variant.partition("-")
        if clean not in ("clean", "noisy") or hard not in ("hard", "easy"):
            raise DataError(f"unknown CoDA21 variant {self.variant!r}; use clean-hard, clean-easy, noisy-hard or "
                            "noisy-easy")
        if self.cluster not in CLUSTER_RULES:
            raise DataError(f"unknown cluster rule {self.cluster!r}; use {' or '.join(CLUSTER_RULES)}")
        if self.word_rule not in CLUSTER_RULES:
            raise DataError(f"unknown word rule {self.word_rule!r}; use {' or '.join(CLUSTER_RULES)}")
        if not 2 <= self.k_min <= self.k_max:
            raise DataError(f"group sizes need 2 <= k_min <= k_max, got {self.k_min}..{self.k_max}")


def largest_dissimilar_cluster(embeddings: np.ndarray, k_max: int, theta: float, rule: str = "paper") -> list[int]:
    """``cluster_by_similarity`` of L2-normalised rows."""
    embeddings = np.asarray(embeddings, dtype=np.float64)
    return cluster_by_similarity(embeddings @ embeddings.T, k_max, theta, rule)


def cluster_by_similarity(sim: np.ndarray, k_max: int, theta: float, rule: str = "paper") -> list[int]:
    """The largest complete-link cluster, similarity as the merge distance (the module's step 3). ``authors``: a
    cluster formed after another merge broke a limit counts too. Ties go to the cluster formed first (singletons:
    lowest index)."""
    n = len(sim)
    if n == 0:
        return []
    if n == 1:
        return [0]
    dist = 1.0 + np.clip(np.asarray(sim, dtype=np.float64), -1.0, 1.0)  # monotone, >= 0 as linkage wants
    dist = (dist + dist.T) / 2
    np.fill_diagonal(dist, 0.0)
    z = linkage(squareform(dist, checks=False), method="complete")
    if rule == "authors":
        members: dict[int, list[int]] = {i: [i] for i in range(n)}
        clusters = {i: [i] for i in range(n)}
        for step, (a, b, height, size) in enumerate(z):
            members[n + step] = members[int(a)] + members[int(b)]
            if size <= k_max and height - 1.0 <= theta + 1e-12:
                clusters[n + step] = members[n + step]
    else:
        clusters = {i: [i] for i in range(n)}
        for step, (a, b, height, size) in enumerate(z):
            if size > k_max or height - 1.0 > theta + 1e-12:
                break
            clusters[n + step] = clusters.pop(int(a)) + clusters.pop(int(b))
    # ties: the cluster formed first (a singleton before any merge), then the lowest member
    best = max(clusters, key=lambda cid: (len(clusters[cid]), -(cid - n if cid >= n else -1), -min(clusters[cid])))
    return sorted(clusters[best])


def split_into_groups(names: Sequence[str], embeddings: np.ndarray, k_min: int = 5, k_max: int = 10,
                      theta: float = 0.8, rule: str = "paper") -> list[list[str]]:
    """Repeatedly take the largest dissimilar cluster out of a co-hyponym group."""
    remaining = list(range(len(names)))
    groups = []
    while len(remaining) >= k_min:
        picked = largest_dissimilar_cluster(embeddings[remaining], k_max, theta, rule)
        if len(picked) < k_min:
            break
        groups.append([names[remaining[i]] for i in picked])
        taken = {remaining[i] for i in picked}
        remaining = [i for i in remaining if i not in taken]
    return groups


def _children(synset, relation: str) -> list:
    if relation == "parent":
        return list(synset.hyponyms())
    return list({g.name(): g for child in synset.hyponyms() for g in child.hyponyms()}.values())


def synset_word(name: str, rule: str = "paper") -> str:
    """The word of a synset name: ``native`` for ``native.n.02``. ``authors``: ``name.split('.')[0]``
    (``create_CoDA.py:132``), which cuts a lemma with a full stop short (``st._john's.n.02`` -> ``st``)."""
    if rule == "authors":
        return name.split(".")[0].replace("_", " ")
    return name.rsplit(".", 2)[0].lower()


def distinct_words(names: Sequence[str], rule: str = "paper") -> list[str]:
    """``names`` without a synset whose word an earlier one already has (sorted input: lowest sense kept)."""
    first: dict[str, str] = {}
    for name in names:
        first.setdefault(synset_word(name, rule), name)
    return list(first.values())


def synset_groups(wn, eligible: set[str], embed: Embed, config: BuildConfig,
                  parents: Iterable[str] | None = None) -> list[tuple[str, str, list[str]]]:
    """(pos, parent, member names) for every synset group, in construction order."""
    used: set[str] = set()
    embedding_cache: dict[str, np.ndarray] = {}
    out: list[tuple[str, str, list[str]]] = []
    per_pos: Counter[str] = Counter()
    if parents is None:
        parent_iter = (s for p in config.pos for s in wn.all_synsets(p))
    else:
        parent_iter = (wn.synset(name) for name in parents)
    for parent in parent_iter:
        pos = parent.pos()
        if pos not in config.pos:
            continue
        if config.max_groups is not None and per_pos[pos] >= config.max_groups:
            if all(per_pos[p] >= config.max_groups for p in config.pos):
                break
            continue
        members = sorted(({s.name() for s in _children(parent, config.relation)} & eligible) - used)
        if config.skip_shared_words:
            members = distinct_words(members, config.word_rule)
        if len(members) < config.k_min:
            continue
        missing = [m for m in members if m not in embedding_cache]
        if missing:
            vectors = np.asarray(embed([wn.synset(m).definition() for m in missing]), dtype=np.float64)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            embedding_cache.update(zip(missing, vectors))
        vectors = np.stack([embedding_cache[m] for m in members])
        for group in split_into_groups(members, vectors, config.k_min, config.k_max, config.theta, config.cluster):
            if config.max_groups is not None and per_pos[pos] >= config.max_groups:
                break
            used.update(group)
            out.append((pos, parent.name(), group))
            per_pos[pos] += 1
    return out


def build_coda(wn, sentences: Iterable[Any] | None, embed: Embed, config: BuildConfig = BuildConfig(),
               selector: Any = None, parents: Iterable[str] | None = None,
               contexts: dict[str, list[Occurrence]] | None = None) -> list[Group]:
    """CoDA21 groups from SemCor-like ``sentences`` (or ``contexts`` already collected); ``embed`` maps
    definitions to vectors; ``selector`` picks one context per synset (default: the first)."""
    config.validate()
    if contexts is None:
        if sentences is None:
            raise ValueError("build_coda needs sentences or contexts")
        contexts = collect_contexts(sentences, wn, config.pos)
    eligible = {s for s, occ in contexts.items() if len(occ) >= config.min_contexts}
    log.info("%d synsets with >= %d contexts", len(eligible), config.min_contexts)
    raw_groups = synset_groups(wn, eligible, embed, config, parents)
    needed = {s for _, _, members in raw_groups for s in members}
    selector = selector or FirstContextSelector()
    chosen = selector.select({s: contexts[s] for s in sorted(needed)})
    groups, index = [], {p: 0 for p in config.pos}
    for pos, parent, members in raw_groups:
        cands = [Candidate(s, wn.synset(s).definition(), chosen[s].context, chosen[s].word) for s in members]
        groups.append(Group(f"{pos}/{index[pos]}", pos, config.relation, parent, cands))
        index[pos] += 1
    return groups
