"""``lexprobe human serve|score``: collect human baselines on the models' items."""

from __future__ import annotations

import argparse
from pathlib import Path

from lexprobe.errors import DataError


def _subset(text: str) -> str | int:
    """``paper`` or a positive number of groups."""
    from lexprobe.cli_common import positive_int

    return text if text == "paper" else positive_int(text)


def _at_least_two(text: str) -> int:
    from lexprobe.cli_common import positive_int

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


def register(sub) -> None:
    from lexprobe.cli_common import path_arg
    from lexprobe.outputs import INPUT, OUTPUT, OUTPUT_DIR

    p = sub.add_parser("human", help="human baselines: a local web page where people take the models' items")
    hsub = p.add_subparsers(dest="human_command", metavar="COMMAND")
    hsub.required = True

    s = hsub.add_parser("serve", help="serve the test page; answers are saved to an SQLite file as they are given")
    s.add_argument("--benchmark", choices=human_benchmarks(), required=True, help="which benchmark's items")
    s.add_argument("--subset", type=_subset, default="paper",
                   help="`paper` (WDLMPro: 20 groups per task with <= 10 candidates; CoDA21: S20) or a number "
                        "of groups (default: paper)")
    s.add_argument("--seed", type=int, help="sampling seed (default: 0 for WDLMPro, 42 for CoDA21 as in S20)")
    path_arg(s, "--data", kind=INPUT, help="WDLMPro dataset dir/JSONL, or CoDA21 JSON file or variant name "
                                  "(default: WDLMPro built from WordNet; CoDA21 clean-easy from the data directory)")
    s.add_argument("--pos", choices=("n", "v", "both"),
                   help="part of speech (default: both for WDLMPro; n for CoDA21 as in S20, which takes n or v)")
    s.add_argument("--max-candidates", type=_at_least_two, default=10,
                   help="WDLMPro: only groups with at most this many candidates (default: 10)")
    # declared: outputs.guard keeps --db off --data and checks it writable before the command runs
    path_arg(s, "--db", kind=OUTPUT, default="lexprobe-human.sqlite", help="answer database (default: lexprobe-human.sqlite)")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only; ::1 for IPv6)")
    s.add_argument("--port", type=_port, default=8765, help="port (default: 8765; 0: any free port)")
    s.set_defaults(func=cmd_serve)

    sc = hsub.add_parser("score", help="turn stored answers into result files (per participant and pooled)")
    # declared paths: outputs.guard keeps --out off --db and checks it writable before the command runs
    path_arg(sc, "--db", kind=INPUT, required=True, help="answer database written by `human serve`")
    path_arg(sc, "--out", kind=OUTPUT_DIR, default="human-results",
             help="folder for result JSON files (default: human-results)")
    sc.set_defaults(func=cmd_score)


def human_benchmarks() -> list[str]:
    """The registered benchmarks whose items people can take."""
    from lexprobe.core.registry import all_benchmarks

    return [b.meta.name for b in all_benchmarks() if b.human is not None]


def item_set_from_args(args) -> dict:
    from lexprobe.core.registry import get

    human = get(args.benchmark).human
    if human is None:
        raise DataError(f"{args.benchmark} has no human items")
    return human.item_set(args)


def cmd_serve(args) -> int:
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


def cmd_score(args) -> int:
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
