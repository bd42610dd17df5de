"""The dataset card of an export (``README.md``): a YAML header ``datasets.load_dataset`` and the Hub read, then prose.

The header holds the configurations (``configs``: name, parquet files of the ``test`` split, the default),
their features and row counts (``dataset_info``, from the benchmark's ``RowFormat``), licence, language,
task categories, size, and lexprobe's own record (``lexprobe``: benchmark, row format, sources with their
pins and SHA-256). It is written with huggingface_hub's ``DatasetCard``/``DatasetCardData`` and read back
through the same classes by ``check_card``, which checks what the Hub would refuse without asking the Hub
(its own validator is a network call): the values of the controlled fields, every configuration's files,
and that the features are the export's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lexprobe.core.exports import BenchmarkExport, Selection
from lexprobe.errors import DataError

SPLIT = "test"
#: the Hub's size categories (``datasets/utils/resources/size_categories.json``)
SIZE_CATEGORIES = ("n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "10M<n<100M", "100M<n<1B")
#: Hub licence ids the exports use: "other" needs ``license_name`` and ``license_link`` beside it
#: (https://huggingface.co/docs/hub/repositories-licenses)
LICENCES = ("other", "unknown", "mit", "apache-2.0", "cc-by-4.0", "cc-by-sa-4.0")
#: Hub task categories the exports use (the Hub's list: huggingface.js packages/tasks/src/pipelines.ts)
TASK_CATEGORIES = ("multiple-choice", "text-classification", "token-classification", "fill-mask")


def size_category(n: int) -> str:
    bound = 1000
    for name in SIZE_CATEGORIES:
        if n < bound:
            return name
        bound *= 10
    return SIZE_CATEGORIES[-1]


def part_file(folder: str) -> str:
    """Where a part's rows are, inside the export."""
    return f"{folder}/{SPLIT}.parquet"


def card_data(export: BenchmarkExport, selection: Selection, parts: list[dict]) -> dict[str, Any]:
    """The header's fields (``parts``: the manifest's entries, for the row counts and SHA-256)."""
    rows = {Path(p["path"]).parent.as_posix(): p["rows"] for p in parts}
    size = {Path(p["path"]).parent.as_posix(): p["arrow_bytes"] for p in parts}
    licensed = [s for s in selection.sources if s.hub_licence]
    ids = list(dict.fromkeys(s.hub_licence for s in licensed))
    header: dict[str, Any] = {"pretty_name": export.pretty_name, "language": list(export.languages),
                              "license": ids[0] if len(ids) == 1 else ids}
    other = next((s for s in licensed if s.hub_licence == "other"), None)
    if other is not None:
        header["license_name"], header["license_link"] = other.licence_name, other.licence_link
    header.update({
        "task_categories": list(export.task_categories),
        "size_categories": [size_category(sum(rows.values()))],
        "annotations_creators": ["expert-generated"],
        "configs": [{"config_name": c.name, **({"default": True} if c.default else {}),
                     "data_files": [{"split": SPLIT, "path": [part_file(f) for f in c.folders]}]}
                    for c in selection.configurations],
        "dataset_info": [{"config_name": c.name, "features": export.rows.features(),
                          "splits": [{"name": SPLIT, "num_bytes": sum(size[f] for f in c.folders),
                                      "num_examples": sum(rows[f] for f in c.folders)}]}
                         for c in selection.configurations],
        "lexprobe": {"benchmark": export.benchmark, "rows": export.rows.name,
                     "sources": [{k: v for k, v in vars(s).items() if v is not None} for s in selection.sources]},
    })
    return header


def _table(headers: list[str], rows: list[list[str]]) -> str:
    """A Markdown table of cells already Markdown (``md_text``, ``md_code``): a ``|`` in a cell is escaped, which
    GitHub's tables honour inside code spans too."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def card_text(export: BenchmarkExport, selection: Selection, parts: list[dict], command: str) -> str:
    """The card's prose: what the rows are, configurations, fields, sources and licences, how it was built,
    how to load it, the canary, the citation. Every text from the data (names, the command, a source's name and
    licence, the canary) goes in through ``md_text`` or ``md_code``: a file named ``a\\n## Licence: MIT\\nb`` once
    put a heading into the card (D18)."""
    import json

    from lexprobe import __version__
    from lexprobe.tables import md_code, md_text

    rows = {Path(p["path"]).parent.as_posix(): p["rows"] for p in parts}
    configs = _table(["configuration", "files", "rows"], [
        [md_code(c.name) + (" (default)" if c.default else ""), ", ".join(md_code(part_file(f)) for f in c.folders),
         f"{sum(rows[f] for f in c.folders):,}"] for c in selection.configurations])
    fields = _table(["field", "type"], [[md_code(f["name"]), f.get("dtype") or ("list" if "list" in f else "struct")]
                                        for f in export.rows.features()])
    sources = _table(["source", "upstream", "pin", "SHA-256", "licence", "redistributable"], [
        [md_text(s.name), md_text(s.upstream), md_code(s.pin), md_code(s.sha256) if s.sha256 else "-",
         md_text(s.licence), "yes" if s.redistributable else "**no**"] for s in selection.sources])
    keep_private = [f"{md_text(s.name)}: {md_text(s.licence)}" for s in selection.sources if not s.redistributable]
    warning = (f"\n**Do not redistribute this folder** (nor push it to the Hub as a public dataset); it is for "
               f"evaluation. {'; '.join(keep_private)}.\n" if keep_private else "")
    canary = (f"\n## Canary\n\nThe source files carry this canary string, kept here and in every parquet file's "
              f"metadata (`canary`): {md_code(selection.canary)}\n" if selection.canary else "")
    default = next(c.name for c in selection.configurations if c.default)
    other = next(c.name for c in selection.configurations if not c.default) if len(selection.configurations) > 1 \
        else default
    return f"""
