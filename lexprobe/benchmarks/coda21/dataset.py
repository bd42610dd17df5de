"""CoDA21 data: the official JSON format, its validation, Table-1 statistics.

Official format (github lksenel/CoDA21)::

    {"n": [group, ...], "v": [group, ...]}            (other top-level keys, e.g. a canary, ignored)
    group = {"common_ancestor_info": {"relation": "parent"|"grandparent", "ancestor_name": SYNSET},
             "candidates": [{"synset_name": ..., "definition": ...,
                             "contexts": [SENTENCE], "words_in_contexts": [SURFACE FORM]}, ...]}

A malformed group does not stop a run: ``load_coda`` keeps the good groups and reports each bad one as a
``GroupProblem`` (counted as skipped). An exported folder (``lexprobe export hf coda21``: ``ROWS``, one parquet file
per variant and POS) is read through the same group checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from lexprobe.data.exported import Items, RowFormat, RowRule, Text, Unique
from lexprobe.data.files import read_json
from lexprobe.errors import DataError

POS_NAMES = {"n": "noun", "v": "verb"}
VARIANTS = ("clean-hard", "clean-easy", "noisy-hard", "noisy-easy")
MIN_GROUP_SIZE = 2  # an alignment of one item is trivially right
#: the most candidates of a group (the official files: 10) and bytes of a definition (WordNet's longest: 505) or
#: a context (SemCor's longest in the official files: 1,477)
MAX_GROUP_SIZE = 1000
DEFINITION_BYTES = 8192
CONTEXT_BYTES = 16384


def _missing_targets(row: dict) -> str | None:
    """The first candidate whose target word is not in its context, in words; None when every one is."""
    for c in row["candidates"]:
        if not find_target(c["context"], c["word"]):
            return f"target word {c['word']!r} of {c['synset']} not found in its context"
    return None


#: a CoDA21 group as one row: what an exported file holds (``lexprobe export hf coda21``: one file per variant and
#: POS) and what an official file's group is read into, so both are checked by the same declaration
ROWS = RowFormat("coda21-groups/1", "coda21", (
    ("id", Text(pattern=r"\S+", what="an id without spaces")), ("pos", Text(choices=tuple(POS_NAMES))),
    ("relation", Text(blank=True)), ("ancestor", Text(blank=True)),
    ("candidates", Items({"synset": Text(), "definition": Text(max_bytes=DEFINITION_BYTES),
                          "context": Text(max_bytes=CONTEXT_BYTES), "word": Text()},
                         least=MIN_GROUP_SIZE, most=MAX_GROUP_SIZE))),
    key=("variant", "pos"),
    rules=(RowRule(lambda row: _missing_targets(row) is None, lambda row: str(_missing_targets(row))),),
    unique=(Unique("group id", lambda row: row["id"]),
            Unique("the group of candidates", lambda row: tuple(sorted(c["synset"] for c in row["candidates"])))))


@dataclass(frozen=True)
class Candidate:
    synset: str
    definition: str
    context: str
    word: str  # surface form of the target in ``context`` (hidden from the model)


@dataclass
class Group:
    id: str  # "<pos>/<index in the file>", stable across runs
    pos: str
    relation: str
    ancestor: str
    candidates: list[Candidate]

    @property
    def k(self) -> int:
        return len(self.candidates)


@dataclass(frozen=True)
class GroupProblem:
    group_id: str
    reason: str

    def __str__(self) -> str:
        return f"group {self.group_id}: {self.reason}"


@dataclass
class CodaData:
    groups: list[Group]
    problems: list[GroupProblem] = field(default_factory=list)
    source: str = ""

    def by_pos(self, pos: str) -> list[Group]:
        return [g for g in self.groups if g.pos == pos]


# --- hiding the target -------------------------------------------------------------

def target_pattern(word: str, flags: int = 0) -> re.Pattern:
    # whole-word: not preceded or followed by a word character (the released code
    # replaced substrings, so "art" also hit "party"; we do not)
    return re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)", flags)


def find_target(context: str, word: str) -> list[tuple[int, int]]:
    """Character spans of whole-word occurrences of ``word`` (case-insensitive fallback)."""
    spans = [m.span() for m in target_pattern(word).finditer(context)]
    if not spans:
        spans = [m.span() for m in target_pattern(word, re.IGNORECASE).finditer(context)]
    return spans


def replace_target(context: str, word: str, replacement: str) -> str:
    """``context`` with every whole-word occurrence of ``word`` replaced (an empty replacement removes the word
    and the doubled space it leaves)."""
    spans = find_target(context, word)
    if not spans:
        raise ValueError(f"target {word!r} not found in context {context[:80]!r}")
    out, last = [], 0
    for start, end in spans:
        out += [context[last:start], replacement]
        last = end
    text = "".join(out) + context[last:]
    if not replacement:
        text = re.sub(r"\s{2,}", " ", text).strip()
    return text


# --- loading and validation --------------------------------------------------------

def _row_of(raw: Any, group_id: str, pos: str) -> dict[str, Any]:
    """An official file's group as a row (``ROWS``), or ValueError saying what is wrong with its structure; the
    row's values are checked by ``ROWS`` after."""
    if not isinstance(raw, dict):
        raise ValueError("is not an object")
    info = raw.get("common_ancestor_info") or {}
    if not isinstance(info, dict):
        raise ValueError("'common_ancestor_info' is not an object")
    cands = raw.get("candidates")
    if not isinstance(cands, list):
        raise ValueError("has no 'candidates' list")
    out = []
    for i, c in enumerate(cands):
        if not isinstance(c, dict):
            raise ValueError(f"candidate {i} is not an object")
        missing = [key for key in ("synset_name", "definition", "contexts", "words_in_contexts") if key not in c]
        if missing:
            raise ValueError(f"candidate {i} lacks {', '.join(missing)}")
        contexts, words = ([v] if isinstance(v, str) else v for v in (c["contexts"], c["words_in_contexts"]))
        for field_name, value in (("contexts", contexts), ("words_in_contexts", words)):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"candidate {i}: '{field_name}' must be a list of strings, "
                                 f"got {type(value).__name__}")
        if not contexts or not words:
            raise ValueError(f"candidate {i} ({c['synset_name']}) has no context or target word")
        definition = c["definition"].strip() if isinstance(c["definition"], str) else c["definition"]
        out.append({"synset": c["synset_name"], "definition": definition, "context": contexts[0], "word": words[0]})
    return {"id": group_id, "pos": pos, "relation": info.get("relation", ""), "ancestor": info.get("ancestor_name", ""),
            "candidates": out}


