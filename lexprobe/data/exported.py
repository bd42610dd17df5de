"""A benchmark's items as parquet files in an exported folder, written and read through one declared row format.

Why: ``lexprobe <benchmark> eval --data DIR`` must read what ``lexprobe export hf BENCHMARK --out DIR`` wrote back
to exactly the items it came from. So each benchmark declares once what a row is (``RowFormat``: columns with
their types, ranges and sizes, the key naming a part, rules over a row, what makes two rows one item); the export
writes the parquet schema and the card's ``features`` from it, readers go through ``open_export``, which checks
every file and every row against it, and the benchmark's own file readers check their items by the same
declaration. The manifest (``lexprobe-export.json``) names the
benchmark, the row format and every part: key, relative file, row count, SHA-256 (an edited file is refused),
and the source's unusable groups (``problems``, read back as the reader's own). ``--data DIR/SUB`` selects the
parts under ``SUB/``. pyarrow is imported only when a file is read or written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, TypedDict

from lexprobe.errors import DataError
from lexprobe.validation import SHOWN, Rule, problems

MANIFEST = "lexprobe-export.json"
FORMAT = "lexprobe-export/1"

#: a column's type: ``Text(...)``, ``Int(...)``, ``Items(T, ...)`` (a list of T) or ``{"field": T, ...}`` (a struct);
#: the shorthands "string", "int32", "int64" and ``[T]`` are those types with their default rules
ColumnType = Any

#: at most this many bytes of UTF-8 in a text field unless its declaration says otherwise (names, ids, keys)
NAME_BYTES = 512
#: what no genuine text of these benchmarks reaches uncompressed: a parquet column chunk above ``BOMB_FLOOR`` bytes
#: that its compressed size would have to be multiplied by more than this to give is refused before it is
#: decompressed (a 17 KB zstd file once held a 400 MB definition); exports of the official WSD and CoDA21 files
#: stay under 5 (lexprobe writes snappy, which cannot pass about 21)
MAX_COMPRESSION_RATIO = 100
BOMB_FLOOR = 16 << 20


@dataclass(frozen=True)
class Text:
    """A text column: not blank (unless ``blank``), at most ``max_bytes`` of UTF-8, and, where given, one of
    ``choices`` or a full match of ``pattern`` (``what`` says in words what the pattern is)."""

    max_bytes: int = NAME_BYTES
    choices: tuple[str, ...] = ()
    pattern: str | None = None
    what: str = ""
    blank: bool = False


@dataclass(frozen=True)
class Int:
    """An integer column of Arrow type ``arrow`` between ``low`` and ``high`` (inclusive, where given)."""

    arrow: str = "int32"
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True)
class Items:
    """A list column of ``of``, with ``least`` to ``most`` items."""

    of: Any
    least: int = 0
    most: int = 1000


@dataclass(frozen=True)
class RowRule:
    """A condition on a whole row: ``test(row)``, else ``problem`` (in words, or a function of the row giving
    them); not tested where the fields it reads are of the wrong type (those are named already)."""

    test: Callable[[dict], bool]
    problem: str | Callable[[dict], str]

    def words(self, row: dict) -> str:
        return self.problem(row) if callable(self.problem) else self.problem


@dataclass(frozen=True)
class Unique:
    """Rows that share ``key(row)`` are one item given twice (``what``: the key in words, e.g. "instance id")."""

    what: str
    key: Callable[[dict], Any]


@dataclass(frozen=True)
class RowFormat:
    """What one row of a benchmark's items is, wherever it comes from (an exported parquet file or the benchmark's
    own file format, read into the same fields): ``name`` (with a version: a change of columns is a new name),
    the columns in order with their types and rules (``Text``, ``Int``, ``Items``, structs: types, ranges, sizes),
    the key fields that name a part (``("pos",)``; ``("variant", "pos")``), rules over a whole row (``RowRule``:
    an index inside its tokens) and what makes two rows one item (``Unique``: never scored twice).

    Why one declaration: readers checked native files and exports each their own way, and each missed something
    the other caught (a negative token index, an empty token list, an id with a space, a row given twice);
    ``problems``, ``check`` and ``Seen`` are now the one check of a row from any source."""

    name: str
    benchmark: str
    columns: tuple[tuple[str, ColumnType], ...]
    key: tuple[str, ...]
    rules: tuple[RowRule, ...] = ()
    unique: tuple[Unique, ...] = ()

    def __post_init__(self) -> None:
        columns = tuple((name, _declared(spec)) for name, spec in self.columns)
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "_spec", _struct_spec(self.name, dict(columns)))

    def schema(self):
        """The pyarrow schema every part's file has."""
        import pyarrow as pa

        return pa.schema([(name, _arrow_type(spec)) for name, spec in self.columns])

    def features(self) -> list[dict]:
        """The columns as a dataset card's ``dataset_info.features`` (the YAML ``datasets`` reads)."""
        return [{"name": name, **_feature(spec)} for name, spec in self.columns]

    def problems(self, row: Any) -> list[str]:
        """What makes ``row`` not a row of this format (types, ranges, sizes, then the row rules that can be
        tested on it); empty if none."""
        wrong = problems(row, self._spec)  # type: ignore[attr-defined]  # set in __post_init__
        for rule in self.rules:
            try:
                if not rule.test(row):
                    wrong.append(rule.words(row))
            except (TypeError, KeyError, IndexError, AttributeError, ValueError):
                pass  # a rule over fields of the wrong type or shape: those fields are named already
        return wrong

    def check(self, row: Any, where: str, fix: str) -> dict:
        """``row`` when it is valid; else one ``DataError``: ``<where>: <problems>; <fix>``."""
        wrong = self.problems(row)
        if wrong:
            more = f" and {len(wrong) - SHOWN} more" if len(wrong) > SHOWN else ""
            raise DataError(f"{where}: not a valid {self.benchmark} item ({'; '.join(wrong[:SHOWN])}{more}); {fix}")
        return row

    def seen(self) -> "Seen":
        """A record of the rows of one source read so far, for ``Unique``."""
        return Seen(self)


