"""``lexprobe wdlmpro build|stats|sample-human|eval`` and WDLMPro's part of ``lexprobe run``."""

from __future__ import annotations

import json
import random
from pathlib import Path

from lexprobe.benchmarks.wdlmpro import dataset_cli
from lexprobe.benchmarks.wdlmpro.dataset import (
    MIN_GROUP_SIZE, SynsetGroup, default_dataset, group_members, load_dataset, pos_list, sample_groups,
)
from lexprobe.cli_common import PROTOCOLS, add_model_args, add_protocol_arg, positive_int
from lexprobe.errors import DataError
from lexprobe.outputs import check_output_file
from lexprobe.protocols.choose_cli import add_choose_args, check_choose_args

#: groups per resumable unit (also in evaluate.DEFAULT_CHUNK_SIZE; repeated here to keep `--help` import-light)
DEFAULT_CHUNK_SIZE = 32

TASK_CHOICES = {"w2d": ("w2d",), "d2w": ("d2w",), "both": ("w2d", "d2w")}


def register(sub) -> None:
    p = sub.add_parser("wdlmpro", help="WDLMPro: word <-> definition matching among WordNet sisters")
    wsub = p.add_subparsers(dest="wdlmpro_command", metavar="COMMAND")
    wsub.required = True
    dataset_cli.add_build_parser(wsub)
    dataset_cli.add_stats_parser(wsub)
    dataset_cli.add_sample_human_parser(wsub)

    e = wsub.add_parser("eval", help="evaluate a model on W2D and/or D2W")
    add_model_args(e)
    add_protocol_arg(e, choices=PROTOCOLS)
    add_choose_args(e)
    e.add_argument("--task", choices=TASK_CHOICES, default="both",
                   help="w2d: word -> definition, d2w: definition -> word, or both (default: both)")
    e.add_argument("--pos", choices=("n", "v", "both"), default="both", help="part of speech (default: both)")
    e.add_argument("--data", help="dataset folder or JSONL file from `wdlmpro build` (default: built from WordNet once, cached)")
    e.add_argument("--limit", type=positive_int, help="evaluate a seeded sample of N groups per POS (default: all)")
    e.add_argument("--counts", help="word<TAB>count file for frequency bands (default: wordfreq Zipf bands)")
    e.add_argument("--chunk-size", type=positive_int, default=DEFAULT_CHUNK_SIZE,
                   help="groups scored together (sister groups share pairs); every finished group is logged, "
                        f"so Ctrl-C keeps all finished chunks (default: {DEFAULT_CHUNK_SIZE})")
    e.add_argument("--pattern-aggregation", choices=("mean-prob", "mean-logprob", "best"),
                   help="masked LMs: how the patterns' scores are combined: mean-prob (the paper's text: W2D averages "
                        "probabilities, D2W average log-probabilities; default), mean-logprob, or best (the authors' "
                        "notebook: each target's best pattern, an oracle)")
    e.add_argument("--no-instances", action="store_true", help="leave per-instance records out of the result file")
    e.add_argument("--out", required=True, help="result JSON file (required)")
    e.add_argument("--plot", help="also draw the breakdowns to this PNG (default: next to --out)")
    e.set_defaults(func=cmd_eval)

    pl = wsub.add_parser("plot", help="draw P@1 by frequency, depth and token count from a result file")
    pl.add_argument("--result", required=True, help="result JSON of `wdlmpro eval`")
    pl.add_argument("--out", required=True, help="PNG file")
    pl.set_defaults(func=cmd_plot)


def _groups(args) -> list[SynsetGroup]:
    groups: list[SynsetGroup] = []
    for pos in pos_list(args.pos):
        pool = load_dataset(args.data, pos) if args.data else default_dataset(pos)
        groups.extend(sample_groups(pool, args.limit, seed=args.seed) if args.limit else pool)
    return groups


def run_eval(scorer, groups, tasks, out, config, counts=None, chunk_size=DEFAULT_CHUNK_SIZE, keep_instances=True,
             progress=True, protocol="paper", pattern_aggregation=None) -> dict | None:
    """Evaluate and write ``out``; under torchrun only rank 0 gets (and writes) the result."""
    from lexprobe.benchmarks.wdlmpro.attributes import attributes_fn
    from lexprobe.benchmarks.wdlmpro.evaluate import evaluate

    if counts:
        from lexprobe.provenance import file_sha256

        config = dict(config, counts_sha256=file_sha256(counts))  # bands change with the file's contents
    result = evaluate(scorer, groups, tasks, out=out, config=config, chunk_size=chunk_size,
                      attributes_fn=attributes_fn(counts), keep_instances=keep_instances, progress=progress,
                      protocol=protocol, pattern_aggregation=pattern_aggregation)
    if result is None:
        return None
    if not keep_instances:
        result.pop("instances")
    return result


