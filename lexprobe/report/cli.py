"""``lexprobe report`` and ``lexprobe compare`` (heavy imports happen only when they run)."""

from __future__ import annotations

import sys

#: what ``report --out DIR`` writes inside DIR (none of them may be an input)
REPORT_FILES = ("index.html", "tables.md", "tables.tex")  # (and an items page per benchmark, figures/)


def register(sub) -> None:
    from lexprobe.cli_common import path_arg
    from lexprobe.outputs import INPUT, OUTPUT, OUTPUT_DIR

    # the paths are declared (``path_arg``): ``outputs.guard`` checks them all before the command runs
    p = sub.add_parser("report", help="HTML report, Markdown and LaTeX tables of result files (models side by side)")
    path_arg(p, "results", kind=INPUT, nargs="+", metavar="RESULT.json", outputs_inside=True, help="result files of `eval` commands, or folders of them (e.g. the --out-dir of `lexprobe run`)")
    path_arg(p, "--out", kind=OUTPUT_DIR, writes=REPORT_FILES, required=True, metavar="DIR",
             help="directory for index.html, tables.md, tables.tex")
    p.set_defaults(func=cmd_report)

    c = sub.add_parser("compare", help="compare two runs item by item: paired difference, interval and exact test")
    path_arg(c, "a", kind=INPUT, metavar="A.json", help="result file of the first run")
    path_arg(c, "b", kind=INPUT, metavar="B.json", help="result file of the second run (same benchmark and items)")
    path_arg(c, "--json", kind=OUTPUT, metavar="FILE", help="also write the comparison to this JSON file")
    c.set_defaults(func=cmd_compare)


def cmd_report(args) -> int:
    from lexprobe.report.build import write_report

    index = write_report(args.results, args.out)
    print(f"report written to {index}")
    return 0


def cmd_compare(args) -> int:
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
