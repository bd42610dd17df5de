"""``lexprobe export hf BENCHMARK --out DIR`` and ``lexprobe export lm-eval [BENCHMARK ...] --out DIR``.

Both take the data options of ``eval`` (``--data``, ``--pos``, ``--limit``, ``--seed``), read as ``eval``
reads them, so an export holds the items an ``eval`` with the same options scores.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lexprobe.export.declaration import ExportOptions


def _data_options(parser: argparse.ArgumentParser) -> None:
    from lexprobe.cli_common import non_negative_int, path_arg, positive_int
    from lexprobe.outputs import INPUT

    path_arg(parser, "--data", kind=INPUT, default=None,
             help="the benchmark's data as `eval --data` takes it (WDLMPro: a `wdlmpro build` folder or JSONL file; "
                  "CoDA21: a CoDA21 file or variant name) (default: WDLMPro's full build from WordNet; every CoDA21 "
                  "file in the data directory, `lexprobe data list`)")
    parser.add_argument("--pos", choices=("n", "v", "both"), default="both", help="part of speech")
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="only the items `eval --limit N` reads (WDLMPro: a seeded sample of N groups per POS; "
                             "CoDA21: the first N groups per POS) (default: all)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of WDLMPro's --limit sample")


def register(sub) -> None:
    from lexprobe.cli_common import path_arg
    from lexprobe.data.exported import MANIFEST
    from lexprobe.export.registry import EXPORTS
    from lexprobe.outputs import OUTPUT_DIR

    p = sub.add_parser("export", help="the benchmarks as a Hugging Face dataset folder or as lm-evaluation-harness "
                                      "tasks (docs/interop.md)")
    esub = p.add_subparsers(dest="export_command", metavar="FORMAT")
    esub.required = True
    hf = esub.add_parser("hf", help="a dataset folder `datasets.load_dataset(DIR)` reads: parquet per configuration "
                                    "and a dataset card; `lexprobe BENCHMARK eval --data DIR` reads it back")
    hf.add_argument("benchmark", choices=tuple(EXPORTS), help="the benchmark to export")
    _data_options(hf)
    path_arg(hf, "--out", kind=OUTPUT_DIR, writes=("README.md", MANIFEST), required=True, metavar="DIR",
             help="a new (or empty) folder for the export")
    hf.set_defaults(func=cmd_hf)
    lm = esub.add_parser("lm-eval", help="task YAMLs for `lm_eval --include_path DIR --tasks lexprobe_...`")
    lm.add_argument("benchmarks", nargs="*", metavar="BENCHMARK",  # checked by registry.get (argparse refuses [])
                    help=f"the benchmarks to export: {', '.join(EXPORTS)} (default: all)")
    _data_options(lm)
    path_arg(lm, "--out", kind=OUTPUT_DIR, writes=("README.md", "lexprobe_tasks.py"), required=True, metavar="DIR",
             help="a new (or empty) folder for the tasks")
    lm.set_defaults(func=cmd_lm_eval)


def _options(args) -> ExportOptions:
    return ExportOptions(data=args.data, pos=args.pos, limit=args.limit, seed=args.seed)


def _command(args, benchmarks: list[str]) -> str:
    """The command as the card records it (``--out`` and ``--data`` by name only: no local paths in a card)."""
    given = [f"--data {Path(args.data).name}" if args.data else "", f"--pos {args.pos}" if args.pos != "both" else "",
             f"--limit {args.limit} --seed {args.seed}" if args.limit else ""]
    return " ".join(["lexprobe export", args.export_command, *benchmarks, *filter(None, given), "--out DIR"])


def cmd_hf(args) -> int:
    from lexprobe.export.hf import export_hf
    from lexprobe.export.registry import get

    out = Path(args.out)
    _, parts = export_hf(get(args.benchmark), _options(args), out, _command(args, [args.benchmark]))
    for part in parts:
        print(f"{part['path']}: {part['rows']:,} rows" + (f", {len(part['problems'])} malformed source groups listed"
                                                          if part["problems"] else ""))
    print(f"exported to {out} (dataset card: {out / 'README.md'})")
    return 0


def cmd_lm_eval(args) -> int:
    from lexprobe.errors import LexprobeError
    from lexprobe.export.lm_eval import export_lm_eval
    from lexprobe.export.registry import EXPORTS, get

    names = list(dict.fromkeys(get(n).benchmark for n in args.benchmarks)) or list(EXPORTS)
    if args.data and len(names) != 1:
        raise LexprobeError("--data names one benchmark's data: name that benchmark (`lexprobe export lm-eval "
                            "wdlmpro --data ...`)")
    out = Path(args.out)
    tasks = export_lm_eval([(get(n), _options(args)) for n in names], out, _command(args, list(args.benchmarks)),
                           skip_missing=not args.benchmarks)
    groups = list(dict.fromkeys(t.group for t in tasks))
    print(f"{len(tasks)} tasks in {len(groups)} groups written to {out}; run them with\n"
          f"  lm_eval --model hf --model_args pretrained=MODEL --include_path {out} --tasks {','.join(groups)}")
    return 0
