"""``lexprobe run``: the main job: every benchmark on the embedded default model.

Each benchmark runs a sample sized to finish in minutes on two CPU cores; its
result file and table land in ``--out-dir``. Missing datasets are fetched first
(``lexprobe data fetch``); without a network the run still completes on what is
at hand: CoDA21 on a small set built from WordNet, sense ranking on the SemCor
sample shipped in the package, and the closing notice says which parts ran on
samples and how to get the full data. A benchmark that fails is reported and the
others still run, so one missing data file loses nothing else.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import time

from lexprobe.cli_common import positive_int
from lexprobe.errors import LexprobeError
from lexprobe.model_names import DEFAULT_MODEL
from lexprobe.outputs import check_not_inputs, check_output_dir
from lexprobe.reporting import write_json

BENCHMARKS = ("wdlmpro", "coda21", "senserank")
#: datasets each benchmark's part of the run reads (fetched when missing)
NEEDS = {
    "wdlmpro": ("wordnet",),
    "coda21": ("wordnet", "coda21-clean-easy", "coda21-clean-hard"),
    "senserank": ("semcor",),
}


def register(sub) -> None:
    p = sub.add_parser("run", help="run every benchmark on the embedded default model (a quick sample)")
    p.add_argument("--model", default=DEFAULT_MODEL, help="model to evaluate")
    p.add_argument("--out-dir", default="results", help="folder for result files")
    p.add_argument("--only", nargs="+", choices=BENCHMARKS, help="run only these benchmarks (default: all)")
    p.add_argument("--sample", type=positive_int,
                   help="override each benchmark's default sample size (groups/queries; default: each benchmark's)")
    p.add_argument("--no-fetch", action="store_true",
                   help="do not download missing datasets; run on what is present and the bundled samples")
    p.set_defaults(func=cmd_run)


def cmd_run(args) -> int:
    check_not_inputs({"--out-dir": args.out_dir}, {"--model": args.model})
    out_dir = check_output_dir(args.out_dir)  # before any work: nothing computed is lost to a bad folder
    summary, failed, samples = {}, [], {}
    run_started = time.time() - 1
    chosen = args.only or BENCHMARKS
    _prepare_data(chosen, fetch=not args.no_fetch)
    for name in chosen:
        try:
            module = importlib.import_module(f"lexprobe.benchmarks.{name}.cli")
        except ModuleNotFoundError:
            continue
        print(f"\n=== {name} ===", flush=True)
        started = time.time()
        try:
            kwargs = {}
            if args.sample is not None and "sample" in inspect.signature(module.run_default).parameters:
                kwargs["sample"] = args.sample
            result = module.run_default(out_dir, args.model, **kwargs)
        except LexprobeError as err:
            print(f"lexprobe: {name} skipped: {err}", file=sys.stderr)
            failed.append(name)
            continue
        summary[name] = {"seconds": round(time.time() - started, 1), "metrics": result.get("metrics")}
        if result.get("sample_data"):
            samples[name] = result["sample_data"]
            summary[name]["sample_data"] = result["sample_data"]
    write_json(out_dir / "summary.json", {"model": args.model, "benchmarks": summary, "failed": failed,
                                          "ran_on_samples": samples})
    if samples:
        print("\nRan on sample data, not the papers' datasets:")
        for name, note in samples.items():
            print(f"  {name}: {note['what']}; for the full data run `{note['get']}`")
    print(f"\nsummary written to {out_dir / 'summary.json'}")
    try:
        from lexprobe.report.build import report_new_results

        index = report_new_results(out_dir, since=run_started)
        if index:
            print(f"report written to {index}")
    except LexprobeError as err:
        print(f"lexprobe: no report: {err}", file=sys.stderr)
    return 1 if failed else 0


def _prepare_data(benchmarks, fetch: bool) -> None:
    """Fetch the datasets the chosen benchmarks read, when missing; failures are notices, not errors."""
    from lexprobe.data.store import ensure

    needed = list(dict.fromkeys(d for b in benchmarks for d in NEEDS.get(b, ())))
    ensure(needed, allow_fetch=fetch, say=lambda line: print(line, file=sys.stderr, flush=True))