def _group_of(row: dict[str, Any]) -> Group:
    """A row ``ROWS`` accepted, as a group."""
    return Group(row["id"], row["pos"], row["relation"], row["ancestor"],
                 [Candidate(c["synset"], c["definition"], c["context"], c["word"]) for c in row["candidates"]])


def _parse_group(raw: Any, group_id: str, pos: str) -> Group:
    """Build a Group (through ``ROWS``) or raise ValueError with the reason."""
    row = _row_of(raw, group_id, pos)
    wrong = ROWS.problems(row)
    if wrong:
        raise ValueError("; ".join(wrong[:3]))
    return _group_of(row)


def parse_coda(obj: Any, source: str = "", pos: Iterable[str] = ("n", "v")) -> CodaData:
    """The groups of an official file's content; a group that is malformed, or the same as one before it, is
    reported in ``.problems`` (and skipped), never read twice."""
    if not isinstance(obj, dict) or not any(p in obj for p in POS_NAMES):
        raise DataError(f"{source or 'data'} is not a CoDA21 file: expected a JSON object with keys 'n' and/or 'v'")
    data = CodaData(groups=[], source=source)
    seen = ROWS.seen()
    for p in pos:
        raw_groups = obj.get(p, [])
        if not isinstance(raw_groups, list):
            raise DataError(f"{source}: '{p}' must be a list of groups")
        for i, raw in enumerate(raw_groups):
            gid = f"{p}/{i}"
            try:
                group = _parse_group(raw, gid, p)
            except (ValueError, TypeError, AttributeError, KeyError) as err:
                data.problems.append(GroupProblem(gid, str(err)))
                continue
            again = seen.earlier(group_to_row(group), f"group {gid}")
            if again is not None:
                data.problems.append(GroupProblem(gid, f"{again[0]} is the same as {again[2]}'s (an item is scored once)"))
                continue
            data.groups.append(group)
    return data


