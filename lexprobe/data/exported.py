"""A benchmark's items as parquet files in an exported folder, written and read through one declared row format.

Why: ``lexprobe <benchmark> eval --data DIR`` must read what ``lexprobe export hf BENCHMARK --out DIR`` wrote back
to exactly the items it came from. So each benchmark declares once what a row is (``RowFormat``: columns, types,
the key naming a part); the export writes the parquet schema and the card's ``features`` from it, and readers go
through ``open_export``, which checks every file against it. The manifest (``lexprobe-export.json``) names the
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

MANIFEST = "lexprobe-export.json"
FORMAT = "lexprobe-export/1"

#: a column's type: "string", "int32", "int64", ``[T]`` (a list of T) or ``{"field": T, ...}`` (a struct)
ColumnType = Any


@dataclass(frozen=True)
class RowFormat:
    """What one exported row of a benchmark is: ``name`` (with a version: a change of columns is a new name),
    the columns in order, and the key fields that name a part (``("pos",)``; ``("variant", "pos")``)."""

    name: str
    benchmark: str
    columns: tuple[tuple[str, ColumnType], ...]
    key: tuple[str, ...]

    def schema(self):
        """The pyarrow schema every part's file has."""
        import pyarrow as pa

        return pa.schema([(name, _arrow_type(spec)) for name, spec in self.columns])

    def features(self) -> list[dict]:
        """The columns as a dataset card's ``dataset_info.features`` (the YAML ``datasets`` reads)."""
        return [{"name": name, **_feature(spec)} for name, spec in self.columns]


_SCALARS = ("string", "int32", "int64")


def _arrow_type(spec: ColumnType):
    import pyarrow as pa

    if isinstance(spec, str) and spec in _SCALARS:
        return getattr(pa, spec)()
    if isinstance(spec, list) and len(spec) == 1:
        return pa.list_(_arrow_type(spec[0]))
    if isinstance(spec, dict) and spec:
        return pa.struct([(k, _arrow_type(v)) for k, v in spec.items()])
    raise ValueError(f"unknown column type {spec!r}: use {', '.join(_SCALARS)}, [T] or {{field: T}}")


def _feature(spec: ColumnType) -> dict:
    if isinstance(spec, str) and spec in _SCALARS:
        return {"dtype": spec}
    if isinstance(spec, list) and len(spec) == 1:
        inner = _feature(spec[0])
        return {"list": inner["dtype"] if set(inner) == {"dtype"} else _fields(spec[0])}
    if isinstance(spec, dict) and spec:
        return {"struct": _fields(spec)}
    raise ValueError(f"unknown column type {spec!r}")


def _fields(spec: dict) -> list[dict]:
    return [{"name": k, **_feature(v)} for k, v in spec.items()]


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
    for entry in selected:
        if set(entry["key"]) != set(fmt.key):
            raise DataError(f"{manifest_path}: part {entry['path']} is keyed by {sorted(entry['key'])}, not "
                            f"{list(fmt.key)}; {fix}")
        if wanted is not None and not wanted(entry["key"]):
            continue
        parts.append(Part(dict(entry["key"]), _inside(root, entry["path"], fix), problems=list(entry["problems"])))
        parts[-1].rows = _read_rows(parts[-1].path, entry, fmt, fix)
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


def _read_rows(path: Path, entry: ManifestPart, fmt: RowFormat, fix: str) -> list[dict]:
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
        table = pq.read_table(path)
    except (OSError, ValueError) as err:  # pyarrow's ArrowInvalid is a ValueError
        raise DataError(f"{path}: not a readable parquet file ({str(err)[:120]}); {fix}") from None
    if not table.schema.remove_metadata().equals(fmt.schema()):
        raise DataError(f"{path}: its columns are not {fmt.name}'s ({table.schema.names}); {fix}")
    if table.num_rows != entry["rows"]:
        raise DataError(f"{path} has {table.num_rows} rows, the manifest says {entry['rows']}; {fix}")
    return table.to_pylist()


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
