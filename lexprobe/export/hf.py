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
    """The parquet files, manifest and card of ``selection`` in ``folder`` (an empty folder); the manifest's parts.
    Every file's name is checked first (``outputs.files_inside``): a part's folder is a name from the data (a
    WSD set is its file's name), and a name such as ``..`` or ``ok`` beside ``OK`` once wrote outside the export
    or over another part (D3)."""
    from lexprobe import __version__
    from lexprobe.data.exported import MANIFEST, manifest_part, write_manifest, write_part
    from lexprobe.export.card import check_card, part_file, write_card
    from lexprobe.outputs import files_inside, require_name

    metadata = {"lexprobe_rows": export.rows.name, **({"canary": selection.canary} if selection.canary else {})}
    for part in selection.parts:  # each key value (a set, a variant) is one name: its folder's
        for field, value in part.key.items():
            require_name(value, f"the export's {field}")
    paths = files_inside(folder, ["README.md", MANIFEST] + [part_file(p.folder) for p in selection.parts],
                         "the export's part file")[2:]
    parts = []
    for part, path in zip(selection.parts, paths):
        size = write_part(path, part.rows, export.rows, metadata)
        parts.append(manifest_part(part.key, path, folder, len(part.rows), part.problems, size))
    write_manifest(folder, export.rows, parts, lexprobe=__version__, canary=selection.canary,
                   sources=[{k: v for k, v in vars(s).items() if v is not None} for s in selection.sources])
    write_card(folder / "README.md", export, selection, parts, command)
    check_card(folder, export.rows.features())
    return parts


def export_hf(export: BenchmarkExport, options: ExportOptions, out: Path, command: str) -> tuple[Selection, list[dict]]:
    """Select the items (as ``eval`` would with these options) and write them to ``out`` (new or empty: a folder
    written whole, ``outputs.whole_folder``)."""
    from lexprobe.outputs import check_new_folder, whole_folder

    check_new_folder(out)
    selection = export.select(options)
    with whole_folder(out) as folder:
        parts = write_export(folder, export, selection, command)
    return selection, parts
