"""CLI options of ``--protocol choose`` and the two eval commands' choose branch."""

from __future__ import annotations

import argparse
from pathlib import Path

from lexprobe.cli_common import positive_int
from lexprobe.errors import LexprobeError

READING_CHOICES = {"both": ("likelihood", "generation"), "likelihood": ("likelihood",),
                   "generation": ("generation",)}
_DEFAULTS = {"chat": False, "template": "default", "max_candidates": 10, "permutations": 1, "reading": "both",
             "max_new_tokens": None, "debias": "none"}


def add_choose_args(parser: argparse.ArgumentParser) -> None:
    from lexprobe.protocols.templates import SHIPPED

    g = parser.add_argument_group("ask-to-choose prompting (--protocol choose; causal LMs)")
    g.add_argument("--chat", action="store_true",
                   help="wrap the question in the tokenizer's chat template (instruction-tuned models)")
    g.add_argument("--template", default="default",
                   help=f"prompt template: {', '.join(SHIPPED)}, or a JSON file (fields: docs/llm.md)")
    g.add_argument("--max-candidates", type=positive_int, default=10,
                   help="larger groups are cut to a seeded sample of this many options, the gold one kept")
    g.add_argument("--permutations", type=positive_int, default=1,
                   help="ask every item in this many seeded option orders and average")
    g.add_argument("--reading", choices=tuple(READING_CHOICES), default="both",
                   help="read answers by option-label likelihood, by parsed greedy generation, or both")
    g.add_argument("--max-new-tokens", type=positive_int,
                   help="generation length in tokens (None: enough for the answer format)")
    g.add_argument("--debias", choices=("none", "cyclic"), default="none",
                   help="cyclic: also ask the label likelihood with the options in all their cyclic orders and "
                        "average each option's probability over the orders (position-bias debiasing)")


def check_choose_args(args: argparse.Namespace) -> None:
    """Choose-only options given without ``--protocol choose`` are an error, not silently ignored."""
    if args.protocol == "choose":
        return
    given = [f"--{k.replace('_', '-')}" for k, v in _DEFAULTS.items() if getattr(args, k, v) != v]
    if given:
        raise LexprobeError(f"{', '.join(given)} only apply with --protocol choose; add it or drop them")


def config_from_args(args: argparse.Namespace, **extra):
    from lexprobe.protocols.choose import ChooseConfig
    from lexprobe.protocols.templates import load_template

    return ChooseConfig(template=load_template(args.template), chat=args.chat, max_candidates=args.max_candidates,
                        permutations=args.permutations, seed=args.seed, readings=READING_CHOICES[args.reading],
                        max_new_tokens=args.max_new_tokens, extra=extra, debias=args.debias)


def _write(result: dict, out: Path) -> None:
    from lexprobe.cache import partial_path
    from lexprobe.reporting import write_json

    write_json(out, result)
    partial_path(out).unlink(missing_ok=True)


def cmd_wdlmpro(args: argparse.Namespace, groups, tasks) -> int:
    from lexprobe.cli_common import scorer_from_args
    from lexprobe.protocols.choose_wdlmpro import evaluate_choose, format_choose

    config = config_from_args(args, task=args.task, pos=args.pos, data=args.data, limit=args.limit, dtype=args.dtype)
    config.validate()
    scorer = scorer_from_args(args)
    out = Path(args.out)
    result = evaluate_choose(scorer, groups, tasks, config, out=out)
    if getattr(args, "no_instances", False):
        result.pop("instances")
    _write(result, out)
    print(format_choose(result))
    print(f"\nresults written to {out}")
    return 0


def cmd_coda(args: argparse.Namespace, data) -> int:
    from lexprobe.cli_common import scorer_from_args
    from lexprobe.protocols.choose_coda import evaluate_choose, format_choose

    config = config_from_args(args, dtype=args.dtype)
    config.validate()
    scorer = scorer_from_args(args)
    out = Path(args.out)
    result = evaluate_choose(data, scorer, config, pos=args.pos, limit=args.limit, out=out)
    _write(result, out)
    print(format_choose(result))
    print(f"\nresults written to {out}")
    return 0
