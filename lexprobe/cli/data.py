"""``lexprobe data list|fetch|import|verify``: get the datasets the benchmarks read."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from lexprobe.core.options import add_command_group, option
from lexprobe.errors import DataError


@dataclass(frozen=True)
class List:
    json: bool = option(False, "print JSON instead of a table")


@dataclass(frozen=True)
class Fetch:
    names: tuple[str, ...] = option((), "datasets or groups (coda21, pdep); see `data list`", flag="names",
                                    nargs="*", metavar="NAME")
    all: bool = option(False, "every dataset that can be downloaded")
    force: bool = option(False, "download again even if present")
    no_progress: bool = option(False, "no progress bar")


@dataclass(frozen=True)
class Import:
    name: str = option(None, "dataset or group (e.g. semcor, coda21, ontonotes)", flag="name", metavar="NAME")
    paths: tuple[str, ...] = option((), "file(s) or folder of your copy", flag="paths", nargs="+", metavar="PATH")


@dataclass(frozen=True)
class Verify:
    names: tuple[str, ...] = option((), flag="names", nargs="*", metavar="NAME")


def register(sub) -> None:
    add_command_group(sub, "data", "list, fetch, import and verify the datasets (WordNet, CoDA21, SemCor, STREUSLE, "
                                   "PDEP, OntoNotes, WSD)", {
        "list": (List, "every dataset: version, upstream, licence, size, present/verified", cmd_list),
        "fetch": (Fetch, "download datasets (pinned URLs, SHA-256 verified, resumable)", cmd_fetch),
        "import": (Import, "validate a copy you have and put it in the data directory", cmd_import),
        "verify": (Verify, "re-check the checksums of every dataset present (or of NAME...)", cmd_verify),
    }, description="Datasets live in the data directory ($LEXPROBE_DATA, default ~/.cache/lexprobe/data). "
                   "LEXPROBE_DATA_MIRROR=URL fetches https://HOST/PATH from URL/HOST/PATH instead.")


def _size(n: float | None) -> str:
    if n is None:
        return "?"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return "?"  # pragma: no cover


def _status_text(info: dict, ds) -> str:
    if not info["present"]:
        return f"missing: {ds.fetch_command}"
    if info["source"] == "system installation":
        return f"present ({info['path']})"
    if info.get("changed"):
        return f"changed since verified {info['verified']}: lexprobe data verify {ds.name}"
    if info["verified"]:
        return f"verified {info['verified']}"
    return f"present, not verified: lexprobe data verify {ds.name}"


def cmd_list(args: List) -> int:
    from lexprobe.data import store
    from lexprobe.data.registry import DATASETS, GROUPS, data_dir

    rows = []
    registry_root = data_dir()
    for ds in DATASETS.values():
        info = store.status(ds.name)
        if ds.content_sha256:
            pin = f"content sha256 {ds.content_sha256[:12]}… (NAF documents)"
        elif ds.method == "import-only":
            pin = "checked by format on import"
        elif any(f.sha256 for f in ds.files) and not ds.pinned_on_first_fetch:
            pin = "sha256 " + ", ".join((f.sha256 or "?")[:12] + "…" for f in ds.files)
        elif ds.pinned_on_first_fetch and info["pinned_on_first_fetch"]:
            pin = "pinned on first fetch (recorded here)"
        else:
            pin = "pinned on first fetch" + (" (partly pinned in registry)" if any(f.sha256 for f in ds.files) else "")
        size = ds.size
        if size is None and info["present"]:  # not known upstream: what is here
            here = [registry_root / rel for rel in (store.read_state(ds.name).get("files") or {})]
            size = sum(p.stat().st_size for p in here if p.is_file()) or None
        rows.append({**info, "version": ds.version, "title": ds.title, "upstream": ds.upstream, "pin": ds.pin,
                     "upstream_path": ds.upstream_path, "licence": ds.licence, "size": size,
                     "format": ds.reader_format, "checksum": pin, "method": ds.method,
                     "urls": [f.url for f in ds.files if f.url]})
    if args.json:
        print(json.dumps({"data_dir": str(data_dir()), "datasets": rows}, indent=1))
        return 0
    print(f"data directory: {data_dir()}  (LEXPROBE_DATA to move it)")
    width = max(len(r["name"]) for r in rows)
    for r, ds in zip(rows, DATASETS.values()):
        print(f"\n{r['name']:<{width}}  {r['version']:<8} {_size(r['size']):>9}  {_status_text(r, ds)}")
        print(f"{'':<{width}}  {r['title']}")
        print(f"{'':<{width}}  upstream: {r['upstream']} @ {r['pin']} {r['upstream_path']}")
        print(f"{'':<{width}}  licence: {r['licence']}")
        print(f"{'':<{width}}  checksum: {r['checksum']}; format: {r['format']}")
    print("\ngroups: " + "; ".join(f"{g} = {' '.join(m)}" for g, m in GROUPS.items()))
    return 0


def cmd_fetch(args: Fetch) -> int:
    from lexprobe.data import store
    from lexprobe.data.registry import DATASETS, expand_names

    if args.all == bool(args.names):
        raise DataError("give dataset names or --all (see `lexprobe data list`)")
    if args.all:
        names = [n for n, ds in DATASETS.items() if ds.method != "import-only"]
    else:
        names = expand_names(args.names)
        for n in names:
            if DATASETS[n].method == "import-only":
                raise DataError(f"{n} cannot be downloaded ({DATASETS[n].licence}); run `lexprobe data import {n} PATH`")
    failures = store.fetch_many(names, progress=not args.no_progress, force=args.force)
    if failures:
        for line in failures[:-1]:
            print(f"lexprobe: error: {line}", file=sys.stderr)
        raise DataError(failures[-1])
    return 0


def cmd_import(args: Import) -> int:
    from lexprobe.data import store
    from lexprobe.data.registry import expand_names

    expand_names([args.name])  # unknown names first
    store.import_dataset(args.name, [Path(p) for p in args.paths])
    return 0


def cmd_verify(args: Verify) -> int:
    from lexprobe.data import store
    from lexprobe.data.registry import DATASETS, expand_names

    names = expand_names(args.names) if args.names else list(DATASETS)
    bad: list[str] = []
    checked = 0
    for name in names:
        state, problems = store.verify(name)
        if state == "missing":
            if args.names:
                print(f"{name}: not present ({DATASETS[name].fetch_command})")
            continue
        checked += 1
        if state == "system":
            print(f"{name}: system installation at {store.locate(name)} (not checksummed)")
        elif problems:
            bad.extend(f"{name}: {p}" for p in problems)
            print(f"{name}: FAILED")
        else:
            print(f"{name}: ok")
    if bad:
        for line in bad[:-1]:
            print(f"lexprobe: error: {line}", file=sys.stderr)
        raise DataError(bad[-1] + "; fetch or import it again (`lexprobe data fetch NAME --force`)")
    if not checked:
        print("nothing to verify: no dataset is present (see `lexprobe data list`)")
    return 0


