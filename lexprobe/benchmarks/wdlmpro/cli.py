"""``lexprobe wdlmpro build|stats|sample-human|plot`` (``eval`` is derived from ``WDLMProConfig``) and WDLMPro's
part of ``lexprobe run``. Each command's options are a declared dataclass (``option(...)`` fields, as a config's:
``core.options.add_options``; paths checked by ``outputs.guard`` before the command runs), and the command
a function of them."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from lexprobe.benchmarks.wdlmpro import dataset as ds
from lexprobe.benchmarks.wdlmpro.human import FILES, sample_human, write_human_sample
from lexprobe.core.cli_common import non_negative_int, positive_int
from lexprobe.core.options import option
from lexprobe.errors import DataError
from lexprobe.outputs import IMAGE, INPUT, OUTPUT_DIR, make_output_dir
from lexprobe.reporting import wrap_text

#: what ``build`` writes into its --out folder
BUILD_FILES = tuple(ds.dataset_filename(pos) for pos in ("n", "v"))


def _pos() -> Any:
    return option("both", "part of speech", choices=("n", "v", "both"))


@dataclass(frozen=True)
class Build:
    out: str = option(None, "writes DIR/wdlmpro_n.jsonl and DIR/wdlmpro_v.jsonl", required=True, path=OUTPUT_DIR,
                      writes=BUILD_FILES)
    pos: str = _pos()
    keep_duplicates: bool = option(False, "keep candidates repeating a word or definition")


@dataclass(frozen=True)
class Groups:
    """The groups a command reads."""

    data: str | None = option(None, "a dataset directory (wdlmpro_n.jsonl, wdlmpro_v.jsonl) or one JSONL file; "
                                    "default: build from WordNet once and cache", path=INPUT)
    keep_duplicates: bool = option(False, "with no --data: the variant that keeps candidates repeating a word or "
                                          "definition")
    pos: str = _pos()


@dataclass(frozen=True)
class Stats(Groups):
    counts: str | None = option(None, "word<TAB>count file for the frequency bands (default: wordfreq, with the "
                                      "phrase estimate of docs/wdlmpro.md)", path=INPUT)
    no_breakdowns: bool = option(False, "print Table 2 only (skips loading WordNet for the depth and frequency "
                                        "bands)")


@dataclass(frozen=True)
class SampleHuman(Groups):
    n: int = option(20, "groups per task", type=positive_int)
    max_candidates: int = option(10, "only groups this small", type=positive_int)
    seed: int = option(0, "seed of the sample", type=non_negative_int)
    out: str = option(None, "folder for the JSON, the printable sheet and the key", required=True, path=OUTPUT_DIR,
                      writes=tuple(FILES.values()))


@dataclass(frozen=True)
class Plot:
    result: str = option(None, "result JSON of `wdlmpro eval`", required=True, path=INPUT)
    out: str = option(None, "PNG file", required=True, path=IMAGE)


def cmd_build(args: Build) -> int:
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


def cmd_stats(args: Stats) -> int:
    """Table 2, then Table 6 and the frequency bands, cached by content (``attributes.cached_stats``): a second
    call reads them in about a second instead of building the groups and their attributes again."""
    from lexprobe.benchmarks.wdlmpro import attributes as bs

    breakdowns = not args.no_breakdowns
    key = bs.stats_key(args.data, args.pos, args.keep_duplicates, args.counts, breakdowns)

    def compute() -> dict:
        attributes = bs.attributes_fn(args.counts) if breakdowns else None  # a bad --counts file: fail before the build
        groups = ds.read_groups(args.data, args.pos, args.keep_duplicates)
        figures: dict = {"table2": ds.dataset_stats(groups)}
        if attributes is not None:
            attrs = attributes(groups)
            figures.update(depth=bs.band_counts(groups, attrs, "depth_band"),
                           frequency=bs.band_counts(groups, attrs, "frequency_band"))
        return figures

    figures = bs.cached_stats(key, compute)
    print(ds.format_stats_table(figures["table2"]))
    if breakdowns:
        print(f"\n{bs.format_depth_table(figures['depth'])}\n")
        print(bs.format_frequency_table(figures["frequency"], bs.frequency_source(args.counts)))
    return 0


def cmd_sample_human(args: SampleHuman) -> int:
    sample = sample_human(ds.read_groups(args.data, args.pos, args.keep_duplicates), n=args.n, max_candidates=args.max_candidates, seed=args.seed)
    make_output_dir(args.out, "--out")  # outputs.guard checked it; made once the data is read
    paths = write_human_sample(sample, args.out)
    for kind, path in paths.items():
        print(f"{kind:>11}: {path}")
    return 0


def cmd_plot(args: Plot) -> int:
    from lexprobe.benchmarks.wdlmpro.plot import plot_breakdowns
    from lexprobe.core.result_schema import load

    path = Path(args.result)
    if not path.is_file():
        raise DataError(f"result file {path} not found; run `lexprobe wdlmpro eval ... --out {path}` first")
    result = load(path)
    try:
        if result.get("benchmark") != "wdlmpro":
            raise KeyError("benchmark")
        figure = plot_breakdowns(result, args.out)
    except (KeyError, ValueError) as err:
        raise DataError(f"{path} is not a WDLMPro result file ({err}); pass the --out file of `wdlmpro eval`") from None
    print(f"breakdown plot written to {figure}")
    return 0


#: WDLMPro's commands besides ``eval``: name -> (options, help, command)
COMMANDS: dict[str, tuple[type, str, Callable[[Any], int]]] = {
    "build": (Build, "build the dataset from WordNet and write JSONL files", cmd_build),
    "stats": (Stats, "print the dataset's statistics (Table 2) and its targets per depth band (Table 6) and "
                     "frequency band, beside the paper's", cmd_stats),
    "sample-human": (SampleHuman, "export the paper's human subset (JSON, printable sheet, answer key)",
                     cmd_sample_human),
    "plot": (Plot, "draw P@1 by frequency, depth and token count from a result file", cmd_plot),
}


def register_commands(sub: Any) -> None:
    """WDLMPro's commands besides ``eval`` (which ``lexprobe.cli`` derives from ``WDLMProConfig``)."""
    from lexprobe.core.options import add_commands

    add_commands(sub, COMMANDS)


