"""CWE similarity ranking: evaluate a model on a sense-annotated corpus.

Pipeline: read the corpus into ``SenseInstance``s -> D = train split, Q = the rest
-> drop query senses with fewer than ``min_sense_count`` instances in D -> embed
every target (mean of subwords at one layer) -> rank same-lemma D instances by
cosine -> per-query AP@50 and the paper's pooled precision, with exact random and
oracle figures, overall and per (frequency x sense proportion) bucket.

Buckets (Table 1): ℓ is the query sense's frequency in D (``label_freq_in_train`` in
the authors' code, which produced Table 1; ``bucket_by="lemma"``: the lemma's
frequency, as the paper's text says); r = R / N, the share of the query's sense
among its lemma's D instances. For OntoNotes the authors' lemmas carry their POS
(``make_v``), so r = R / count(lemma+POS in D), while retrieval still pools every
D instance of the lemma.
"""

from __future__ import annotations

import random
import re
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from lexprobe.benchmarks.senserank.ranking import lemma_key, rank_same_lemma
from lexprobe.data.instances import SenseInstance
from lexprobe.errors import DataError
from lexprobe.metrics import retrieval as R
from lexprobe.run_record import finish_result


@dataclass
class EvalConfig:
    corpus: str = "semcor"
    path: str | None = None
    model: str = "all-MiniLM-L6-v2"
    layer: int = -1
    pos: tuple[str, ...] | None = None  # coarse POS to keep (n, v, a, r, p)
    limit: int | None = None  # at most this many queries (seeded sample); D keeps their lemmas
    max_instances: int | None = None  # lemma sample: whole lemmas until D+Q reaches this size
    k: int = R.DEFAULT_K
    min_sense_count: int = 5
    match_pos: bool = False
    freq_edges: tuple[float, ...] = R.DEFAULT_FREQ_EDGES
    rarity_edges: tuple[float, ...] = R.DEFAULT_RARITY_EDGES
    seed: int = 0
    bucket_by: str = "sense"  # ℓ = the query sense's frequency in D (Table 1); "lemma": the paper's text
    protocol: str = "paper"  # paper | authors (SemCor sentence split with random.Random(42), ...)
    batch_size: int = 32
    device: str | None = None
    dtype: str | None = None

    def validate(self) -> None:
        """Numeric options are checked here too, for Python callers (the CLI's parser checks first)."""
        for name in ("limit", "max_instances"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise DataError(f"{name} must be a positive integer or None (all), got {value!r}")
        for name in ("k", "min_sense_count"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise DataError(f"{name} must be a positive integer, got {value!r}")
        if self.batch_size != "auto" and (isinstance(self.batch_size, bool) or not isinstance(self.batch_size, int)
                                          or self.batch_size < 1):
            raise DataError(f"batch_size must be a positive integer or 'auto', got {self.batch_size!r}")

    def public(self) -> dict:
        d = asdict(self)
        d["freq_edges"] = [str(x) if x == float("inf") else x for x in self.freq_edges]
        d["rarity_edges"] = list(self.rarity_edges)
        return d


#: corpora whose sense proportion r divides by the lemma+POS count (the authors' lemma "make_v")
RARITY_BY_LEMMA_POS = ("ontonotes",)
BUCKET_BY = ("sense", "lemma")


def split_database_queries(instances: Sequence[SenseInstance]) -> tuple[list, list]:
    """D = train; Q = dev/test instances that may be queries (OntoNotes NOTA senses may not)."""
    database = [i for i in instances if i.split == "train"]
    queries = [i for i in instances if i.split != "train" and i.query]
    if not database or not queries:
        raise DataError(
            f"the corpus needs a train split (database) and a dev/test split (queries); got "
            f"{len(database)} train and {len(queries)} other instances"
        )
    return database, queries


def select_instances(instances: Sequence[SenseInstance], cfg: EvalConfig) -> tuple[list, list, dict]:
    """Apply --pos, then the --max-instances lemma sample or the --limit query sample."""
    info: dict = {"corpus_instances": len(instances)}
    if cfg.pos:
        instances = [i for i in instances if i.pos in cfg.pos]
    database, queries = split_database_queries(instances)
    info.update(database_full=len(database), queries_full=len(queries),
                not_query_senses=sum(1 for i in instances if i.split != "train" and not i.query))
    key = lambda x: lemma_key(x, cfg.match_pos)  # noqa: E731
    sense_count: dict = defaultdict(int)
    for d in database:
        sense_count[(key(d), d.label)] += 1
    eligible = [q for q in queries if sense_count[(key(q), q.label)] >= cfg.min_sense_count]
    rng = random.Random(cfg.seed)
    if cfg.max_instances:
        size: dict = defaultdict(int)
        for x in database:
            size[key(x)] += 1
        for x in queries:
            size[key(x)] += 1
        lemmas = sorted({key(q) for q in eligible}, key=str)
        rng.shuffle(lemmas)
        chosen, total = set(), 0
        for lem in lemmas:
            if total + size[lem] <= cfg.max_instances:
                chosen.add(lem)
                total += size[lem]
        database = [d for d in database if key(d) in chosen]
        queries = [q for q in queries if key(q) in chosen]
        info["sampled_lemmas"] = len(chosen)
    if cfg.limit and cfg.limit < len(eligible):
        eligible_ids = {id(q) for q in eligible}
        pool = [q for q in queries if id(q) in eligible_ids]
        picked = rng.sample(pool, min(cfg.limit, len(pool)))
        picked_ids = {id(q) for q in picked}
        queries = [q for q in queries if id(q) in picked_ids]
        lemmas = {key(q) for q in queries}
        database = [d for d in database if key(d) in lemmas]
    info.update(database=len(database), queries=len(queries))
    return database, queries, info


#: the authors' SemCor split: sentences shuffled with random.Random(42), first 80% = D
AUTHORS_SEMCOR_SEED = 42


def load_instances(cfg: EvalConfig) -> list[SenseInstance]:
    """The corpus; under ``protocol="authors"`` SemCor is split by sentence with seed 42."""
    if cfg.protocol == "authors" and cfg.corpus == "semcor":
        from lexprobe.data.semcor import semcor_instances

        if cfg.path is not None and not Path(cfg.path).exists():
            raise DataError(f"semcor data not found at {cfg.path}; check --path")
        return semcor_instances(cfg.path, seed=AUTHORS_SEMCOR_SEED, split_by="sentence")
    from lexprobe.data.corpora import load_corpus

    return load_corpus(cfg.corpus, cfg.path, seed=cfg.seed)


def evaluate(
    cfg: EvalConfig,
    instances: Sequence[SenseInstance] | None = None,
    embedder=None,
    progress: bool = True,
    out: str | Path | None = None,
) -> dict:
    """Run the benchmark; returns the result dict. With ``out`` it is also written there,
    with the P@k plot beside it (``<out>.png``), exactly as ``lexprobe senserank eval --out``."""
    cfg.validate()
    if out is not None:
        from lexprobe.outputs import check_output_file

        check_output_file(out)
        check_output_file(Path(out).with_suffix(".png"), "--out (plot)")
    result = _evaluate(cfg, instances, embedder, progress)
    if out is not None:
        from lexprobe.reporting import write_json

        plot = Path(out).with_suffix(".png")
        save_curves_plot(result, plot)
        result["plot"] = str(plot)
        write_json(out, result)
    return result


def _evaluate(cfg: EvalConfig, instances, embedder, progress: bool) -> dict:
    t0 = time.time()
    if cfg.protocol not in ("paper", "authors"):
        raise DataError(f"unknown protocol {cfg.protocol!r} for sense ranking; use paper or authors")
    if cfg.bucket_by not in BUCKET_BY:
        raise DataError(f"unknown bucket_by {cfg.bucket_by!r}; use sense or lemma")
    if instances is None:
        instances = load_instances(cfg)
    pdep_counts = None
    if cfg.corpus == "pdep":  # the paper's 48 prepositions and sense filters (PDEP corpus rules)
        from lexprobe.data.pdep_rules import filter_pdep_instances

        instances, pdep_counts = filter_pdep_instances(instances)
        if not instances:
            raise DataError("no PDEP instance passes the corpus rules (48 prepositions, sense filters)")
    database, queries, info = select_instances(instances, cfg)
    if pdep_counts is not None:
        info["pdep_rules"] = dict(pdep_counts)
    t_read = time.time() - t0
    if embedder is None and cfg.model == "random":
        from lexprobe.scorers.random import RandomTargetEmbedder

        embedder = RandomTargetEmbedder(cfg.seed)
    if embedder is None:
        from lexprobe.models import check_model_reference
        from lexprobe.scorers.token_embeddings import TokenEmbedder

        check_model_reference(cfg.model)
        embedder = TokenEmbedder(cfg.model, layer=cfg.layer, device=cfg.device, batch_size=cfg.batch_size,
                                 dtype=cfg.dtype, words_alone=cfg.protocol == "authors")
    t1 = time.time()
    # queries whose sense is too rare in D are never ranked: do not spend time encoding them
    key = lambda x: lemma_key(x, cfg.match_pos)  # noqa: E731
    db_senses: dict = defaultdict(int)
    for d in database:
        db_senses[(key(d), d.label)] += 1
    to_embed = [q for q in queries if db_senses[(key(q), q.label)] >= cfg.min_sense_count]
    pos_of = {id(q): j for j, q in enumerate(to_embed)}
    emb = embedder.embed(list(database) + to_embed, progress=progress)
    t_embed = time.time() - t1
    db_vecs, db_ok = emb.vectors[: len(database)], emb.ok[: len(database)]
    q_vecs = np.zeros((len(queries), emb.vectors.shape[1]), dtype=np.float32)
    q_ok = np.zeros(len(queries), dtype=bool)
    for i, q in enumerate(queries):
        j = pos_of.get(id(q))
        if j is not None:
            q_vecs[i] = emb.vectors[len(database) + j]
            q_ok[i] = emb.ok[len(database) + j]
        else:
            q_ok[i] = True  # dropped as rare by the ranking, not as unaligned
    t2 = time.time()
    report = rank_same_lemma(database, db_vecs, queries, q_vecs, k=cfg.k, min_sense_count=cfg.min_sense_count,
                             match_pos=cfg.match_pos, db_ok=db_ok, q_ok=q_ok)
    t_rank = time.time() - t2
    return build_result(cfg, embedder, database, queries, report, info,
                        timing={"read_s": t_read, "embed_s": t_embed, "rank_s": t_rank,
                                "total_s": time.time() - t0}, db_ok=db_ok)


def rarity_denominators(cfg, database: Sequence[SenseInstance], db_ok=None):
    """N of r = R / N per query: None (the same-lemma pool) or a (lemma, pos) -> count map."""
    if cfg.corpus not in RARITY_BY_LEMMA_POS:
        return None
    ok = np.ones(len(database), bool) if db_ok is None else np.asarray(db_ok, bool)
    counts: dict = defaultdict(int)
    for d, good in zip(database, ok):
        if good:
            counts[(d.lemma, d.pos)] += 1
    return counts


def build_result(cfg, embedder, database, queries, report, info, timing, db_ok=None) -> dict:
    if cfg.bucket_by not in BUCKET_BY:
        raise DataError(f"unknown bucket_by {cfg.bucket_by!r}; use sense or lemma")
    outcomes, per_query = [], []
    buckets: dict[str, list] = defaultdict(list)
    single_sense = 0
    pos_counts = rarity_denominators(cfg, database, db_ok)
    for rq in report.ranked:
        q = queries[rq.query]
        denominator = rq.n_candidates if pos_counts is None else pos_counts.get((q.lemma, q.pos), 0)
        rarity = rq.n_relevant / denominator if denominator else 1.0
        single_sense += rarity == 1.0
        freq = rq.n_relevant if cfg.bucket_by == "sense" else rq.n_candidates
        bucket = R.bucket_of(freq, rarity, cfg.freq_edges, cfg.rarity_edges)
        outcome = R.QueryOutcome(rq.hits, rq.n_relevant, rq.n_candidates)
        outcomes.append(outcome)
        if bucket is not None:
            buckets[bucket].append(outcome)
        per_query.append({
            "id": f"{q.doc_id}#{q.sent_id}#{q.index}",
            "lemma": q.lemma, "pos": q.pos, "label": q.label,
            "n_candidates": rq.n_candidates, "n_relevant": rq.n_relevant, "rarity": round(rarity, 6),
            "bucket_freq": freq,
            "bucket": bucket,
            "ap": round(R.average_precision(rq.hits, rq.n_relevant, cfg.k), 6),
            "hits": "".join(str(int(h)) for h in rq.hits),
            "top": [database[i].label for i in rq.top[:5]],
        })
    overall = R.summarize(outcomes, cfg.k)
    by_bucket = {name: R.summarize(buckets.get(name, []), cfg.k)
                 for name in R.bucket_names(cfg.freq_edges, cfg.rarity_edges)}
    counts = dict(info)
    counts.update(
        ranked_queries=len(report.ranked),
        dropped_rare_sense=report.dropped_rare_sense,
        dropped_unaligned=report.dropped_unaligned,
        database_unaligned=report.db_unaligned,
        single_sense_queries=single_sense,
        lemmas_in_database=len(report.lemma_freq),
    )
    model_info = embedder.describe() if hasattr(embedder, "describe") else {"name": cfg.model}
    return finish_result(scorer=embedder, items={"database": database, "queries": queries}, unit="query", result={
        "benchmark": "senserank",
        "task": cfg.corpus,
        "model": model_info.get("name", cfg.model),
        "config": dict(cfg.public(), embedder=model_info),
        "metrics": {k: v for k, v in overall.items() if k != "curves"},
        "breakdowns": {"buckets": by_bucket, "overall_curves": overall.get("curves", {})},
        "counts": counts,
        "timing": {k: round(v, 2) for k, v in timing.items()},
        "instances": per_query,
    })


def format_report(result: dict) -> str:
    """Table 1 style: baseline, oracle and model per bucket (x100), with query counts."""
    from lexprobe.reporting import format_table

    buckets = result["breakdowns"]["buckets"]
    names = list(buckets)
    cols = names + ["all"]
    cells = dict(buckets, all=dict(result["metrics"]))

    def row(label, metric):
        out = [label]
        for c in cols:
            s = cells[c]
            out.append(f"{100 * s[metric]:.2f}" if s.get("queries") else "-")
        return out

    rows = [
        row("Baseline (random, exact)", "pooled_random"),
        row("Oracle", "pooled_oracle"),
        row(result["model"], "pooled"),
        row(f"{result['model']} MAP@50 (per-query AP)", "map"),
        row("random MAP@50 (exact)", "map_random"),
        ["queries"] + [str(cells[c].get("queries", 0)) for c in cols],
    ]
    c = result["counts"]
    by = result["config"].get("bucket_by", "sense")
    title = (
        f"CWE similarity ranking on {result['task']}: mean over k=1..{result['config']['k']} of pooled P@k "
        f"(the paper's MAP@50), x100; l = {'the query sense' if by == 'sense' else 'the lemma'}'s frequency in D"
    )
    notes = (
        f"D={c['database']} instances ({c['lemmas_in_database']} lemmas), Q={c['queries']} -> "
        f"{c['ranked_queries']} ranked; dropped {c['dropped_rare_sense']} queries whose sense has "
        f"<{result['config']['min_sense_count']} instances in D, {c['dropped_unaligned']} unaligned queries, "
        f"{c['database_unaligned']} unaligned D targets; {c['single_sense_queries']} ranked queries have r=1 "
        f"(in no r bucket, as in the original code)."
    )
    return format_table(["model"] + cols, rows, title=title) + "\n" + notes


def save_curves_plot(result: dict, path) -> None:
    """P@k curves (model, random, oracle) per bucket, one panel each, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(n, s) for n, s in result["breakdowns"]["buckets"].items() if s.get("queries")]
    panels.append(("all", {**result["metrics"], "curves": result["breakdowns"]["overall_curves"]}))
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    for ax, (name, s) in zip(axes.flat, panels):
        ks = range(1, len(s["curves"]["model"]) + 1)
        ax.plot(ks, s["curves"]["oracle"], "k--", label="oracle (relevant first)")
        ax.plot(ks, s["curves"]["model"], "C0-", label=result["model"])
        ax.plot(ks, s["curves"]["random"], "C3:", label="random (exact expectation)")
        ax.set_title(f"{re.sub(r'(?<![a-z])l(?![a-z])', 'ℓ', name)} (n={s['queries']})", fontsize=9)
        ax.set_xlabel("k")
        ax.set_ylabel("precision at k")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(f"senserank {result['task']}: {result['model']} — precision of the k nearest same-lemma "
                 "instances having the query's sense", fontsize=9)
    fig.text(0.5, 0.005, "panels: ℓ = number of same-lemma instances in the database (lemma frequency); "
             "r = share of them with the query's sense (sense proportion); n = queries in the panel",
             ha="center", va="bottom", fontsize=7.5)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
