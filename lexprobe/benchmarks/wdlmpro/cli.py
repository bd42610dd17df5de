"""``lexprobe wdlmpro build|stats|sample-human|plot`` (``eval`` is derived from ``WDLMProConfig``) and WDLMPro's
part of ``lexprobe run``. Each ``add_*_parser(sub)`` sets ``func`` to a callable(args) -> exit code."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from lexprobe.benchmarks.wdlmpro import dataset as ds
from lexprobe.benchmarks.wdlmpro.dataset import SynsetGroup
from lexprobe.benchmarks.wdlmpro.human import sample_human, write_human_sample
from lexprobe.cli_common import non_negative_int, path_arg, positive_int
from lexprobe.errors import DataError
from lexprobe.outputs import IMAGE, INPUT, OUTPUT_DIR, make_output_dir

#: what ``sample-human`` writes into its --out folder (write_human_sample)
HUMAN_SAMPLE_FILES = ("human_sample.json", "human_sheet.txt", "human_answer_key.txt", "human_w2d.jsonl",
                      "human_d2w.jsonl")
#: what ``build`` writes into its --out folder
BUILD_FILES = tuple(ds.dataset_filename(pos) for pos in ("n", "v"))


def _add_pos(parser: argparse.ArgumentParser, default: str = "both") -> None:
    parser.add_argument("--pos", choices=("n", "v", "both"), default=default, help="part of speech (default: %(default)s)")


def _add_data(parser: argparse.ArgumentParser) -> None:
    path_arg(
        parser, "--data", kind=INPUT,
        metavar="DIR_OR_FILE",
        help="a dataset directory (wdlmpro_n.jsonl, wdlmpro_v.jsonl) or one JSONL file; "
        "default: build from WordNet once and cache",
    )
    parser.add_argument(
        "--keep-duplicates",
        action="store_true",
        help="with no --data: the variant that keeps candidates repeating a word or definition",
    )


def groups_from_args(args: argparse.Namespace) -> list[ds.SynsetGroup]:
    """The groups selected by --data / --keep-duplicates / --pos."""
    pos = getattr(args, "pos", "both")
    if getattr(args, "data", None):
        return ds.load_dataset(args.data, pos)
    return ds.default_dataset(pos, keep_duplicates=getattr(args, "keep_duplicates", False))


# ---------------------------------------------------------------- build


def add_build_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("build", help="build the dataset from WordNet and write JSONL files")
    # declared: outputs.guard checks --out (writable, no input among the files written) before cmd_build runs
    path_arg(p, "--out", kind=OUTPUT_DIR, writes=BUILD_FILES, required=True, metavar="DIR",
             help="writes DIR/wdlmpro_n.jsonl and DIR/wdlmpro_v.jsonl")
    _add_pos(p)
    p.add_argument("--keep-duplicates", action="store_true", help="keep candidates repeating a word or definition")
    p.set_defaults(func=cmd_build)
    return p


def cmd_build(args: argparse.Namespace) -> int:
    out = make_output_dir(args.out, "--out")
    all_groups = []
    for pos in ds.pos_list(args.pos):
        start = time.perf_counter()
        groups = ds.build_groups(pos, keep_duplicates=args.keep_duplicates, progress=True)
        path = ds.write_jsonl(groups, out / ds.dataset_filename(pos))
        print(f"wrote {len(groups):,} {ds.POS_NAMES[pos]} groups to {path} ({time.perf_counter() - start:.0f} s)")
        all_groups.extend(groups)
    print(ds.format_stats_table(ds.dataset_stats(all_groups)))
    return 0


# ---------------------------------------------------------------- stats


def add_stats_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("stats", help="print the dataset's statistics (Table 2) and its targets per depth band "
                       "(Table 6) and frequency band, beside the paper's")
    _add_data(p)
    _add_pos(p)
    p.add_argument("--counts", metavar="FILE", help="word<TAB>count file for the frequency bands "
                   "(default: wordfreq, with the phrase estimate of docs/wdlmpro.md)")
    p.add_argument("--no-breakdowns", action="store_true",
                   help="print Table 2 only (skips loading WordNet for the depth and frequency bands)")
    p.set_defaults(func=cmd_stats)
    return p


def cmd_stats(args: argparse.Namespace) -> int:
    """Table 2, then Tables 6 and the frequency bands. Their figures are cached by content (``band_stats.
    cached_stats``: WordNet, the builder, the options, the --data and --counts files), so a second call reads them
    in about a second instead of building the groups and their attributes again."""
    from lexprobe.benchmarks.wdlmpro import band_stats as bs
    from lexprobe.benchmarks.wdlmpro.attributes import attributes_fn

    counts = getattr(args, "counts", None)
    breakdowns = not getattr(args, "no_breakdowns", False)
    key = bs.stats_key(getattr(args, "data", None), getattr(args, "pos", "both"),
                       getattr(args, "keep_duplicates", False), counts, breakdowns)

    def compute() -> dict:
        attributes = attributes_fn(counts) if breakdowns else None  # a bad --counts file: fail before the build
        groups = groups_from_args(args)
        figures: dict = {"table2": ds.dataset_stats(groups)}
        if attributes is not None:
            attrs = attributes(groups)
            figures.update(depth=bs.band_counts(groups, attrs, "depth_band"),
                           frequency=bs.band_counts(groups, attrs, "frequency_band"))
        return figures

    figures = bs.cached_stats(key, compute)
    print(ds.format_stats_table(figures["table2"]))
    if not breakdowns:
        return 0
    print()
    print(bs.format_depth_table(figures["depth"]))
    print()
    print(bs.format_frequency_table(figures["frequency"], bs.frequency_source(counts)))
    return 0


# ---------------------------------------------------------------- sample-human


def add_sample_human_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("sample-human", help="export the paper's human subset (JSON, printable sheet, answer key)")
    p.add_argument("--n", type=positive_int, default=20, help="groups per task (default: %(default)s)")
    p.add_argument("--max-candidates", type=positive_int, default=10, help="only groups this small (default: %(default)s)")
    p.add_argument("--seed", type=non_negative_int, default=0, help="seed of the sample (default: %(default)s)")
    path_arg(p, "--out", kind=OUTPUT_DIR, writes=HUMAN_SAMPLE_FILES, required=True, metavar="DIR",
             help="folder for the JSON, the printable sheet and the key")  # outputs.guard: not over --data
    _add_data(p)
    _add_pos(p)
    p.set_defaults(func=cmd_sample_human)
    return p


def cmd_sample_human(args: argparse.Namespace) -> int:
    sample = sample_human(groups_from_args(args), n=args.n, max_candidates=args.max_candidates, seed=args.seed)
    make_output_dir(args.out, "--out")  # outputs.guard checked it; made once the data is read
    paths = write_human_sample(sample, args.out)
    for kind, path in paths.items():
        print(f"{kind:>11}: {path}")
    return 0


def register_commands(wsub) -> None:
    """WDLMPro's commands besides ``eval`` (which ``lexprobe.cli`` derives from ``WDLMProConfig``)."""
    add_build_parser(wsub)
    add_stats_parser(wsub)
    add_sample_human_parser(wsub)
    pl = wsub.add_parser("plot", help="draw P@1 by frequency, depth and token count from a result file")
    path_arg(pl, "--result", kind=INPUT, required=True, help="result JSON of `wdlmpro eval`")
    path_arg(pl, "--out", kind=IMAGE, required=True, help="PNG file")  # declared: outputs.guard checks both
    pl.set_defaults(func=cmd_plot)


