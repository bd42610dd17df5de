"""``lexprobe human serve|score``: collect human baselines on the models' items."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from lexprobe.core.cli_common import positive_int
from lexprobe.core.options import add_command_group, option
from lexprobe.errors import DataError
from lexprobe.outputs import INPUT, OUTPUT, OUTPUT_DIR


def _subset(text: str) -> str | int:
    """``paper`` or a positive number of groups."""
    return text if text == "paper" else positive_int(text)


def _at_least_two(text: str) -> int:
    n = positive_int(text)
    if n < 2:
        raise argparse.ArgumentTypeError("a choice needs at least 2 candidates")
    return n


def _port(text: str) -> int:
    """``--port``: 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535 (0: any free port), got {value}")
    return value


def human_benchmarks() -> list[str]:
    """The registered benchmarks whose items people can take."""
    from lexprobe.core.registry import all_benchmarks

    return [b.meta.name for b in all_benchmarks() if b.human is not None]


@dataclass(frozen=True)
class Serve:
    benchmark: str = option(None, "which benchmark's items", choices=human_benchmarks, required=True)
    subset: str | int = option("paper", "`paper` (WDLMPro: 20 groups per task with <= 10 candidates; CoDA21: S20) "
                                        "or a number of groups (default: paper)", type=_subset)
    seed: int | None = option(None, "sampling seed (default: 0 for WDLMPro, 42 for CoDA21 as in S20)", type=int)
    data: str | None = option(None, "WDLMPro dataset dir/JSONL, or CoDA21 JSON file or variant name (default: "
                                    "WDLMPro built from WordNet; CoDA21 clean-easy from the data directory)",
                              path=INPUT)
    pos: str | None = option(None, "part of speech (default: both for WDLMPro; n for CoDA21 as in S20, which takes "
                                   "n or v)", choices=("n", "v", "both"))
    max_candidates: int = option(10, "WDLMPro: only groups with at most this many candidates (default: 10)",
                                 type=_at_least_two)
    # declared: outputs.guard keeps --db off --data and checks it writable before the command runs
    db: str = option("lexprobe-human.sqlite", "answer database (default: lexprobe-human.sqlite)", path=OUTPUT)
    host: str = option("127.0.0.1", "address to bind (default: 127.0.0.1, this machine only; ::1 for IPv6)")
    port: int = option(8765, "port (default: 8765; 0: any free port)", type=_port)


@dataclass(frozen=True)
class Score:
    # declared paths: outputs.guard keeps --out off --db and checks it writable before the command runs
    db: str = option(None, "answer database written by `human serve`", required=True, path=INPUT)
    out: str = option("human-results", "folder for result JSON files (default: human-results)", path=OUTPUT_DIR)


def register(sub) -> None:
    add_command_group(sub, "human", "human baselines: a local web page where people take the models' items", {
        "serve": (Serve, "serve the test page; answers are saved to an SQLite file as they are given", cmd_serve),
        "score": (Score, "turn stored answers into result files (per participant and pooled)", cmd_score)})


def item_set_from_args(args: Serve) -> dict:
    from lexprobe.core.registry import get

    human = get(args.benchmark).human
    if human is None:
        raise DataError(f"{args.benchmark} has no human items")
    return human.item_set(args)


def cmd_serve(args: Serve) -> int:
    from lexprobe.human.server import HumanApp, make_server, url_host
    from lexprobe.human.store import AnswerStore

    store = AnswerStore(args.db)  # an unusable --db fails before the items are built
    item_set = item_set_from_args(args)
    app = HumanApp(item_set, store)
    try:
        server = make_server(app, args.host, args.port)
    except OSError as err:
        raise DataError(f"cannot listen on {args.host}:{args.port} ({err.strerror}); choose another --port") from None
    host, port = server.server_address[:2]
    host = host.decode() if isinstance(host, (bytes, bytearray)) else str(host)
    print(f"{len(item_set['items'])} {item_set['benchmark']} items (set {item_set['set_id']}) at "
          f"http://{url_host(host)}:{port}/ — answers are saved to {args.db}; Ctrl-C stops; "
          f"`lexprobe human score --db {args.db}` scores them", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped; every answer given so far is saved")
    finally:
        server.server_close()
        store.close()
    return 0


def cmd_score(args: Score) -> int:
    from lexprobe.core.human_score import results_for
    from lexprobe.core.registry import get
    from lexprobe.human.store import AnswerStore
    from lexprobe.outputs import make_output_dir
    from lexprobe.reporting import write_json

    if not Path(args.db).is_file():
        raise DataError(f"answer database {args.db} not found; pass the --db of `lexprobe human serve`")
    make_output_dir(args.out, "--out")  # made now (outputs.guard checked it with --db)
    store = AnswerStore(args.db, read_only=True)  # a foreign database is refused, never changed
    out = Path(args.out)
    written = 0
    for item_set in store.item_sets():
        answers = store.answers(item_set["set_id"])
        meta = get(item_set["benchmark"]).meta
        metric = meta.main_score  # the benchmark's headline, labelled as its tables label it
        for who, result in results_for(item_set, answers).items():
            path = write_json(out / f"human-{item_set['benchmark']}-{item_set['set_id']}-{who}.json", result)
            head = result["metrics"][result["tasks"][0]]["all"]
            value, ci = head.get(metric), head.get("ci", {}).get(metric)
            summary = "no answers" if value is None else (
                f"{dict(meta.unit_metrics)[metric]} {100 * value:.1f}%"
                + (f" [95% CI {100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else ""))
            print(f"{who}: {result['config']['answered']}/{result['config']['total']} answered, {summary} -> {path}")
            written += 1
    store.close()
    if not written:
        raise DataError(f"{args.db} holds no answers yet; people answer at the page of `lexprobe human serve`")
    return 0