class Seen:
    """The rows of one source (every part of an export, every line of a file) read so far, by their ``Unique``
    keys: a row whose key came before is one item given twice."""

    def __init__(self, fmt: RowFormat):
        self.fmt = fmt
        self.first: list[dict[Any, str]] = [{} for _ in fmt.unique]

    def earlier(self, row: dict, where: str) -> tuple[str, Any, str] | None:
        """``(what, key, where first)`` when ``row`` repeats an earlier row; else None (``row`` is recorded)."""
        keys = [unique.key(row) for unique in self.fmt.unique]
        for unique, key, first in zip(self.fmt.unique, keys, self.first):
            if key in first:
                return unique.what, key, first[key]
        for key, first in zip(keys, self.first):
            first[key] = where
        return None

    def check(self, row: dict, where: str, fix: str) -> None:
        """One ``DataError`` when ``row`` repeats an earlier row (``earlier``)."""
        again = self.earlier(row, where)
        if again is not None:
            what, key, first = again
            raise DataError(f"{where}: {what} {_shown(key)} is given twice (first at {first}); an item is scored "
                            f"once: remove one, or {fix}")


def _shown(key: Any, limit: int = 80) -> str:
    text = repr(key)
    return text if len(text) <= limit else text[:limit] + "..."


_SHORTHAND = {"string": Text(), "int32": Int("int32"), "int64": Int("int64")}


def _declared(spec: ColumnType) -> ColumnType:
    """A column type with its shorthands spelled out (``"string"`` -> ``Text()``, ``[T]`` -> ``Items(T)``)."""
    if isinstance(spec, str) and spec in _SHORTHAND:
        return _SHORTHAND[spec]
    if isinstance(spec, (Text, Int)):
        return spec
    if isinstance(spec, Items):
        return Items(_declared(spec.of), spec.least, spec.most)
    if isinstance(spec, list) and len(spec) == 1:
        return Items(_declared(spec[0]))
    if isinstance(spec, dict) and spec:
        return {k: _declared(v) for k, v in spec.items()}
    raise ValueError(f"unknown column type {spec!r}: use Text, Int, Items, a struct or {', '.join(_SHORTHAND)}")


def _arrow_type(spec: ColumnType):
    import pyarrow as pa

    if isinstance(spec, Text):
        return pa.string()
    if isinstance(spec, Int):
        return getattr(pa, spec.arrow)()
    if isinstance(spec, Items):
        return pa.list_(_arrow_type(spec.of))
    return pa.struct([(k, _arrow_type(v)) for k, v in spec.items()])


