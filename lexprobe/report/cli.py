"""``lexprobe report`` and ``lexprobe compare`` (heavy imports happen only when they run)."""

from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("report", help="HTML report, Markdown and LaTeX tables of result files (models side by side)")
    p.add_argument("results", nargs="+", metavar="RESULT.json", help="result files of `eval` commands, or folders of them (e.g. the --out-dir of `lexprobe run`)")
    p.add_argument("--out", required=True, metavar="DIR", help="directory for index.html, tables.md, tables.tex")
    p.set_defaults(func=cmd_report)

    c = sub.add_parser("compare", help="compare two runs item by item: paired difference, interval and exact test")
    c.add_argument("a", metavar="A.json", help="result file of the first run")
    c.add_argument("b", metavar="B.json", help="result file of the second run (same benchmark and items)")
    c.add_argument("--json", metavar="FILE", help="also write the comparison to this JSON file")
    c.set_defaults(func=cmd_compare)


def cmd_report(args) -> int:
    from lexprobe.outputs import check_not_inputs
    from lexprobe.report.build import write_report

    check_not_inputs({"--out": args.out}, {"RESULT": args.results}, writes={"--out": ("index.html", "tables.md", "tables.tex")})
    index = write_report(args.results, args.out)
    print(f"report written to {index}")
    return 0


def cmd_compare(args) -> int:
    from lexprobe.outputs import check_not_inputs
    from lexprobe.report.compare import compare_files, format_comparison

    check_not_inputs({"--json": args.json}, {"A": args.a, "B": args.b})
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
