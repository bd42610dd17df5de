"""CWE sense ranking as a ``Benchmark``: one method (``similarity``: cosine of ``TokenVector`` requests).

The package is data + method + presentation: the corpus readers and the method, from instances to one record
per query (``similarity.py``, with the memory-mapped vector store ``store.py`` and the per-lemma ranking
``ranking.py``); the pooled MAP@50 and the buckets (``results.py``); tables, console text and figures
(``tables.py``, ``plot.py``). Recipes: ``paper`` and ``authors`` (``recipe.py``).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from lexprobe.benchmarks.senserank import cli, plot, similarity
from lexprobe.benchmarks.senserank import results as res
from lexprobe.benchmarks.senserank import tables as tab
from lexprobe.benchmarks.senserank.config import CORPUS_CHOICES, SenseConfig
from lexprobe.benchmarks.senserank.recipe import RECIPES
from lexprobe.benchmarks.senserank.similarity import load_instances
from lexprobe.core.contract import (
    Benchmark,
    BenchmarkMeta,
    Items,
    Presentation,
    Results,
    RunParts,
    Sample,
    SummaryColumn,
    likelihood_only,
    mean_aggregate,
)
from lexprobe.core.result_schema import model_name
from lexprobe.errors import DataError

#: ``lexprobe run``'s sample: whole SemCor lemmas (seed 0) until database + queries reach this many instances
DEFAULT_SAMPLE = 4000


def resolve_data(config: SenseConfig) -> SenseConfig:
    """SemCor without ``--path`` and none in the data directory: the sample shipped in the package,
    said in one line; ``config.path`` (recorded in the result) names it."""
    from lexprobe.data.semcor import sample_instead

    sample = sample_instead() if config.corpus == "semcor" and config.path is None else None
    if sample is None:
        return config
    print("lexprobe: SemCor not in the data directory: ranking senses on the SemCor sample shipped with "
          "lexprobe (1,202 sentences); `lexprobe data fetch semcor` gets the full corpus", file=sys.stderr)
    return dataclasses.replace(config, path=str(sample))


def dataset(config: SenseConfig) -> dict | None:
    """The corpus, or the SemCor sample shipped in the package: read from ``--path``, or in place of a
    SemCor missing from the data directory."""
    from lexprobe.data.semcor import default_archive, sample_archive

    if config.corpus != "semcor":
        return {"name": config.corpus, "sample": False}
    path = Path(config.path) if config.path else default_archive()
    if path.resolve() == sample_archive().resolve() or (config.path is None and not path.exists()):
        return {"name": "semcor (bundled sample)", "sample": True,
                "what": "the SemCor sample shipped with lexprobe (1,202 sentences), not the full SemCor 3.0",
                "get": "lexprobe data fetch semcor"}
    return {"name": "semcor", "sample": False}


def draw(config: SenseConfig) -> str | None:
    """The samples of ``similarity.select_instances``: whole lemmas (``--max-instances``), then queries (``--limit``)."""
    drawn = []
    if config.max_instances:
        drawn.append(f"whole lemmas drawn with seed {config.seed} until database and queries reach "
                     f"{config.max_instances:,} instances (--max-instances {config.max_instances})")
    if config.limit:
        drawn.append(f"a seeded sample of {config.limit:,} queries (--limit {config.limit} --seed {config.seed})")
    return ", then ".join(drawn) or None


def written(result: dict, out: Path, config: Any) -> None:
    """The plot beside the result; none for a run that ranked no query (no curves: nothing to draw)."""
    plot_path = Path(out).with_suffix(".png")
    if result.get("sweep"):
        plot.plot_sweep(result, plot_path)
    elif _has_curves(result):
        plot.save_curves_plot(result, plot_path)
    else:
        return
    result["plot"] = str(plot_path)


def _has_curves(result: dict) -> bool:
    return bool(result["breakdowns"].get(res.corpus(result), {}).get("curves"))


def unit_values(result: dict) -> list:
    if result.get("sweep"):
        raise DataError(f"{result.get('_path', 'the result')} is a layer sweep (--layers), which keeps no "
                        "per-query records; compare single-layer runs (senserank eval --layer L) item by item")
    return res.unit_values(result)


def figures(result: dict, folder: Path, stem: str) -> list[tuple[str, Path]]:
    if result.get("sweep"):
        path = plot.plot_sweep(result, folder / f"{stem}-layers.png")
        return [(f"Sense ranking {res.corpus(result)} by layer: {model_name(result)}", Path(path))]
    if not _has_curves(result):
        return []
    plot.save_curves_plot(result, folder / f"{stem}.png")
    return [(f"Sense ranking precision at k: {model_name(result)}", folder / f"{stem}.png")]


def summary_tag(result: dict) -> str | None:
    """The layer the vectors came from, as a hidden_states index (0 = embeddings, as the sweep tables
    count), from the model's record: the config's ``layer`` (-1 by default) is there for every model,
    also one without layers (random scores, static or sentence vectors), which gets no tag."""
    if result.get("sweep"):
        return f"best layer {result['sweep']['best']}"
    model = result.get("model") or {}
    index = model.get("hidden_states_index")
    if index is None:
        return None
    return f"layer {index}" + (", the last" if model.get("layer") == -1 else "")


def default_run(out_dir: Path, part: Any) -> dict:
    """``lexprobe run``'s part: whole SemCor lemmas, drawn with seed 0, until the database plus queries reach
    ``part.sample`` instances (default ``DEFAULT_SAMPLE``); SemCor found as ``senserank eval`` finds it (the
    data directory's, else the bundled sample, said in one line)."""
    from lexprobe.core.evaluate import run_part
    from lexprobe.data.semcor import SAMPLE_NOTE, is_sample

    likelihood_only(SENSERANK, part)
    sample = None if part.full else part.sample or DEFAULT_SAMPLE  # (a run plan's ``sample: full``: the whole corpus)
    config = resolve_data(SenseConfig(corpus="semcor", max_instances=sample, seed=0))
    out = Path(out_dir) / f"{part.stem('senserank-semcor')}.json"
    result = run_part(SENSERANK, part, config, out)  # the instances loaded as ``senserank eval`` loads them
    plotted = f" and {result['plot']}" if result.get("plot") else " (no plot: no query was ranked)"
    print(f"wrote {out}{plotted} ({result['timing']['seconds']:.1f} s)")
    m, base = result["metrics"]["semcor"]["all"], result["baselines"]
    return {"benchmark": "senserank", "task": "semcor-sample", "result": str(out),
            "sample_data": SAMPLE_NOTE if is_sample(config.path) else None,
            "metrics": {"queries": m.get("n", 0), "map50_paper": m.get("pooled"),
                        "map50_paper_random": base["random"]["semcor"]["all"].get("pooled"),
                        "map50_paper_oracle": base["oracle"]["semcor"]["all"].get("pooled"),
                        "map50_per_query_ap": m.get("map")}}


SENSERANK = Benchmark(
    meta=BenchmarkMeta(
        name="senserank", title="Sense ranking", help="CWE similarity ranking (query-by-example word-sense retrieval)",
        unit="query", tasks=CORPUS_CHOICES, datasets=("semcor",), main_score="pooled",
        unit_metrics=(("pooled", "MAP@50 (paper, pooled)"), ("map", "MAP@50 (per-query AP)")), load_as="token",
        summary=(SummaryColumn("Sense ranking MAP@50 (layer)", digits=2),),
    ),
    Config=SenseConfig,
    #: --max-instances N: whole lemmas up to N instances of the corpus (the estimate's suggestion)
    items=Items(load=load_instances, check=lambda config: config.validate(), resolve=resolve_data, dataset=dataset,
                draw=draw, sample=Sample("max_instances", lambda config, items: [min(len(items), config.max_instances
                                                                                     or len(items))])),
    methods={"similarity": similarity.Similarity()},
    recipes=RECIPES,
    results=Results(unit_values=unit_values,
                    baseline_values=lambda result: {name: res.unit_values(result, name) for name in ("random", "oracle")},
                    slices=res.slices, breakdowns=res.breakdowns,
                    aggregate=lambda result, task, slice, units: res.aggregate(
                        mean_aggregate(result, task, slice, units), units)),
    presentation=Presentation(
        tables=tab.tables, format_result=tab.format_result, figures=figures, failure_rows=res.failure_rows,
        table_group=res.corpus, summary_tag=summary_tag, written=written, failure_columns=tuple(res.FAILURE_COLUMNS),
        #: the result and its plot beside it (``outputs.guard`` checks both, and that they are two files)
        outputs=lambda out, config: {"--out": [out], "--out (its plot)": [Path(out).with_suffix(".png")]},
        failure_note=("a failure is a query whose AP@50 is below the share of its lemma's database instances "
                      "that have its sense (what a random order gets on average at every rank): the model ranks "
                      "its same-sense instances no better than chance.")),
    commands=cli.register_commands,
    #: ``lexprobe run``: instances sampled (docs/llm.md, "The main job")
    run=RunParts(default_run, {"quick": 1500, "full": 4000}),
)
