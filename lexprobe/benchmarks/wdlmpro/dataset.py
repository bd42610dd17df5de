"""WDLMPro data: synset groups built from WordNet, their JSONL file, statistics, samples.

A group G(t) holds the target synset t first, then every hyponym of every direct hypernym of t (its
taxonomic sisters), hypernyms and hyponyms each sorted by name; instance relations are not followed. By
default a candidate repeating a string form or definition already in the group is skipped (as the released
dataset: the paper's 51,260 noun / 8,487 verb groups); ``keep_duplicates=True`` keeps them (51,559 / 8,602).
Groups with fewer than 5 members are dropped.

JSONL format, one group per line, target first among the candidates::

    {"target": "beckon.v.01", "pos": "v", "word": "beckon",
     "candidates": [{"synset": "beckon.v.01", "word": "beckon",
                     "definition": "signal with the hands or nod"}, ...]}

An exported folder (``lexprobe export hf wdlmpro``) holds the same records as parquet rows (``ROWS``), one
file per part of speech; ``load_dataset`` reads it like a ``build`` folder.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Iterable, Literal, Sequence, TypedDict

from lexprobe.cache import cache_dir, cached_json
from lexprobe.data.exported import Items, RowFormat, RowRule, Text, Unique
from lexprobe.data.wordnet import load_wordnet, synset_string, wordnet_key
from lexprobe.errors import DataError
from lexprobe.reporting import format_table

MIN_GROUP_SIZE = 5
POS_NAMES = {"n": "noun", "v": "verb"}
BUILDER_VERSION = 1  # bump when the construction changes: invalidates cached builds
BUILD_HINT = "rebuild it with `lexprobe wdlmpro build --out DIR`"
#: the most candidates of a group (WordNet 3.0's largest: 595 before de-duplication) and bytes of a definition
#: (WordNet's longest: 505)
MAX_GROUP_SIZE = 2000
DEFINITION_BYTES = 8192
#: a WDLMPro group as one row: a line of the JSONL files and a row of an exported file (``lexprobe export hf
#: wdlmpro``, one file per POS) alike, checked by this one declaration; a target is one group
ROWS = RowFormat("wdlmpro-groups/1", "wdlmpro", (
    ("target", Text()), ("pos", Text(choices=tuple(POS_NAMES))), ("word", Text()),
    ("candidates", Items({"synset": Text(), "word": Text(), "definition": Text(max_bytes=DEFINITION_BYTES)},
                         least=2, most=MAX_GROUP_SIZE))),
    key=("pos",),
    rules=(RowRule(lambda row: row["candidates"][0]["synset"] == row["target"],
                   lambda row: f"the first candidate must be the target {row['target']!r}, got "
                               f"{row['candidates'][0]['synset']!r}"),),
    unique=(Unique("the group of target", lambda row: row["target"]),))


@dataclass(frozen=True)
class Candidate:
    synset: str
    word: str
    definition: str


@dataclass(frozen=True)
class SynsetGroup:
    target: str
    pos: str
    word: str
    candidates: tuple[Candidate, ...]  # target first

    @property
    def size(self) -> int:
        return len(self.candidates)

    @property
    def definition(self) -> str:
        return self.candidates[0].definition


# ---------------------------------------------------------------- construction


def _candidate(synset, memo: dict[str, Candidate]) -> Candidate:
    """One shared Candidate per synset (a synset is a candidate in ~50 groups)."""
    name = synset.name()
    if name not in memo:
        memo[name] = Candidate(name, synset_string(name), synset.definition())
    return memo[name]


def _by_name(synsets) -> list:
    return sorted(synsets, key=lambda s: s.name())


def group_members(target, keep_duplicates: bool = False, memo: dict[str, Candidate] | None = None) -> list[Candidate]:
    """Target, then hyponyms of each direct hypernym (no instance relations), sorted by name.

    NLTK >= 3.9 returns related synsets in a set's (per-process) order; the order decides which of two
    duplicates the dedup keeps (crooning.n.01 or .02 in a_cappella_singing.n.01's group), so we sort by
    name: the same groups in every run, matching the paper's examples.
    """
    memo = {} if memo is None else memo
    members = [_candidate(target, memo)]
    seen_synsets = {target.name()}
    seen_words = {members[0].word}
    seen_definitions = {members[0].definition}
    for hypernym in _by_name(target.hypernyms()):
        for sister in _by_name(hypernym.hyponyms()):
            name = sister.name()
            if name in seen_synsets:
                continue
            seen_synsets.add(name)
            cand = _candidate(sister, memo)
            if not keep_duplicates and (cand.word in seen_words or cand.definition in seen_definitions):
                continue
            seen_words.add(cand.word)
            seen_definitions.add(cand.definition)
            members.append(cand)
    return members


def _group(target, pos: str, keep_duplicates: bool = False, memo: dict | None = None) -> SynsetGroup | None:
    """The group of ``target``, or None when it has fewer than ``MIN_GROUP_SIZE`` members."""
    members = group_members(target, keep_duplicates, memo)
    return SynsetGroup(target.name(), pos, members[0].word, tuple(members)) if len(members) >= MIN_GROUP_SIZE else None


def build_groups(
    pos: str,
    keep_duplicates: bool = False,
    wn=None,
    targets: Iterable[Any] | None = None,
    progress: bool = False,
) -> list[SynsetGroup]:
    """The groups of one POS in WordNet's data-file order, or of ``targets`` (synset names or synsets, e.g.
    for tests) in their order; groups under ``MIN_GROUP_SIZE`` are dropped either way."""
    if pos not in POS_NAMES:
        raise DataError(f"unknown part of speech {pos!r}; use n or v")
    wn = wn if wn is not None else load_wordnet()
    if targets is None:
        synsets: Iterable[Any] = wn.all_synsets(pos)
    else:
        synsets = [wn.synset(t) if isinstance(t, str) else t for t in targets]
    if progress:
        from tqdm import tqdm

        synsets = tqdm(synsets, desc=f"WDLMPro {POS_NAMES[pos]} groups", unit=" synsets", mininterval=1.0)
    memo: dict[str, Candidate] = {}
    return [g for g in (_group(t, pos, keep_duplicates, memo) for t in synsets) if g is not None]


# ---------------------------------------------------------------- JSONL


def group_to_dict(group: SynsetGroup) -> dict:
    return {
        "target": group.target,
        "pos": group.pos,
        "word": group.word,
        "candidates": [{"synset": c.synset, "word": c.word, "definition": c.definition} for c in group.candidates],
    }


def write_jsonl(groups: Iterable[SynsetGroup], path: str | Path) -> Path:
    """Write one group per line; atomic (``outputs.write_atomic``: a temporary file renamed into place)."""
    from lexprobe.outputs import write_atomic

    def lines(f) -> None:
        for group in groups:
            f.write((json.dumps(group_to_dict(group), ensure_ascii=False) + "\n").encode("utf-8"))

    return write_atomic(path, lines)


def _group_from_dict(row: dict, interned: dict | None = None) -> SynsetGroup:
    """A row ``ROWS`` accepted, as a group. ``interned`` maps (synset, word, definition) to one shared Candidate:
    loading is several times faster and the dataset several times smaller."""
    interned = {} if interned is None else interned
    cands = []
    for c in row["candidates"]:
        key = (c["synset"], c["word"], c["definition"])
        if key not in interned:
            interned[key] = Candidate(*key)
        cands.append(interned[key])
    return SynsetGroup(row["target"], row["pos"], row["word"], tuple(cands))


def load_groups(path: str | Path) -> list[SynsetGroup]:
    """Read a WDLMPro JSONL file, every line checked against ``ROWS`` (a group given twice is refused: it would be
    scored twice); an empty or malformed file raises DataError (file, line, fix)."""
    from lexprobe.data.files import require_regular, unique_keys

    path = require_regular(Path(path), BUILD_HINT)
    if not path.is_file():
        raise DataError(f"WDLMPro dataset file {path} not found; {BUILD_HINT}")
    groups = []
    interned: dict = {}
    seen = ROWS.seen()
    fix = f"fix the line or {BUILD_HINT}"
    lineno = 0
    try:
        with path.open(encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                where = f"{path}:{lineno}"
                try:
                    row = json.loads(line, object_pairs_hook=unique_keys)
                except (json.JSONDecodeError, ValueError, RecursionError) as exc:
                    raise DataError(f"{where}: malformed WDLMPro group ({str(exc)[:120]}); {fix}") from None
                ROWS.check(row, where, fix)
                seen.check(row, where, fix)
                groups.append(_group_from_dict(row, interned))
    except (UnicodeDecodeError, OSError) as exc:
        raise DataError(f"{path}:{lineno + 1}: cannot read the WDLMPro file ({exc}); {BUILD_HINT}") from None
    if not groups:
        raise DataError(f"WDLMPro dataset file {path} is empty; {BUILD_HINT}")
    return groups


def pos_list(pos: str) -> list[str]:
    if pos == "both":
        return ["n", "v"]
    if pos in POS_NAMES:
        return [pos]
    raise DataError(f"unknown part of speech {pos!r}; use n, v or both")


def dataset_filename(pos: str) -> str:
    return f"wdlmpro_{pos}.jsonl"


def load_exported(data: Path, pos: str) -> list[SynsetGroup] | None:
    """An exported folder's groups for the requested POS, in the export's order; None when ``data`` is no export."""
    from lexprobe.data.exported import open_export, part_keys

    parts = open_export(data, ROWS, lambda key: key.get("pos") in pos_list(pos))
    if parts is None:
        return None
    groups: list[SynsetGroup] = []
    interned: dict = {}
    for p in pos_list(pos):
        mine = [part for part in parts if part.key["pos"] == p]
        if not mine:
            held = sorted({key.get("pos", "?") for key in part_keys(data)})
            raise DataError(f"the export {data} holds no {POS_NAMES[p]} groups; pass --pos {' or '.join(held)}, "
                            "or export them")
        for part in mine:  # every row checked against ``ROWS`` by ``open_export``
            for i, row in enumerate(part.rows):
                group = _group_from_dict(row, interned)
                if group.pos != p:
                    raise DataError(f"{part.path}: row {i} is a {POS_NAMES.get(group.pos, group.pos)} group in the "
                                    f"{POS_NAMES[p]} part; export it again")
                groups.append(group)
    return groups


def load_dataset(data: str | Path, pos: str = "both") -> list[SynsetGroup]:
    """Groups from a JSONL file, from DIR/wdlmpro_{n,v}.jsonl, or from an exported folder, for the requested POS."""
    data = Path(data)
    if not data.exists():
        raise DataError(f"WDLMPro data {data} not found; pass a JSONL file or a folder from `wdlmpro build`")
    exported = load_exported(data, pos) if data.is_dir() else None
    if exported is not None:
        return exported
    if data.is_dir():
        missing = [dataset_filename(p) for p in pos_list(pos) if not (data / dataset_filename(p)).is_file()]
        if missing:
            raise DataError(f"{data / missing[0]} not found: the folder {data} lacks {', '.join(missing)}; pass "
                            f"a JSONL file or a folder written by `lexprobe wdlmpro build --out {data}`")
        groups = []
        for p in pos_list(pos):
            groups.extend(load_groups(data / dataset_filename(p)))
        return groups
    wanted = set(pos_list(pos))
    return [g for g in load_groups(data) if g.pos in wanted]


# ---------------------------------------------------------------- cached default build


def _cache_path(pos: str, keep_duplicates: bool) -> Path:
    """Keyed by ``wordnet_key`` (the installed WordNet's version and fingerprint, read without loading it)."""
    variant = "keepdup" if keep_duplicates else "dedup"
    return cache_dir() / "wdlmpro" / f"{wordnet_key()}_b{BUILDER_VERSION}_{variant}_{pos}.json"


def _cache_inputs(pos: str, keep_duplicates: bool) -> dict:
    """What a groups cache entry is built from (recorded in it: ``cache.cached_json``): a noun entry in the verb
    entry's place is built again, not read as verbs."""
    return {"cache": "wdlmpro-groups", "wordnet": wordnet_key(), "builder": BUILDER_VERSION,
            "keep_duplicates": keep_duplicates, "pos": pos}


def _cache_rows(groups: Sequence[SynsetGroup]) -> dict:
    """Compact form: each candidate once in a table, groups as lists of table indices."""
    index: dict[Candidate, int] = {}  # each candidate's row in the table, in order of first use
    rows = [[index.setdefault(c, len(index)) for c in g.candidates] for g in groups]
    table = [[c.synset, c.word, c.definition] for c in index]
    return {"format": "wdlmpro-cache/1", "pos": groups[0].pos if groups else None, "candidates": table, "groups": rows}


class GroupsCache(TypedDict):
    """The groups cache as ``_cache_rows`` writes it (read back through ``validation``)."""

    format: Literal["wdlmpro-cache/1"]
    candidates: list[tuple[str, str, str]]
    groups: list[list[int]]


def _groups_from_cache(data: GroupsCache, pos: str) -> list[SynsetGroup]:
    """The groups of a cache file that read back as ``GroupsCache`` (an index out of the table: rebuilt)."""
    table = [Candidate(*c) for c in data["candidates"]]
    groups = []
    for row in data["groups"]:
        cands = tuple(table[i] for i in row)
        groups.append(SynsetGroup(cands[0].synset, pos, cands[0].word, cands))
    return groups


def default_dataset(pos: str = "both", keep_duplicates: bool = False, progress: bool = True) -> list[SynsetGroup]:
    """The full dataset, built once (1-3 minutes) and cached under cache_dir()/wdlmpro/; loading it takes seconds.

    The cache file name carries the WordNet version and fingerprint, the builder version and the variant, so a
    different WordNet or construction never reuses a stale build; the entry records them (``_cache_inputs``) and
    its own digest, so an entry of another part of speech or an edited one is rebuilt, as is a damaged one
    (``cache.cached_json``; a read-only cache is one notice and the groups are used without storing them).
    """
    groups = []
    for p in pos_list(pos):
        build = partial(build_groups, p, keep_duplicates, progress=progress)
        cached: list[SynsetGroup] = cached_json(_cache_path(p, keep_duplicates), GroupsCache, build,
                                                inputs=_cache_inputs(p, keep_duplicates),
                                                read=partial(_groups_from_cache, pos=p), stored=_cache_rows)
        groups.extend(cached)
    return groups


def read_groups(data: str | Path | None, pos: str = "both", keep_duplicates: bool = False) -> list[SynsetGroup]:
    """The groups of ``data`` (``load_dataset``), else of the cached full build (``default_dataset``)."""
    return load_dataset(data, pos) if data else default_dataset(pos, keep_duplicates)


def select_groups(data: str | Path | None, pos: str = "both", limit: int | None = None, seed: int = 0,
                  draw: str = "dataset") -> list[SynsetGroup]:
    """The groups a run reads: per POS, from ``data`` (or the cached full build), a seeded sample of ``limit``
    groups when given (``draw="wordnet"``: ``wordnet_sample``). ``eval`` and ``export`` both select through this
    one function, so the same options give the same items."""
    groups: list[SynsetGroup] = []
    for p in pos_list(pos):
        if draw == "wordnet" and limit:  # check_config: no --data
            groups.extend(wordnet_sample(p, limit, seed))
            continue
        pool = read_groups(data, p)
        groups.extend(sample_groups(pool, limit, seed=seed) if limit else pool)
    return groups


# ---------------------------------------------------------------- statistics (Table 2)


def dataset_stats(groups: Sequence[SynsetGroup]) -> dict[str, dict]:
    """Per POS present: number of groups, average / min / max number of candidates."""
    stats: dict[str, dict] = {}
    for p in POS_NAMES:
        sizes = [g.size for g in groups if g.pos == p]
        if sizes:
            stats[p] = {"groups": len(sizes), "candidates": sum(sizes), "avg_candidates": sum(sizes) / len(sizes),
                        "min_candidates": min(sizes), "max_candidates": max(sizes)}
    return stats


def format_stats_table(stats: dict[str, dict], title: str | None = "WDLMPro statistics (Table 2)") -> str:
    """Table-2-style text: one column per POS."""
    cols = [p for p in POS_NAMES if p in stats]
    rows = [
        ["# of synset groups"] + [f"{stats[p]['groups']:,}" for p in cols],
        ["average # of candidates"] + [f"{stats[p]['avg_candidates']:.1f}" for p in cols],
        ["min / max # of candidates"] + [f"{stats[p]['min_candidates']} / {stats[p]['max_candidates']}" for p in cols],
    ]
    headers = [""] + [POS_NAMES[p].capitalize() for p in cols]
    return format_table(headers, rows, title=title)


# ---------------------------------------------------------------- sampling


#: what the result of a ``--draw wordnet`` sample records as its ``dataset`` (the report's sample banner)
def wordnet_sample_record(n: int) -> dict:
    return {"name": "wordnet", "sample": True,
            "what": f"a seeded sample of {n} WDLMPro groups per part of speech drawn from WordNet 3.0 (the benchmark "
                    "has 51,260 noun and 8,487 verb groups)",
            "get": "lexprobe wdlmpro eval --model MODEL (every group), or lexprobe run --full (larger samples)"}


def wordnet_sample(pos: str, n: int, seed: int = 0) -> list[SynsetGroup]:
    """``--limit N --seed S --draw wordnet``: a uniform seeded sample of n groups without building the dataset.

    Rejection sampling (targets in a seeded order, kept when their group is large enough): every valid group
    equally likely, in seconds where the whole build takes minutes (``lexprobe run``'s samples). Not the groups
    of ``--draw dataset`` (``sample_groups`` of the built dataset); the result's config records which.
    """
    wn = load_wordnet()
    synsets = sorted(s.name() for s in wn.all_synsets(pos))
    random.Random(seed).shuffle(synsets)
    groups: list[SynsetGroup] = []
    for name in synsets:
        group = _group(wn.synset(name), pos)
        if group is not None:
            groups.append(group)
            if len(groups) == n:
                break
    return groups


def sample_groups(
    groups: Sequence[SynsetGroup], n: int | None, seed: int = 0, max_candidates: int | None = None
) -> list[SynsetGroup]:
    """A seeded sample of ``n`` groups (all if n is None or larger), in dataset order, among those with at most
    ``max_candidates`` candidates; the same arguments always give the same sample."""
    pool = [g for g in groups if max_candidates is None or g.size <= max_candidates]
    if n is None or n >= len(pool):
        return list(pool)
    if n < 0:
        raise DataError(f"sample size must be >= 0, got {n}")
    picked = sorted(random.Random(seed).sample(range(len(pool)), n))
    return [pool[i] for i in picked]
