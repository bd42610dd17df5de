"""CLI arguments shared by every ``eval`` command, so all benchmarks take models alike."""

from __future__ import annotations

import argparse

from lexprobe.models import ATTN_IMPLEMENTATIONS, DEFAULT_MODEL, DTYPES, KINDS, load_scorer


PROTOCOLS = ("paper", "authors", "choose")
PROTOCOL_HELP = {
    "paper": "follow the paper's text (default)",
    "authors": "reproduce the authors' released code",
    "choose": "ask an instruction/causal LM to choose (prompting; causal LMs only)",
}


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (0 and negatives are one-line errors, never 'everything')."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def batch_size_arg(text: str) -> int | str:
    """argparse type for --batch-size: ``auto`` or a positive integer."""
    if text == "auto":
        return "auto"
    return positive_int(text)


def add_protocol_arg(parser: argparse.ArgumentParser, choices=("paper", "authors")) -> None:
    """``--protocol``: which recipe produces the scores; recorded in every result's config."""
    parser.add_argument(
        "--protocol", choices=choices, default="paper",
        help="; ".join(f"{c}: {PROTOCOL_HELP[c]}" for c in choices),
    )


def add_model_args(parser: argparse.ArgumentParser, default_model: str | None = DEFAULT_MODEL) -> None:
    g = parser.add_argument_group("model")
    g.add_argument(
        "--model", default=default_model, required=default_model is None,
        help=f"Hugging Face name or local path, `random`, or a .vec/.bin vectors file (default: {default_model})",
    )
    g.add_argument("--kind", choices=KINDS, help="force the scorer kind instead of detecting it from the config")
    g.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N (default: auto)")
    g.add_argument("--dtype", default="float32", choices=DTYPES,
                   help="weights and activations; auto: bfloat16 on a GPU that supports it, else float32")
    g.add_argument("--batch-size", type=batch_size_arg, default=None,
                   help="initial batch size, or auto: the largest token budget that fits the device (halves on out-of-memory)")
    g.add_argument("--attn", choices=ATTN_IMPLEMENTATIONS, default=None,
                   help="attention implementation passed to from_pretrained (none: the model's own choice)")
    g.add_argument("--device-map", choices=("auto",), default=None,
                   help="auto: spread a model too big for one GPU over all visible GPUs (needs accelerate)")
    g.add_argument("--seed", type=int, default=0, help="seed for sampling and the random scorer")


def scorer_from_args(args: argparse.Namespace):
    return load_scorer(
        args.model, kind=args.kind, device=args.device, dtype=args.dtype,
        batch_size=args.batch_size, seed=args.seed,
        attn=getattr(args, "attn", None), device_map=getattr(args, "device_map", None),
    )
