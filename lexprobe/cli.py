"""Command-line entry point: ``lexprobe <benchmark> <command> ...`` and ``lexprobe run``.

Each benchmark package contributes its sub-commands through a ``register(subparsers)``
function in its ``cli`` module, so this file only wires them together.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from lexprobe.errors import LexprobeError

BENCHMARK_CLIS = (
    "lexprobe.benchmarks.wdlmpro.cli",
    "lexprobe.benchmarks.coda21.cli",
    "lexprobe.benchmarks.senserank.cli",
    "lexprobe.data.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lexprobe",
        description="Benchmarks of word-meaning understanding: WDLMPro, CoDA21, CWE sense ranking.",
    )
    parser.add_argument("--traceback", action="store_true", help="show full tracebacks on errors")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more detail")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    from lexprobe import run as run_module

    run_module.register(sub)
    for name in BENCHMARK_CLIS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name == name:
                continue  # benchmark not installed in this build
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not args.verbose:
        _quiet_libraries()
    try:
        return int(args.func(args) or 0)
    except LexprobeError as err:
        if args.traceback:
            raise
        print(f"lexprobe: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lexprobe: interrupted; finished work is kept and a rerun resumes", file=sys.stderr)
        return 130


def _quiet_libraries() -> None:
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover
        pass
    try:
        from huggingface_hub.utils import logging as hub_logging

        hub_logging.set_verbosity_error()  # offline retries are reported once, as our own error
    except ImportError:  # pragma: no cover
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