def cmd_plot(args) -> int:
    from lexprobe.benchmarks.wdlmpro.plot import plot_breakdowns

    path = Path(args.result)
    if not path.is_file():
        raise DataError(f"result file {path} not found; run `lexprobe wdlmpro eval ... --out {path}` first")
    from lexprobe.result_schema import load

    result = load(path)
    try:
        if result.get("benchmark") != "wdlmpro":
            raise KeyError("benchmark")
        figure = plot_breakdowns(result, args.out)
    except (KeyError, ValueError) as err:
        raise DataError(f"{path} is not a WDLMPro result file ({err}); pass the --out file of `wdlmpro eval`") from None
    print(f"breakdown plot written to {figure}")
    return 0


#: groups per POS of ``lexprobe run``'s WDLMPro part on the default model
DEFAULT_RUN_SAMPLE = 100
#: groups per resumable chunk in ``lexprobe run`` (the likelihood method's progress steps)
RUN_CHUNK = 4


def quick_sample(pos: str, n: int, seed: int = 0) -> list[SynsetGroup]:
    """``dataset.wordnet_sample``: ``--limit N --seed S --draw wordnet`` (what ``lexprobe run`` draws)."""
    return ds.wordnet_sample(pos, n, seed)


def run_default(out_dir: Path, part, seed: int = 0) -> dict:
    """WDLMPro on a seeded sample (both POS, both tasks; ``part.sample`` groups per POS, default 100),
    asked as ``part`` says (``RunPart``: likelihood, or choose with or without the chat template).

    The sample is ``--limit N --seed S --draw wordnet`` of ``wdlmpro eval`` (``dataset.wordnet_sample``, drawn by
    ``load_items`` from the config): the result's ``run.reproduce`` is the eval command that scores the same groups."""
    from lexprobe.benchmarks.evaluate import check_paths, evaluate
    from lexprobe.benchmarks.registry import get
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.models import load_scorer
    from lexprobe.prompting.choose_cli import ChooseOptions

    options: dict[str, Any] = {"choose": ChooseOptions(chat=part.chat, units_per_batch=1)} \
        if part.method == "choose" else {}
    # likelihood: a few groups per resumable chunk, so the progress bar moves every few seconds on two CPU
    # cores (choose: one target per batch, ``ChooseOptions.units_per_batch``)
    if part.method == "likelihood":
        options["chunk_size"] = RUN_CHUNK
    sample = part.sample or DEFAULT_RUN_SAMPLE
    config = WDLMProConfig(seed=seed, method=part.method, limit=sample, draw="wordnet", **options)
    # the result and its plot, as evaluate declares them (bench.outputs), checked before the model loads
    out = check_paths(get("wdlmpro"), Path(out_dir) / f"{part.stem('wdlmpro')}.json", config, part.model)
    scorer = load_scorer(part.model, **part.options)
    result = evaluate("wdlmpro", scorer, config, out, model=part.model)
    assert result is not None  # `lexprobe run` is one process (rank 0)
    print(get("wdlmpro").format_result(result))
    plot = f", breakdown plot to {result['plot']}" if result.get("plot") else ""
    print(f"WDLMPro results written to {out}{plot}")
    return result
