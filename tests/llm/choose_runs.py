"""Choose runs for the tests, through the evaluation sequence as ``lexprobe <benchmark> eval`` runs them."""

from __future__ import annotations


def ask(bench, scorer, items, out=None, seed=0, pos="v", progress=False, **options):
    """``evaluate`` with ``--method choose``: ``items`` are WDLMPro groups asked W2D, or a CoDA21 data set
    asked on ``pos``; ``options``: ``ChooseOptions`` fields."""
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.benchmarks.evaluate import evaluate
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems
    from lexprobe.prompting.choose_cli import ChooseOptions

    choose = ChooseOptions(**options)
    if bench == "wdlmpro":
        config = WDLMProConfig(method="choose", task="w2d", seed=seed, choose=choose)
        return evaluate(bench, scorer, config, out, items=WDLMProItems(items, None), progress=progress)
    config = CodaConfig(method="choose", pos=pos, seed=seed, choose=choose)
    return evaluate(bench, scorer, config, out, items=items, progress=progress)


def interrupt(*args):
    """Stands in for a step to stop a run there (Ctrl-C): the units logged before it stay in the log."""
    raise KeyboardInterrupt