#: groups per POS of ``lexprobe run``'s WDLMPro part on the default model
DEFAULT_RUN_SAMPLE = 100
#: groups per resumable chunk in ``lexprobe run`` (the likelihood method's progress steps)
RUN_CHUNK = 4


def run_default(out_dir: Path, part) -> dict:
    """WDLMPro on a seeded sample (both POS, both tasks; ``part.sample`` groups per POS, default 100), asked as
    ``part`` says (``RunPart``). The sample is ``--limit N --seed 0 --draw wordnet`` of ``wdlmpro eval``, so the
    result's ``run.reproduce`` is the eval command that scores the same groups."""
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.core.evaluate import run_part
    from lexprobe.prompting.choose_cli import ChooseOptions

    # likelihood: a few groups per resumable chunk, so the progress bar moves every few seconds on two CPU
    # cores (choose: one target per batch, ``ChooseOptions.units_per_batch``)
    options: dict[str, Any] = {"choose": ChooseOptions(chat=part.chat, units_per_batch=1)} \
        if part.method == "choose" else {"chunk_size": RUN_CHUNK}
    # a run plan's ``sample: full``: the whole built dataset (built once, cached), not a draw from WordNet
    config = WDLMProConfig(method=part.method, limit=None if part.full else part.sample or DEFAULT_RUN_SAMPLE,
                           draw="dataset" if part.full else "wordnet", **options)
    out = Path(out_dir) / f"{part.stem('wdlmpro')}.json"
    result = run_part("wdlmpro", part, config, out)
    plot = f", breakdown plot to {result['plot']}" if result.get("plot") else ""
    print(wrap_text(f"WDLMPro results written to {out}{plot}"))
    return result