def _feature(spec: ColumnType) -> dict:
    if isinstance(spec, Text):
        return {"dtype": "string"}
    if isinstance(spec, Int):
        return {"dtype": spec.arrow}
    if isinstance(spec, Items):
        inner = _feature(spec.of)
        return {"list": inner["dtype"] if set(inner) == {"dtype"} else _fields(spec.of)}
    return {"struct": _fields(spec)}


def _fields(spec: dict) -> list[dict]:
    return [{"name": k, **_feature(v)} for k, v in spec.items()]


def _text_rules(spec: Text) -> list:
    import re

    limit, quick = spec.max_bytes, spec.max_bytes // 4  # a text of at most max_bytes/4 characters always fits

    def fits(v: str) -> bool:
        return len(v) <= quick or len(v.encode("utf-8", "surrogatepass")) <= limit

    rules = [Rule(fits, f"at most {limit:,} bytes of text")]
    if not spec.blank:
        rules.insert(0, Rule(lambda v: bool(v.strip()), "a text that is not blank"))
    if spec.choices:
        choices = frozenset(spec.choices)
        rules.append(Rule(lambda v: v in choices, "one of " + ", ".join(map(repr, spec.choices))))
    if spec.pattern is not None:
        compiled = re.compile(spec.pattern)
        rules.append(Rule(lambda v: compiled.fullmatch(v) is not None, spec.what or f"a match of {spec.pattern}"))
    return rules


def _spec(spec: ColumnType, name: str) -> Any:
    """A column's declaration as a ``validation`` spec (``Annotated`` with its rules)."""
    from typing import Annotated

    if isinstance(spec, Text):
        with_rules = (str, *_text_rules(spec))
        return Annotated[with_rules]  # type: ignore[valid-type]
    if isinstance(spec, Int):
        low, high = spec.low, spec.high
        rule = Rule(lambda v: (low is None or v >= low) and (high is None or v <= high),
                    "an integer " + " and ".join(x for x in (f"at least {low}" if low is not None else "",
                                                             f"at most {high}" if high is not None else "") if x))
        return Annotated[int, rule] if low is not None or high is not None else int
    if isinstance(spec, Items):
        bounds = f"at least {spec.least} and at most {spec.most:,}" if spec.least else f"at most {spec.most:,}"
        count = Rule(lambda v: spec.least <= len(v) <= spec.most, f"a list of {bounds} items")
        return Annotated[list[_spec(spec.of, name)], count]  # type: ignore[misc]
    return _struct_spec(name, spec)


def _struct_spec(name: str, fields: dict) -> Any:
    return TypedDict(name.replace("-", "_").replace("/", "_"),  # type: ignore[operator]
                     {k: _spec(v, f"{name}_{k}") for k, v in fields.items()})


# --- the manifest -----------------------------------------------------------------------------------------

class ManifestProblem(TypedDict):
    """A group of the source the export could not use: its id and why (read back as the reader's problems)."""

    group: str
    reason: str


class ManifestPart(TypedDict):
    key: dict[str, str]
    path: str
    rows: int
    sha256: str
    problems: list[ManifestProblem]


class Manifest(TypedDict):
    format: Literal["lexprobe-export/1"]
    benchmark: str
    rows: str
    parts: list[ManifestPart]


@dataclass
class Part:
    """One part of an export (one parquet file): its key, its rows, and the source's groups it left out."""

    key: dict[str, str]
    path: Path
    rows: list[dict] = field(default_factory=list)
    problems: list[ManifestProblem] = field(default_factory=list)