# {export.pretty_name} (exported by lexprobe)

{export.summary}
{warning}
## Configurations

Each configuration has one split, `{SPLIT}`.

{configs}

## Fields

{fields}

The parquet files follow the row format `{export.rows.name}`; `lexprobe-export.json` lists every file with its
row count and SHA-256 (lexprobe refuses a file that changed) and the source's groups that could not be used.

## Sources and licences

{sources}

## How it was built

{selection.built}

Exported with lexprobe {__version__}: {md_code(command)}

## Loading

```python
import datasets
rows = datasets.load_dataset("PATH/TO/THIS/FOLDER", split="{SPLIT}")             # configuration {json.dumps(default)}
rows = datasets.load_dataset("PATH/TO/THIS/FOLDER", {json.dumps(other)}, split="{SPLIT}")
```

lexprobe reads the folder back as the items it was exported from:
`lexprobe {export.benchmark} eval --data PATH/TO/THIS/FOLDER --model MODEL --out result.json`
gives the result it gives on the original data (same items, same metrics).
{canary}
## Citation

```bibtex
{export.citation}
```
"""


def write_card(path: Path, export: BenchmarkExport, selection: Selection, parts: list[dict], command: str) -> Path:
    from huggingface_hub import DatasetCard, DatasetCardData

    data = DatasetCardData(**card_data(export, selection, parts))
    card = DatasetCard(f"---\n{data.to_yaml()}\n---\n{card_text(export, selection, parts, command)}")
    card.save(path)
    return path


def check_card(folder: Path, features: list[dict] | None = None) -> dict[str, Any]:
    """The card's header, read back through huggingface_hub; one ``DataError`` naming what the Hub or
    ``datasets`` would refuse: a licence, task or size category outside the Hub's values, ``other`` without its
    name and link, no or several default configurations, a configuration file that is not in the folder, or
    (``features`` given) other features than the export's rows."""
    from huggingface_hub import DatasetCard

    path = folder / "README.md"
    fix = "export the folder again"
    try:
        header = DatasetCard.load(path).data.to_dict()
    except (ValueError, OSError) as err:  # a header that is not YAML or not a mapping
        raise DataError(f"{path}: the card's header cannot be read ({err}); {fix}") from None
    wrong = []
    licences = header.get("license") if isinstance(header.get("license"), list) else [header.get("license")]
    wrong += [f"license {x!r}" for x in licences if x not in LICENCES]
    if "other" in licences and not (header.get("license_name") and header.get("license_link")):
        wrong.append("license other without license_name and license_link")
    wrong += [f"task category {x!r}" for x in header.get("task_categories") or [None] if x not in TASK_CATEGORIES]
    wrong += [f"size category {x!r}" for x in header.get("size_categories") or [None] if x not in SIZE_CATEGORIES]
    configs = header.get("configs") or []
    if sum(bool(c.get("default")) for c in configs) != 1:
        wrong.append("not exactly one default configuration")
    for c in configs:
        for files in c.get("data_files") or [{}]:
            missing = [p for p in files.get("path") or [] if not (folder / p).is_file()]
            if files.get("split") != SPLIT or not files.get("path") or missing:
                wrong.append(f"configuration {c.get('config_name')!r}: files {missing or files}")
    infos = {i.get("config_name"): i for i in header.get("dataset_info") or []}
    if set(infos) != {c.get("config_name") for c in configs}:
        wrong.append("dataset_info does not name every configuration")
    if features is not None:
        wrong += [f"features of {name!r}" for name, info in infos.items() if info.get("features") != features]
    if wrong:
        raise DataError(f"{path}: the card's header is not valid ({'; '.join(wrong[:3])}); {fix}")
    return header
