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

from lexprobe.data.exported import RowFormat
from lexprobe.data.files import read_json
from lexprobe.errors import DataError

POS_NAMES = {"n": "noun", "v": "verb"}
VARIANTS = ("clean-hard", "clean-easy", "noisy-hard", "noisy-easy")
MIN_GROUP_SIZE = 2  # an alignment of one item is trivially right
#: an exported CoDA21 row (``lexprobe export hf coda21``): a group with its id, one file per variant and POS
ROWS = RowFormat("coda21-groups/1", "coda21", (
    ("id", "string"), ("pos", "string"), ("relation", "string"), ("ancestor", "string"),
    ("candidates", [{"synset": "string", "definition": "string", "context": "string", "word": "string"}])),
    key=("variant", "pos"))


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

def _parse_group(raw: Any, group_id: str, pos: str) -> Group:
    """Build a Group or raise ValueError with the reason."""
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
        for field_name in ("synset_name", "definition"):
            if not isinstance(c[field_name], str):
                raise ValueError(f"candidate {i}: '{field_name}' must be a string, got {type(c[field_name]).__name__}")
        if not contexts or not words or not str(contexts[0]).strip() or not str(words[0]).strip():
            raise ValueError(f"candidate {i} ({c['synset_name']}) has an empty context or target word")
        if not str(c["definition"]).strip():
            raise ValueError(f"candidate {i} ({c['synset_name']}) has an empty definition")
        context, word = str(contexts[0]), str(words[0])
        if not find_target(context, word):
            raise ValueError(f"target word {word!r} of {c['synset_name']} not found in its context")
        out.append(Candidate(str(c["synset_name"]), str(c["definition"]).strip(), context, word))
    if len(out) < MIN_GROUP_SIZE:
        raise ValueError(f"has {len(out)} candidate(s); an alignment needs at least {MIN_GROUP_SIZE}")
    return Group(group_id, pos, str(info.get("relation", "")), str(info.get("ancestor_name", "")), out)


def parse_coda(obj: Any, source: str = "", pos: Iterable[str] = ("n", "v")) -> CodaData:
    if not isinstance(obj, dict) or not any(p in obj for p in POS_NAMES):
        raise DataError(f"{source or 'data'} is not a CoDA21 file: expected a JSON object with keys 'n' and/or 'v'")
    data = CodaData(groups=[], source=source)
    for p in pos:
        raw_groups = obj.get(p, [])
        if not isinstance(raw_groups, list):
            raise DataError(f"{source}: '{p}' must be a list of groups")
        for i, raw in enumerate(raw_groups):
            gid = f"{p}/{i}"
            try:
                data.groups.append(_parse_group(raw, gid, p))
            except (ValueError, TypeError, AttributeError, KeyError) as err:
                data.problems.append(GroupProblem(gid, str(err)))
    return data


def group_to_row(group: Group) -> dict[str, Any]:
    """A group as an exported row (``ROWS``)."""
    return {"id": group.id, "pos": group.pos, "relation": group.relation, "ancestor": group.ancestor,
            "candidates": [{"synset": c.synset, "definition": c.definition, "context": c.context, "word": c.word}
                           for c in group.candidates]}


def _group_from_row(row: dict[str, Any]) -> Group:
    """An exported row back as a group, through the official format's checks (``_parse_group``)."""
    group = Group(row["id"], row["pos"], row["relation"], row["ancestor"],
                  [Candidate(c["synset"], c["definition"], c["context"], c["word"]) for c in row["candidates"]])
    return _parse_group(_official(group), group.id, group.pos)


def load_exported(path: Path, pos: Iterable[str], option: str) -> CodaData | None:
    """The groups (and the source's problems) of an exported folder for ``pos``; None when ``path`` is no
    export. An export of several variants must be narrowed to one (``DIR/<variant>``): groups of two variants
    are never mixed."""
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
                try:
                    group = _group_from_row(row)
                except (ValueError, TypeError, AttributeError, KeyError) as err:
                    raise DataError(f"{part.path}: row {i}: {err}; export it again") from None
                if group.pos != p:
                    raise DataError(f"{part.path}: row {i} is a {group.pos!r} group in the {p!r} part; export it again")
                data.groups.append(group)
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