def cmd_eval(args) -> int:
    from lexprobe.benchmarks.wdlmpro.plot import plot_breakdowns
    from lexprobe.benchmarks.wdlmpro.report import full_report
    from lexprobe.cli_common import scorer_from_args

    out = check_output_file(args.out)
    if args.plot:
        check_output_file(args.plot, "--plot")
    if args.counts and not Path(args.counts).is_file():
        raise DataError(f"--counts {args.counts} is not a file; pass a word<TAB>count file")
    check_choose_args(args)
    groups = _groups(args)  # data and output errors before the (slow) model load
    if not groups:
        raise DataError("no WDLMPro groups selected; check --data, --pos and --limit")
    if args.protocol == "choose":  # (not split across ranks: run it in one process)
        from lexprobe.protocols.choose_cli import cmd_wdlmpro

        return cmd_wdlmpro(args, groups, TASK_CHOICES[args.task])
    from lexprobe.distributed import context

    context()  # join torchrun's process group (and pin this rank's GPU) before loading the model
    scorer = scorer_from_args(args)
    config = {"task": args.task, "pos": args.pos, "data": args.data, "limit": args.limit, "seed": args.seed,
              "counts": args.counts, "dtype": args.dtype, "protocol": args.protocol}
    result = run_eval(scorer, groups, TASK_CHOICES[args.task], out, config, counts=args.counts,
                      chunk_size=args.chunk_size, keep_instances=not args.no_instances, protocol=args.protocol,
                      pattern_aggregation=args.pattern_aggregation)
    if result is None:
        return 0
    print(full_report(result))
    figure = plot_breakdowns(result, args.plot or out.with_suffix(".png"))
    print(f"\nresults written to {out}, breakdown plot to {figure}")
    return 0


def cmd_plot(args) -> int:
    from lexprobe.benchmarks.wdlmpro.plot import plot_breakdowns

    path = Path(args.result)
    check_output_file(args.out)
    if not path.is_file():
        raise DataError(f"result file {path} not found; run `lexprobe wdlmpro eval ... --out {path}` first")
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
        if result.get("benchmark") != "wdlmpro":
            raise KeyError("benchmark")
        figure = plot_breakdowns(result, args.out)
    except (json.JSONDecodeError, KeyError, ValueError) as err:
        raise DataError(f"{path} is not a WDLMPro result file ({err}); pass the --out file of `wdlmpro eval`") from None
    print(f"breakdown plot written to {figure}")
    return 0


def quick_sample(pos: str, n: int, seed: int = 0) -> list[SynsetGroup]:
    """A uniform seeded sample of n groups without building the whole dataset.

    Targets are visited in a seeded random order and kept when their group has at
    least MIN_GROUP_SIZE members: rejection sampling, so every valid group is equally
    likely. (Not the same sample as ``--limit``, which samples the built dataset.)
    """
    from lexprobe.data.wordnet import load_wordnet

    wn = load_wordnet()
    synsets = sorted(s.name() for s in wn.all_synsets(pos))
    random.Random(seed).shuffle(synsets)
    groups = []
    for name in synsets:
        members = group_members(wn.synset(name))
        if len(members) >= MIN_GROUP_SIZE:
            groups.append(SynsetGroup(name, pos, members[0].word, tuple(members)))
            if len(groups) == n:
                break
    return groups


def run_default(out_dir: Path, model: str, sample: int = 100, seed: int = 0) -> dict:
    """WDLMPro on a seeded sample (both POS, both tasks) with the given model."""
    from lexprobe.benchmarks.wdlmpro.plot import plot_breakdowns
    from lexprobe.benchmarks.wdlmpro.report import full_report
    from lexprobe.models import load_scorer

    out = check_output_file(Path(out_dir) / "wdlmpro.json")
    groups = quick_sample("n", sample, seed) + quick_sample("v", sample, seed)
    scorer = load_scorer(model)
    config = {"sample": "quick_sample", "n_per_pos": sample, "seed": seed, "task": "both", "pos": "both"}
    result = run_eval(scorer, groups, ("w2d", "d2w"), out, config)
    print(full_report(result))
    figure = plot_breakdowns(result, out.with_suffix(".png"))
    print(f"WDLMPro results written to {out}, breakdown plot to {figure}")
    return result
