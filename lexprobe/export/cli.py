"""``lexprobe export hf BENCHMARK --out DIR`` and ``lexprobe export lm-eval [BENCHMARK ...] --out DIR``.

Both take the data options of ``eval`` (``--data``, ``--pos``, ``--limit``, ``--seed``), read as ``eval``
reads them, so an export holds the items an ``eval`` with the same options scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lexprobe.core.cli_common import non_negative_int, positive_int
from lexprobe.core.exports import ExportOptions
from lexprobe.core.options import add_command_group, option
from lexprobe.data.exported import MANIFEST
from lexprobe.data.wsd import read_beside
from lexprobe.errors import LexprobeError
from lexprobe.export.registry import exportable, get
from lexprobe.outputs import INPUT, OUTPUT_DIR


@dataclass(frozen=True)
class DataOptions:
    """The data options of both exports (``ExportOptions``), declared as ``eval`` declares them."""

    data: str | None = option(None, "the benchmark's data as `eval --data` takes it (WDLMPro: a `wdlmpro build` "
                                    "folder or JSONL file; CoDA21: a CoDA21 file or variant name) (default: "
                                    "WDLMPro's full build from WordNet; every CoDA21 file in the data directory, "
                                    "`lexprobe data list`)", path=INPUT, reads=read_beside)
    # the values are the benchmark's own ``eval --pos`` (declared once, in its Config: ``ExportOptions.pos_of``)
    pos: tuple[str, ...] | None = option(None, "parts of speech as the benchmark's `eval --pos` takes them "
                                               "(WDLMPro, CoDA21: n, v or both; WSD: any of N V A R) (default: all)",
                                         nargs="+", metavar="POS")
    limit: int | None = option(None, "only the items `eval --limit N` reads (WDLMPro: a seeded sample of N groups "
                                     "per POS; CoDA21: the first N groups per POS) (default: all)", type=positive_int)
    seed: int = option(0, "seed of WDLMPro's --limit sample", type=non_negative_int)

    def options(self) -> ExportOptions:
        return ExportOptions(data=self.data, pos=self.pos, limit=self.limit, seed=self.seed)

    def check_pos(self, benchmarks: list[str]) -> None:
        """``--pos`` as each benchmark's ``eval --pos`` takes it, before any data is read (one line otherwise)."""
        from lexprobe.core.registry import get as benchmark

        for name in benchmarks:
            try:
                self.options().pos_of(benchmark(name).Config, name)
            except LexprobeError as err:
                if len(benchmarks) == 1:
                    raise
                raise LexprobeError(f"{err} (each benchmark takes its own `eval --pos`: name the benchmarks to "
                                    "export)") from None

    def command(self, export: str, benchmarks: list[str]) -> str:
        """The command as the card records it (``--out`` and ``--data`` by name only: no local paths in a card)."""
        given = [f"--data {Path(self.data).name}" if self.data else "",
                 f"--pos {' '.join(self.pos)}" if self.pos else "",
                 f"--limit {self.limit} --seed {self.seed}" if self.limit else ""]
        return " ".join(["lexprobe export", export, *benchmarks, *filter(None, given), "--out DIR"])


@dataclass(frozen=True)
class Hf(DataOptions):
    benchmark: str = option(None, "the benchmark to export", flag="benchmark", choices=exportable)
    out: str = option(None, "a new (or empty) folder for the export", required=True, metavar="DIR", path=OUTPUT_DIR,
                      writes=("README.md", MANIFEST), new=True)


@dataclass(frozen=True)
class LmEval(DataOptions):
    # no choices: argparse would refuse none given (checked by ``registry.get``)
    benchmarks: tuple[str, ...] = option((), "the benchmarks to export (default: all that can be)",
                                         flag="benchmarks", nargs="*", metavar="BENCHMARK")
    out: str = option(None, "a new (or empty) folder for the tasks", required=True, metavar="DIR", path=OUTPUT_DIR,
                      writes=("README.md", "lexprobe_tasks.py"), new=True)


def register(sub) -> None:
    add_command_group(sub, "export", "the benchmarks as a Hugging Face dataset folder or as lm-evaluation-harness "
                                     "tasks (docs/interop.md)", {
        "hf": (Hf, "a dataset folder `datasets.load_dataset(DIR)` reads: parquet per configuration and a dataset "
                   "card; `lexprobe BENCHMARK eval --data DIR` reads it back", cmd_hf),
        "lm-eval": (LmEval, "task YAMLs for `lm_eval --include_path DIR --tasks lexprobe_...`", cmd_lm_eval),
    }, metavar="FORMAT")


def cmd_hf(args: Hf) -> int:
    from lexprobe.export.hf import export_hf

    out = Path(args.out)
    args.check_pos([get(args.benchmark).benchmark])
    _, parts = export_hf(get(args.benchmark), args.options(), out, args.command("hf", [args.benchmark]))
    for part in parts:
        print(f"{part['path']}: {part['rows']:,} rows" + (f", {len(part['problems'])} malformed source groups listed"
                                                          if part["problems"] else ""))
    print(f"exported to {out} (dataset card: {out / 'README.md'})")
    return 0


def cmd_lm_eval(args: LmEval) -> int:
    from lexprobe.export.lm_eval import export_lm_eval

    names = list(dict.fromkeys(get(n).benchmark for n in args.benchmarks)) or exportable()
    if args.data and len(names) != 1:
        raise LexprobeError("--data names one benchmark's data: name that benchmark (`lexprobe export lm-eval "
                            "wdlmpro --data ...`)")
    args.check_pos(names)
    out = Path(args.out)
    tasks = export_lm_eval([(get(n), args.options()) for n in names], out,
                           args.command("lm-eval", list(args.benchmarks)), skip_missing=not args.benchmarks)
    groups = list(dict.fromkeys(t.group for t in tasks))
    print(f"{len(tasks)} tasks in {len(groups)} groups written to {out}; run them with\n"
          f"  lm_eval --model hf --model_args pretrained=MODEL --include_path {out} --tasks {','.join(groups)}")
    return 0
