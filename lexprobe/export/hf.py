"""``lexprobe export hf BENCHMARK --out DIR``: a Hugging Face dataset folder of the benchmark's items.

One parquet file per part (``<folder>/test.parquet``, the benchmark's ``RowFormat``), the manifest that
lexprobe's readers check (``data/exported.py``), and the dataset card (``card.py``), validated before the
folder is put in place. ``datasets.load_dataset(DIR)`` reads it; ``lexprobe <benchmark> eval --data DIR``
reads it back as the items it came from.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.core.exports import BenchmarkExport, ExportOptions, Selection


def write_export(folder: Path, export: BenchmarkExport, selection: Selection, command: str) -> list[dict]:
    """The parquet files, manifest and card of ``selection`` in ``folder`` (an empty folder); the manifest's parts."""
    from lexprobe import __version__
    from lexprobe.data.exported import manifest_part, write_manifest, write_part
    from lexprobe.export.card import check_card, part_file, write_card

    metadata = {"lexprobe_rows": export.rows.name, **({"canary": selection.canary} if selection.canary else {})}
    parts = []
    for part in selection.parts:
        path = folder / part_file(part.folder)
        size = write_part(path, part.rows, export.rows, metadata)
        parts.append(manifest_part(part.key, path, folder, len(part.rows), part.problems, size))
    write_manifest(folder, export.rows, parts, lexprobe=__version__, canary=selection.canary,
                   sources=[{k: v for k, v in vars(s).items() if v is not None} for s in selection.sources])
    write_card(folder / "README.md", export, selection, parts, command)
    check_card(folder, export.rows.features())
    return parts


def export_hf(export: BenchmarkExport, options: ExportOptions, out: Path, command: str) -> tuple[Selection, list[dict]]:
    """Select the items (as ``eval`` would with these options) and write them to ``out`` (new or empty)."""
    from lexprobe.export.output import check_new, staged

    check_new(out)
    selection = export.select(options)
    with staged(out) as folder:
        parts = write_export(folder, export, selection, command)
    return selection, parts