def group_to_row(group: Group) -> dict[str, Any]:
    """A group as an exported row (``ROWS``)."""
    return {"id": group.id, "pos": group.pos, "relation": group.relation, "ancestor": group.ancestor,
            "candidates": [{"synset": c.synset, "definition": c.definition, "context": c.context, "word": c.word}
                           for c in group.candidates]}


def load_exported(path: Path, pos: Iterable[str], option: str) -> CodaData | None:
    """The groups (and the source's problems) of an exported folder for ``pos``; None when ``path`` is no
    export. An export of several variants must be narrowed to one (``DIR/<variant>``): groups of two variants
    are never mixed. Every row was checked against ``ROWS`` by ``open_export``."""
    from lexprobe.data.exported import open_export

    pos = tuple(pos)
    parts = open_export(path, ROWS, lambda key: key.get("pos") in pos)
    if parts is None:
        return None
    variants = sorted({p.key["variant"] for p in parts})
    if len(variants) > 1:
        raise DataError(f"{path} holds the CoDA21 variants {', '.join(variants)}; pass one of them as {option} "
                        f"{path / variants[0]}")
    data = CodaData(groups=[], source=str(path))
    for p in pos:
        for part in (part for part in parts if part.key["pos"] == p):
            data.problems += [GroupProblem(q["group"], q["reason"]) for q in part.problems]
            for i, row in enumerate(part.rows):
                if row["pos"] != p:
                    raise DataError(f"{part.path}: row {i} is a {row['pos']!r} group in the {p!r} part; export it again")
                data.groups.append(_group_of(row))
    return data


def load_coda(path: str | Path, pos: Iterable[str] = ("n", "v"), option: str = "--data") -> CodaData:
    """Read a CoDA21 JSON file or exported folder; malformed groups are reported in ``.problems``, not raised
    (``option``: where the path came from, for the error messages)."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"CoDA21 file {path} not found; pass a CoDA-*.json file as {option}")
    if path.is_dir():
        exported = load_exported(path, tuple(pos), option)
        if exported is not None:
            return exported
        raise DataError(f"{path} is a folder; pass a CoDA-*.json file or an exported folder "
                        f"(`lexprobe export hf coda21`) as {option}")
    return parse_coda(read_json(path, "pass an official CoDA21 file"), source=str(path), pos=pos)


def groups_to_official(groups: Sequence[Group]) -> dict[str, list[dict]]:
    """The official JSON structure for ``groups`` (both POS keys always present)."""
    out: dict[str, list[dict]] = {"n": [], "v": []}
    for g in groups:
        out[g.pos].append(_official(g))
    return out


def _official(g: Group) -> dict[str, Any]:
    return {"common_ancestor_info": {"relation": g.relation, "ancestor_name": g.ancestor},
            "candidates": [{"synset_name": c.synset, "definition": c.definition, "contexts": [c.context],
                            "words_in_contexts": [c.word]} for c in g.candidates]}


# --- statistics ----------------------------------------------------------------------

def coda_stats(data: CodaData) -> dict[str, dict[str, Any]]:
    """Table-1 statistics per POS: groups, unique synsets (USC), group sizes, relation."""
    stats = {}
    for pos in POS_NAMES:
        groups = data.by_pos(pos)
        sizes = [g.k for g in groups]
        synsets = {c.synset for g in groups for c in g.candidates}
        stats[pos] = {
            "groups": len(groups), "unique_synsets": len(synsets), "candidates": sum(sizes),
            "k_min": min(sizes, default=0), "k_mean": round(sum(sizes) / len(sizes), 2) if sizes else 0.0,
            "k_max": max(sizes, default=0), "relations": sorted({g.relation for g in groups}),
            "skipped": sum(1 for p in data.problems if p.group_id.startswith(pos + "/")),
        }
    return stats


def format_stats(stats: dict[str, dict[str, Any]], title: str = "") -> str:
    from lexprobe.reporting import format_table

    headers = ["POS", "# of G", "USC", "candidates", "k min/mean/max", "relation", "skipped"]
    rows = [[POS_NAMES[p], s["groups"], s["unique_synsets"], s["candidates"],
             f"{s['k_min']}/{s['k_mean']}/{s['k_max']}", ",".join(s["relations"]) or "-", s["skipped"]]
            for p, s in stats.items()]
    table = format_table(headers, rows)
    return f"{title}\n{table}" if title else table
