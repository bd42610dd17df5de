"""``write_report``: tables (Markdown, LaTeX, HTML), figures and failure pages of result files."""

from __future__ import annotations

import datetime as _dt
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from lexprobe.core import contract
from lexprobe.core.registry import get
from lexprobe.core.result_schema import load, looks_like_result, model_name
from lexprobe.errors import DataError
from lexprobe.outputs import private_folder_in, write_atomic
from lexprobe.report.figures import report_figures
from lexprobe.report.html import bench_titles, failure_page, index_page
from lexprobe.report.tables import build_tables, run_record_table
from lexprobe.tables import UNITS, to_latex, to_markdown

log = logging.getLogger(__name__)


def write_report(paths, out_dir: str | Path) -> Path:
    """Write ``index.html``, ``tables.md``, ``tables.tex``, per-benchmark pages and figures; return index.html."""
    from lexprobe import __version__

    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise DataError(f"--out {out_dir} is a file; pass a directory for the report")
    results = [load(p) for p in expand(paths)]  # every input checked before anything is written
    if not results:
        raise DataError("no result files given; pass one or more result JSON files")
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = build_tables(results)
    record = run_record_table(results)
    folder = private_folder_in(out_dir, "figures")
    figures = [Figure(d.benchmark, d.title, d.path, d.kind) for d in report_figures(results, folder)]
    figures += draw_figures(results, folder)
    pages = {}
    texts: dict[str, str] = {}  # file name in out_dir -> its text
    for bench in bench_titles():
        members = [r for r in results if r["benchmark"] == bench and r.get("instances")]
        if members:
            pages[bench] = f"{bench}.html"
            # the items page's rows: what each model chose instead of the gold answer (``contract.failure_rows``)
            texts[pages[bench]] = failure_page(bench, [row for r in members
                                                       for row in contract.failure_rows(get(bench), r)])
    texts["tables.md"] = "\n\n".join([UNITS] + [to_markdown(t) for t in tables + [record]]) + "\n"
    texts["tables.tex"] = (f"% needs \\usepackage{{booktabs}}\n% {UNITS}\n"
                           + "\n\n".join(to_latex(t) for t in tables) + "\n")
    generated = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    texts["index.html"] = index_page(tables, figures, record, results, pages, generated, __version__, out_dir)
    _write(out_dir, texts)
    return out_dir / "index.html"


@dataclass
class Figure:
    """A figure of the report (a PNG file): the report's own (``report.figures``: ``kind`` names it, "forest" the
    one that stands in for the section's tables) or a benchmark's (``Presentation.figures``)."""

    benchmark: str
    title: str
    path: Path
    kind: str = ""


def draw_figures(results: list[dict], folder: Path) -> list[Figure]:
    """Every figure that each result supports; a figure that fails is logged and left out."""
    folder.mkdir(parents=True, exist_ok=True)
    figures: list[Figure] = []
    for i, r in enumerate(results):
        slug = re.sub(r"[^A-Za-z0-9]+", "-", model_name(r)).strip("-")[-40:] or "x"
        try:
            figures += [Figure(r["benchmark"], title, Path(path)) for title, path
                        in contract.figures(get(r["benchmark"]), r, folder, f"{i:02d}-{r['benchmark']}-{slug}")]
        except Exception as err:  # noqa: BLE001 - a missing plot must not cost the report
            log.warning("no figure for %s: %s", r["_path"], err)
    return figures


def _write(out_dir: Path, texts: dict[str, str]) -> None:
    """Every text file of the report, written here and nowhere else (the figures are written by their
    plotting functions), each through ``outputs.write_atomic``: a link already in the folder is replaced,
    never written through (D3)."""
    for name, text in texts.items():
        write_atomic(out_dir / name, text)


def expand(paths) -> list[Path]:
    """Files as given; a directory stands for the result files directly in it (other JSON is skipped)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            found = result_files_in(p)
            if not found:
                raise DataError(f"{p} holds no lexprobe result files; pass result JSON files or their folder")
            out += found
        else:
            out.append(p)
    return out


def result_files_in(folder: Path, since: float | None = None) -> list[Path]:
    import json

    from lexprobe.data.files import require_regular

    found = []
    for path in sorted(folder.glob("*.json")):
        # the regular-file guard every reader uses: a FIFO named x.json once hung `report DIR`, a link
        # to /dev/zero ate the memory (D20)
        require_regular(path, f"remove it from {folder} or pass the result files one by one")
        if since is not None and path.stat().st_mtime < since:
            continue
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):  # deep nesting is not a result either
            continue
        if looks_like_result(obj):
            found.append(path)
    return found


def report_new_results(folder: str | Path, since: float) -> Path | None:
    """The report of the result files written in ``folder`` since ``since`` (``lexprobe run``)."""
    fresh = result_files_in(Path(folder), since)
    return write_report(fresh, Path(folder) / "report") if fresh else None
