"""CLI arguments shared by every ``eval`` command, so all benchmarks take models alike."""

from __future__ import annotations

import argparse

from lexprobe.models import DEFAULT_MODEL, KINDS, load_scorer


def add_model_args(parser: argparse.ArgumentParser, default_model: str | None = DEFAULT_MODEL) -> None:
    g = parser.add_argument_group("model")
    g.add_argument(
        "--model", default=default_model, required=default_model is None,
        help=f"Hugging Face name or local path, `random`, or a .vec/.bin vectors file (default: {default_model})",
    )
    g.add_argument("--kind", choices=KINDS, help="force the scorer kind instead of detecting it from the config")
    g.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N (default: auto)")
    g.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16"))
    g.add_argument("--batch-size", type=int, default=None, help="initial batch size (halves on out-of-memory)")
    g.add_argument("--seed", type=int, default=0, help="seed for sampling and the random scorer")


def scorer_from_args(args: argparse.Namespace):
    return load_scorer(
        args.model, kind=args.kind, device=args.device, dtype=args.dtype,
        batch_size=args.batch_size, seed=args.seed,
    )
