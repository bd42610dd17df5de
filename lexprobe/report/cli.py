"""``lexprobe report`` and ``lexprobe compare`` (heavy imports happen only when they run)."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from lexprobe.core.options import add_commands, option
from lexprobe.outputs import INPUT, OUTPUT, OUTPUT_DIR

#: what ``report --out DIR`` writes inside DIR (none of them may be an input)
REPORT_FILES = ("index.html", "tables.md", "tables.tex")  # (and an items page per benchmark, figures/)


# the paths are declared (``option(path=...)``): ``outputs.guard`` checks them all before the command runs
@dataclass(frozen=True)
class Report:
    results: tuple[str, ...] = option((), "result files of `eval` commands, or folders of them (e.g. the --out-dir "
                                          "of `lexprobe run`)", flag="results", nargs="+", metavar="RESULT.json",
                                      path=INPUT, outputs_inside=True)
    out: str = option(None, "directory for index.html, tables.md, tables.tex", required=True, metavar="DIR",
                      path=OUTPUT_DIR, writes=REPORT_FILES)
    overwrite: bool = option(False, "replace the report a --out folder already holds (without it such a folder is "
                                    "refused: an earlier report is never replaced unasked)")


@dataclass(frozen=True)
class Compare:
    a: str = option(None, "result file of the first run", flag="a", metavar="A.json", path=INPUT)
    b: str = option(None, "result file of the second run (same benchmark and items)", flag="b", metavar="B.json",
                    path=INPUT)
    json: str | None = option(None, "also write the comparison to this JSON file", metavar="FILE", path=OUTPUT)


def register(sub) -> None:
    add_commands(sub, {
        "report": (Report, "HTML report, Markdown and LaTeX tables of result files (models side by side)",
                   cmd_report),
        "compare": (Compare, "compare two runs item by item: paired difference, interval and exact test",
                    cmd_compare)})


def cmd_report(args: Report) -> int:
    from lexprobe.report.build import write_report

    refuse_replacing_report(args.out, args.overwrite)
    index = write_report(args.results, args.out)
    print(f"report written to {index}")
    return 0


def refuse_replacing_report(out: str, overwrite: bool) -> None:
    """One ``OutputError`` where ``out`` holds a report already (any of ``REPORT_FILES``) and ``--overwrite`` is not
    given, before any result is read: a second ``report --out report/`` once replaced the README's earlier report
    without a word, as result files no longer can (``evaluate.refuse_replacing``)."""
    from pathlib import Path

    from lexprobe.errors import OutputError

    found = [name for name in REPORT_FILES if (Path(out) / name).exists()]
    if found and not overwrite:
        raise OutputError(f"--out {out} holds a report already ({found[0]}); pass --overwrite to replace it, or "
                          "choose another --out")


def cmd_compare(args: Compare) -> int:
    from lexprobe.report.compare import compare_files, format_comparison

    comparison = compare_files(args.a, args.b)
    for note in comparison["notes"]:
        print(f"note: {note}", file=sys.stderr)
    for note in comparison["warnings"]:
        print(f"warning: the runs differ in more than the model: {note}", file=sys.stderr)
    print(format_comparison(comparison))
    if args.json:
        from lexprobe.reporting import write_json

        write_json(args.json, comparison)
        print(f"comparison written to {args.json}")
    return 0