def write_part(path: Path, rows: list[dict], fmt: RowFormat, metadata: dict[str, str] | None = None) -> int:
    """``rows`` as one parquet file of ``fmt``'s schema (a row that does not fit the schema is an error here,
    not a surprise at read time); ``metadata``: key-value notes kept in the file (e.g. a canary string).
    Returns the rows' size in memory (Arrow bytes: a dataset card's ``num_bytes``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lexprobe.outputs import write_atomic

    schema = fmt.schema().with_metadata({k.encode(): v.encode() for k, v in (metadata or {}).items()})
    table = pa.Table.from_pylist(rows, schema=schema)
    write_atomic(path, lambda f: pq.write_table(table, f))
    return int(table.nbytes)


def export_root(path: str | Path) -> tuple[Path, str | None] | None:
    """``(the export folder, the sub-folder selected or None)`` when ``path`` is an export or a folder directly
    inside one (``DIR/clean-hard``); None when it is neither (a plain folder or a file)."""
    path = Path(path)
    if not path.is_dir():
        return None
    if (path / MANIFEST).is_file():
        return path, None
    if (path.parent / MANIFEST).is_file():
        return path.parent, path.name
    return None


def read_beside(path: str | Path) -> dict[str, Path]:
    """What ``open_export(path)`` reads besides ``path``: the whole export when ``path`` is one of its folders (the
    manifest and the parts it names), for ``outputs.guard`` (``option(reads=...)``: an output inside the export is
    inside an input)."""
    found = export_root(path)
    return {} if found is None or found[1] is None else {"the export it belongs to": found[0]}


def part_keys(path: str | Path) -> list[dict[str, str]]:
    """The keys of the parts ``path`` selects, from the manifest alone (no file read, nothing checked: for naming
    what a run read); empty when ``path`` is no export or its manifest cannot be read."""
    found = export_root(path)
    if found is None:
        return []
    root, sub = found
    try:
        manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
        return [dict(p["key"]) for p in manifest["parts"] if sub is None or Path(p["path"]).parts[:1] == (sub,)]
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return []


def open_export(path: str | Path, fmt: RowFormat, wanted: Callable[[dict[str, str]], bool] | None = None
                ) -> list[Part] | None:
    """The parts of the export at ``path`` (those under the selected sub-folder whose key ``wanted`` accepts; the
    others are not read), each file checked against the manifest (rows, SHA-256) and ``fmt``'s schema; None
    when ``path`` is no export. Every problem is one ``DataError`` naming the file and the fix."""
    from lexprobe.validation import check

    found = export_root(path)
    if found is None:
        return None
    root, sub = found
    fix = f"export it again (`lexprobe export hf {fmt.benchmark} --out NEW_FOLDER`)"
    manifest_path = root / MANIFEST
    from lexprobe.data.files import read_json

    manifest = check(read_json(manifest_path, fix), Manifest, str(manifest_path), fix)
    if manifest["benchmark"] != fmt.benchmark or manifest["rows"] != fmt.name:
        raise DataError(f"{root} is an export of {manifest['benchmark']} ({manifest['rows']}), not of {fmt.benchmark} "
                        f"({fmt.name}); pass a {fmt.benchmark} export or {fix}")
    _check_part_names(manifest_path, manifest["parts"], fix)
    selected = [e for e in manifest["parts"] if sub is None or Path(e["path"]).parts[:1] == (sub,)]
    if not selected:
        subs = sorted({Path(e["path"]).parts[0] for e in manifest["parts"] if Path(e["path"]).parts})
        raise DataError(f"{path} holds no part of the export {root} (its folders: {', '.join(subs)}); pass {root} "
                        f"or one of its folders")
    parts = []
    seen = fmt.seen()  # one item is one row over every part read (a part listed twice is its rows twice)
    for entry in selected:
        if set(entry["key"]) != set(fmt.key):
            raise DataError(f"{manifest_path}: part {entry['path']} is keyed by {sorted(entry['key'])}, not "
                            f"{list(fmt.key)}; {fix}")
        if wanted is not None and not wanted(entry["key"]):
            continue
        parts.append(Part(dict(entry["key"]), _inside(root, entry["path"], fix), problems=list(entry["problems"])))
        parts[-1].rows = _read_rows(parts[-1].path, entry, fmt, fix, seen)
    return parts


def _check_part_names(manifest_path: Path, entries: list[ManifestPart], fix: str) -> None:
    """Every part's path and key values are names lexprobe could have written (``outputs.relative_path_problem``,
    ``outputs.name_problem``: no ``..``, nothing absolute, no NUL or separator in a name; the key names a folder of
    a re-export) and no two paths are one file however cased; one ``DataError`` naming the manifest otherwise (a
    crafted manifest once gave ``IsADirectoryError`` or ``ValueError: embedded null byte`` tracebacks, D16)."""
    from lexprobe.outputs import name_problem, relative_path_problem, shown

    seen: dict[str, str] = {}
    for entry in entries:
        rel = entry["path"]
        problem = relative_path_problem(rel)
        if problem is not None:
            where = ("a file outside the export folder" if rel.startswith(("/", "\\")) or ".." in rel.split("/")
                     else "not a file lexprobe writes into an export")
            raise DataError(f"{manifest_path}: part path {shown(rel)} {problem}: {where}; {fix}")
        for name, value in entry["key"].items():
            problem = name_problem(value)
            if problem is not None:
                raise DataError(f"{manifest_path}: part {shown(rel)} has {name} {shown(value)}, which {problem}; "
                                f"{fix}")
        if rel in seen.values():  # the same part twice: its rows would be read, and scored, twice
            raise DataError(f"{manifest_path}: part {shown(rel)} is given twice in the manifest; an item is scored "
                            f"once; {fix}")
        if rel.casefold() in seen:
            raise DataError(f"{manifest_path}: parts {shown(seen[rel.casefold()])} and {shown(rel)} name one file "
                            f"(on a file system that ignores case, as the export's readers may); {fix}")
        seen[rel.casefold()] = rel


def _inside(root: Path, rel: str, fix: str) -> Path:
    """``root / rel``, refused when it is not a file inside the folder (a link out of it, a folder)."""
    path = root / rel
    if not path.resolve().is_relative_to(root.resolve()):
        raise DataError(f"{root / MANIFEST} names {rel!r}, a file outside the export folder; {fix}")
    if path.is_dir():
        raise DataError(f"{root / MANIFEST} names {rel!r}, a folder, as a part file; {fix}")
    return path


def _read_rows(path: Path, entry: ManifestPart, fmt: RowFormat, fix: str, seen: Seen) -> list[dict]:
    """The rows of one part's file, each checked against ``fmt`` (``RowFormat.check``) and against the rows read
    before (``seen``); sizes are checked from the file's metadata before anything is decompressed and on the
    Arrow columns before any Python object is made (``_check_sizes``, ``_check_lengths``)."""
    import pyarrow.parquet as pq

    from lexprobe.data.files import require_regular
    from lexprobe.provenance import file_sha256

    if not path.exists():
        raise DataError(f"{path} not found: the export lacks a file its manifest names; {fix}")
    require_regular(path, fix)
    digest = file_sha256(path)
    if digest != entry["sha256"]:
        raise DataError(f"{path} changed since it was exported (SHA-256 {digest[:12]}..., the manifest says "
                        f"{entry['sha256'][:12]}...); {fix}")
    try:
        with pq.ParquetFile(path) as parquet:
            if not parquet.schema_arrow.remove_metadata().equals(fmt.schema()):
                raise DataError(f"{path}: its columns are not {fmt.name}'s ({parquet.schema_arrow.names}); {fix}")
            _check_sizes(parquet.metadata, fmt, path, fix)
            table = parquet.read()
    except (OSError, ValueError) as err:  # pyarrow's ArrowInvalid is a ValueError
        raise DataError(f"{path}: not a readable parquet file ({str(err)[:120]}); {fix}") from None
    if table.num_rows != entry["rows"]:
        raise DataError(f"{path} has {table.num_rows} rows, the manifest says {entry['rows']}; {fix}")
    _check_lengths(table, fmt, path, fix)
    rows = table.to_pylist()
    for i, row in enumerate(rows):
        where = f"{path}: row {i}"
        fmt.check(row, where, fix)
        seen.check(row, where, fix)
    return rows


def _leaf_bounds(spec: ColumnType, at: str = "", per_row: int = 1) -> dict[str, int]:
    """The most bytes one row can hold in each leaf column (``a.b`` as parquet names it, lists left out), from the
    declared sizes and list lengths, with room for the encoding's length prefixes and levels."""
    if isinstance(spec, Text):
        return {at: per_row * (spec.max_bytes + 16)}
    if isinstance(spec, Int):
        return {at: per_row * 16}
    if isinstance(spec, Items):
        return _leaf_bounds(spec.of, at, per_row * max(spec.most, 1))
    out: dict[str, int] = {}
    for name, sub in (spec.items() if isinstance(spec, dict) else ()):
        out.update(_leaf_bounds(sub, f"{at}.{name}" if at else name, per_row))
    return out


