"""``lexprobe wdlmpro build|stats|sample-human|eval`` and WDLMPro's part of ``lexprobe run``."""

from __future__ import annotations

import random
from pathlib import Path

from lexprobe.benchmarks.wdlmpro import dataset_cli
from lexprobe.benchmarks.wdlmpro.dataset import MIN_GROUP_SIZE, SynsetGroup, group_members
from lexprobe.cli_common import path_arg
from lexprobe.errors import DataError
from lexprobe.outputs import IMAGE, INPUT


def register_commands(wsub) -> None:
    """WDLMPro's commands besides ``eval`` (which ``lexprobe.cli`` derives from ``WDLMProConfig``)."""
    dataset_cli.add_build_parser(wsub)
    dataset_cli.add_stats_parser(wsub)
    dataset_cli.add_sample_human_parser(wsub)
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


def run_default(out_dir: Path, part, seed: int = 0) -> dict:
    """WDLMPro on a seeded sample (both POS, both tasks; ``part.sample`` groups per POS, default 100),
    asked as ``part`` says (``RunPart``: likelihood, or choose with or without the chat template)."""
    from lexprobe.benchmarks.evaluate import check_paths, evaluate
    from lexprobe.benchmarks.registry import get
    from lexprobe.benchmarks.wdlmpro.attributes import attributes_fn
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems
    from lexprobe.models import load_scorer
    from lexprobe.prompting.choose_cli import ChooseOptions

    choose = {"choose": ChooseOptions(chat=part.chat, units_per_batch=1)} if part.method == "choose" else {}
    # likelihood: a few groups per resumable chunk, so the progress bar moves every few seconds on two CPU
    # cores (choose: one target per batch, ``ChooseOptions.units_per_batch``)
    chunk = {"chunk_size": RUN_CHUNK} if part.method == "likelihood" else {}
    config = WDLMProConfig(seed=seed, method=part.method, **chunk, **choose)  # type: ignore[arg-type]
    # the result and its plot, as evaluate declares them (bench.outputs), checked before the model loads
    out = check_paths(get("wdlmpro"), Path(out_dir) / f"{part.stem('wdlmpro')}.json", config, part.model)
    sample = part.sample or DEFAULT_RUN_SAMPLE
    groups = quick_sample("n", sample, seed) + quick_sample("v", sample, seed)
    scorer = load_scorer(part.model)
    drawn = {"name": "wordnet", "sample": True,
             "what": f"a seeded sample of {sample} WDLMPro groups per part of speech drawn from WordNet 3.0 (the "
                     "benchmark has 51,260 noun and 8,487 verb groups)",
             "get": "lexprobe wdlmpro eval --model MODEL (every group), or lexprobe run --full (larger samples)"}
    result = evaluate("wdlmpro", scorer, config, out, items=WDLMProItems(groups, attributes_fn(None), dataset=drawn))
    assert result is not None  # `lexprobe run` is one process (rank 0)
    print(get("wdlmpro").format_result(result))
    plot = f", breakdown plot to {result['plot']}" if result.get("plot") else ""
    print(f"WDLMPro results written to {out}{plot}")
    return result
