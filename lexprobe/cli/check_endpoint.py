"""``lexprobe check-endpoint URL --against PATH``: does a server score as the in-process model does?

A server's precision changes the numbers silently (vLLM serves float32 weights in bfloat16 unless started
with ``--dtype float32``: 4 of 32 gold ranks changed on 8 WDLMPro targets per POS). This scores a fixed probe
set both ways with the same token ids and prints each request's |Δ| of summed log-probabilities and whether
each probe's ranking agrees. Exit 0 when all agree within ``--tolerance``, 1 when not (as ``diff``), 2 for
bad input.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from lexprobe.backends import is_endpoint
from lexprobe.backends.options import DTYPES
from lexprobe.core.cli_common import positive_float
from lexprobe.core.options import add_commands, option
from lexprobe.errors import LexprobeError, ModelError
from lexprobe.outputs import INPUT, OUTPUT

#: per-request |Δ| allowed by default: a float32 server measured within 1e-4 of transformers, bfloat16 1e-2+
DEFAULT_TOLERANCE = 1e-3

#: (context, continuations): short and long continuations alike; fixed, so two checks ask the same requests
PROBES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("A domesticated carnivorous mammal that barks is called a", (" dog", " cat", " wolf", " fox")),
    ("A large stringed instrument played with a bow is called a", (" cello", " violin", " harp", " drum")),
    ("Food made from flour, water and yeast, baked in an oven, is called", (" bread", " cheese", " soup", " rice")),
    ("To beckon means to", (" signal with the hands or nod", " close the eyes briefly", " bend the knee or body",
                            " sing in a soft low tone")),
    ("The capital of France is", (" Paris", " Rome", " Berlin", " Madrid")),
    ("She opened the door and walked into the", (" room", " sky", " idea", " river")),
)


@dataclass(frozen=True)
class CheckEndpoint:
    url: str = option(None, "the endpoint, http://HOST:PORT/v1", flag="url", metavar="URL")
    against: str = option(None, "the served model's folder (or GGUF file, or packaged short name) on this machine, "
                                "loaded here", required=True, metavar="PATH", path=INPUT)
    tolerance: float = option(DEFAULT_TOLERANCE, "largest per-request |difference| of summed log-probabilities that "
                                                 "still agrees", type=positive_float)
    served_model: str | None = option(None, "the served model's name, where the server lists several")
    device: str = option("cpu", "device of the in-process model")
    dtype: str = option("float32", "dtype of the in-process model", choices=DTYPES)
    json: str | None = option(None, "also write every request's figures to this JSON file", metavar="FILE",
                              path=OUTPUT)


def register(sub) -> None:
    add_commands(sub, {"check-endpoint": (CheckEndpoint, "score a fixed probe set through an endpoint and in "
                                                         "process, and say whether they agree (exit 1 when they do "
                                                         "not)", cmd_check_endpoint)})


def compare_scores(here: list, there: list, requests: list[tuple[int, str, str]], tolerance: float) -> dict:
    """Per request the summed log-probabilities both ways and |Δ|; per probe whether the continuations rank
    alike (ties broken by position); the verdict."""
    import numpy as np

    rows: list[dict[str, Any]] = []
    for (probe, context, continuation), a, b in zip(requests, here, there):
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        rows.append({"probe": probe, "context": context, "continuation": continuation, "tokens": int(a.size),
                     "here": float(a.sum()), "endpoint": float(b.sum()), "delta": float(abs(b.sum() - a.sum())),
                     "token_delta": float(np.abs(b - a).max()) if a.size == b.size and a.size else float("inf")})
    probes: list[dict[str, Any]] = []
    for probe in sorted({int(r["probe"]) for r in rows}):
        mine = [r for r in rows if r["probe"] == probe]
        order_here = sorted(range(len(mine)), key=lambda i: -mine[i]["here"])
        order_there = sorted(range(len(mine)), key=lambda i: -mine[i]["endpoint"])
        probes.append({"probe": probe, "context": mine[0]["context"], "agree": order_here == order_there,
                       "here": [mine[i]["continuation"] for i in order_here],
                       "endpoint": [mine[i]["continuation"] for i in order_there],
                       "max_delta": max(r["delta"] for r in mine)})
    worst = max(float(r["delta"]) for r in rows)
    agree = worst <= tolerance and all(p["agree"] for p in probes)
    return {"requests": rows, "probes": probes, "max_delta": worst, "tolerance": tolerance, "agree": agree}


def format_check(check: dict, url: str, against: str) -> str:
    from lexprobe.reporting import format_table, wrap_text

    rows = [[p["probe"] + 1, p["context"], f"{p['max_delta']:.2e}", "yes" if p["agree"] else
             f"no: here {' > '.join(x.strip() for x in p['here'])}; endpoint "
             f"{' > '.join(x.strip() for x in p['endpoint'])}"] for p in check["probes"]]
    table = format_table(["probe", "context", "max |Δ| per request", "rankings agree"], rows,
                         title=f"{url} against {against} in process: summed log-probabilities of "
                               f"{len(check['requests'])} requests, the same token ids")
    agreeing = sum(p["agree"] for p in check["probes"])
    verdict = (f"agree: every |Δ| ≤ {check['tolerance']:g} (largest {check['max_delta']:.2e}), {agreeing} of "
               f"{len(check['probes'])} rankings agree" if check["agree"] else
               f"DISAGREE: largest |Δ| {check['max_delta']:.2e} (tolerance {check['tolerance']:g}), {agreeing} of "
               f"{len(check['probes'])} rankings agree. Is the server in another precision? vLLM serves float32 "
               "weights in bfloat16 unless started with --dtype float32 (docs/backends.md, \"Precision\"); "
               "results through it are not comparable with in-process ones")
    return table + "\n" + wrap_text(verdict)


def cmd_check_endpoint(args: CheckEndpoint) -> int:
    from lexprobe.backends.openai_api import TokenizerError
    from lexprobe.models import load_scorer

    if not is_endpoint(args.url):
        raise LexprobeError(f"{args.url!r} is not an endpoint URL; pass http://HOST:PORT/v1")
    local: Any = load_scorer(args.against, kind="causal", device=args.device, dtype=args.dtype)
    tokenizer = getattr(getattr(local, "tokenizer", None), "name_or_path", None) or args.against
    try:
        remote: Any = load_scorer(args.url, kind="causal", served_model=args.served_model, tokenizer=str(tokenizer))
    except TokenizerError as err:  # the tokenizer is --against's: the fix is another --against, not --tokenizer
        raise ModelError(f"{err.problem}; --against must be the served model (its tokenizer is the one the server "
                         "is checked against): pass the served model's folder") from None
    requests = [(i, context, continuation) for i, (context, continuations) in enumerate(PROBES)
                for continuation in continuations]
    ids = [local.split(context, continuation) for _, context, continuation in requests]
    check = compare_scores(local.token_logprobs(ids), remote.token_logprobs(ids), requests, args.tolerance)
    print(format_check(check, args.url, args.against))
    if args.json:
        from lexprobe.reporting import write_json

        write_json(args.json, {"url": args.url, "against": str(args.against), **check})
        print(f"written to {args.json}", file=sys.stderr)
    return 0 if check["agree"] else 1