def _check_sizes(metadata: Any, fmt: RowFormat, path: Path, fix: str) -> None:
    """Refuse, from the file's metadata alone, a column chunk larger uncompressed than its rows may hold
    (``_leaf_bounds``) or compressed beyond ``MAX_COMPRESSION_RATIO``: a small file never decompresses into
    gigabytes (pyarrow has no cap of its own on what a page inflates to)."""
    import re

    bounds = _leaf_bounds(dict(fmt.columns))
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            leaf = re.sub(r"\.list\.(element|item)(?=\.|$)", "", chunk.path_in_schema)
            size, packed = chunk.total_uncompressed_size, max(chunk.total_compressed_size, 1)
            bound = group.num_rows * bounds.get(leaf, 0) + (1 << 20)  # + page headers, a dictionary's overhead
            if size > bound:
                raise DataError(f"{path}: column {leaf} holds {size:,} bytes uncompressed in {group.num_rows:,} "
                                f"row(s), more than {fmt.name} allows (at most {bounds.get(leaf, 0):,} a row); {fix}")
            if size > BOMB_FLOOR and size > MAX_COMPRESSION_RATIO * packed:
                raise DataError(f"{path}: column {leaf} would inflate {packed:,} bytes into {size:,}, more than "
                                f"{MAX_COMPRESSION_RATIO} times (no text of {fmt.benchmark} compresses so well): not "
                                f"read; {fix}")


