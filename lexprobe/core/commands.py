"""``lexprobe <benchmark> eval`` for every registered benchmark, derived from its ``Config``.

The options are the config's fields (``core.options``), the model's (``cli_common``),
``--out`` and ``--no-instances``; the command loads the items (data errors before the slow
model load), the scorer (the benchmark's preferred kind unless ``--kind``), runs
``core.evaluate.evaluate`` and prints the benchmark's table and the run's counts.
"""

from __future__ import annotations

import argparse
from typing import Any


def register_benchmark(sub: Any, bench: Any) -> None:
    """The benchmark's command (and its aliases), its ``eval`` and its other commands."""
    from lexprobe.core.cli_common import add_model_args, add_overwrite_arg, path_arg
    from lexprobe.core.options import add_options
    from lexprobe.outputs import OUTPUT

    meta = bench.meta
    p = sub.add_parser(meta.name, help=meta.help, aliases=list(meta.aliases))
    bsub = p.add_subparsers(dest=f"{meta.name}_command", metavar="COMMAND")
    bsub.required = True
    e = bsub.add_parser("eval", help=f"evaluate a model on {meta.title}")
    add_model_args(e, seed=False)
    add_options(e, bench.Config)
    served_by_default(e, bench)
    path_arg(e, "--out", kind=OUTPUT, required=True, help="result JSON file (required)")
    e.add_argument("--no-instances", action="store_true", help="leave per-instance records out of the result file")
    add_overwrite_arg(e)
    e.add_argument("--estimate", action="store_true",
                   help="print how long the run would take here (data and model loaded, a few seconds of items "
                        "scored) and the --limit that fits about 5 minutes, then stop; the items scored are kept "
                        "in the resume log beside --out, so the run itself resumes them")
    e.set_defaults(func=lambda args: cmd_eval(bench, args))
    if bench.commands is not None:
        bench.commands(bsub)


def served_by_default(parser: argparse.ArgumentParser, bench: Any) -> None:
    """``--method`` not given: the first of the benchmark's methods the model serves (``cmd_eval``), said in its
    help; the config's own default stands for Python callers and where the model is not known before it loads."""
    if len(bench.methods) < 2:
        return
    for action in parser._actions:
        if action.dest == "method":
            action.default = None
            action.help = (f"{action.help} (default: the first of {', '.join(bench.methods)} that the model serves; "
                           f"{next(iter(bench.methods))} for a served model)")


def cmd_eval(bench: Any, args: argparse.Namespace) -> int:
    """The run, watched from here (``estimate``: loading counts): a run expected to take minutes says so in one
    line with the --limit that fits about 5 minutes, and ``--estimate`` stops once that is known."""
    from lexprobe import estimate

    try:
        with estimate.watching(estimate.Watch(stop=args.estimate)):
            return _checked_eval(bench, args)
    except estimate.EstimateReady as ready:
        print(ready.estimate.line().removeprefix("lexprobe: "))
        return 0


def _checked_eval(bench: Any, args: argparse.Namespace) -> int:
    from dataclasses import replace

    from lexprobe.core.cli_common import check_model_args, guarded
    from lexprobe.core.contract import prefers, served_method
    from lexprobe.core.evaluate import check_paths, companions, prepare, refuse_replacing
    from lexprobe.core.options import config_from_args, field_named
    from lexprobe.outputs import output_lock

    given = getattr(args, "method", "") is not None
    if not given:  # the declared default for the checks; the model's own below
        declared = field_named(bench.Config, "method")
        args.method = declared.default if declared is not None else None
    prepared = prepare(bench, config_from_args(bench.Config, args, checked=False), items_given=True)  # checked once
    config = prepared.config
    model = check_model_args(args, prefer=prefers(bench, config.method), seed=getattr(config, "seed", 0))  # once
    if not given:
        method = served_method(bench, model.serves)
        if method is not None and method != config.method:
            args.method = method
            prepared = prepare(bench, replace(config, method=method), items_given=True)
            config = prepared.config
            args.prepared_model = replace(model, options={**model.options, "prefer": prefers(bench, method)})
    config = bench.items.resolve(config)
    # --template too; the inputs the command's declared-path guard checked are compared with the outputs only
    out = check_paths(bench, args.out, config, args.model, {"--tokenizer": args.tokenizer}, checked=guarded(args))
    with output_lock(out):  # a second writer on --out stops here, before the data and the model load
        if not args.overwrite:  # an --out holding another run's result: refused before the model loads
            refuse_replacing(out, None, expected=(bench.meta.name, config.method, config.recipe),
                             beside=companions(bench, out, config))
        return _eval(bench, args, replace(prepared, config=config, out=out), out)


def _eval(bench: Any, args: argparse.Namespace, prepared: Any, out: Any) -> int:
    from lexprobe.core.cli_common import scorer_from_args
    from lexprobe.core.contract import format_result
    from lexprobe.core.evaluate import counts_line, evaluate
    from lexprobe.distributed import context

    items = bench.items.load(prepared.config)  # data and output errors before the (slow) model load
    context()  # join torchrun's process group (and pin this rank's GPU) before loading the model
    scorer = scorer_from_args(args)  # the model check_model_args prepared
    result = evaluate(bench, scorer, prepared, out, items=items, keep_instances=not args.no_instances,
                      overwrite=args.overwrite, model=args.model, items_from_config=True)
    if result is None:  # another rank than 0
        return 0
    print(format_result(bench, result))
    from lexprobe.reporting import wrap_text

    line = counts_line(result)
    if line:
        print(wrap_text(line))
    print("\n" + wrap_text(f"results written to {out}" + (f", plot to {result['plot']}" if result.get("plot") else "")))
    return 0