def _check_lengths(table: Any, fmt: RowFormat, path: Path, fix: str) -> None:
    """Every text and list of ``table`` within its declared size, measured on the Arrow columns (before a Python
    object is made of any value): one ``DataError`` naming the first row over."""
    import numpy as np
    import pyarrow.compute as pc

    def walk(array: Any, spec: ColumnType, at: str, rows: Any) -> None:
        if isinstance(spec, Int):
            return
        if isinstance(spec, (Text, Items)):
            text = isinstance(spec, Text)
            lengths = pc.binary_length(array) if text else pc.list_value_length(array)
            limit = spec.max_bytes if isinstance(spec, Text) else spec.most
            values = pc.fill_null(lengths, 0).to_numpy(zero_copy_only=False)
            hits = np.flatnonzero(values > limit)
            if hits.size:
                row = int(hits[0] if rows is None else rows[hits[0]])
                what = f"{int(values[hits[0]]):,} bytes of text" if text else f"{int(values[hits[0]]):,} items"
                raise DataError(f"{path}: row {row}: {at} holds {what}, more than the {limit:,} {fmt.name} allows; {fix}")
            if isinstance(spec, Items):
                parents = pc.list_parent_indices(array).to_numpy(zero_copy_only=False)
                walk(pc.list_flatten(array), spec.of, f"{at}[]", parents if rows is None else rows[parents])
            return
        for (name, sub), child in zip(spec.items(), array.flatten()):
            walk(child, sub, f"{at}.{name}", rows)

    for name, spec in fmt.columns:
        walk(table.column(name).combine_chunks(), spec, name, None)


def manifest_part(key: dict[str, str], path: Path, root: Path, rows: int, problems: list[dict[str, str]],
                  arrow_bytes: int) -> dict:
    """The manifest's entry for a part written at ``path`` (its SHA-256 taken now)."""
    from lexprobe.provenance import file_sha256

    return {"key": dict(key), "path": path.relative_to(root).as_posix(), "rows": rows, "sha256": file_sha256(path),
            "problems": list(problems), "arrow_bytes": arrow_bytes}


def write_manifest(root: Path, fmt: RowFormat, parts: list[dict], **more: Any) -> Path:
    """The manifest of the export in ``root``: format, benchmark, row format, parts (``manifest_part``), and
    ``more`` (what the export records besides: sources, lexprobe's version)."""
    path = root / MANIFEST
    body = {"format": FORMAT, "benchmark": fmt.benchmark, "rows": fmt.name, "parts": parts, **more}
    from lexprobe.outputs import write_atomic

    return write_atomic(path, json.dumps(body, indent=1, ensure_ascii=False) + "\n")
