"""CWE similarity ranking: evaluate a model on a sense-annotated corpus.

Pipeline: read the corpus into ``SenseInstance``s -> D = train split, Q = the rest
-> drop query senses with fewer than ``min_sense_count`` instances in D -> embed
every target (mean of subwords at one layer) -> rank same-lemma D instances by
cosine -> one record per query (hits of the top 50, R, N, bucket); ``evaluate`` aggregates
them (``results.py``: AP@50 and the paper's pooled precision, with exact random and oracle
figures, overall and per (frequency x sense proportion) bucket).

Buckets (Table 1): ℓ is the query sense's frequency in D (``label_freq_in_train`` in
the authors' code, which produced Table 1; ``bucket_by="lemma"``: the lemma's
frequency, as the paper's text says); r = R / N, the share of the query's sense
among its lemma's D instances. For OntoNotes the authors' lemmas carry their POS
(``make_v``), so r = R / count(lemma+POS in D), while retrieval still pools every
D instance of the lemma.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Sequence, TypedDict

import numpy as np
from tqdm.auto import tqdm

from lexprobe.benchmarks.base import Records
from lexprobe.benchmarks.senserank.config import SenseConfig
from lexprobe.benchmarks.senserank.ranking import RankedQuery, RankingReport, lemma_key, plan_ranking, rank_lemma
from lexprobe.benchmarks.senserank.recipe import RECIPES
from lexprobe.benchmarks.senserank.store import EmbeddingStore, sentence_digest
from lexprobe.cache import partial_path, resume_key
from lexprobe.data.instances import SenseInstance
from lexprobe.distributed import assign, barrier, broadcast, context, run_units, token_counts
from lexprobe.errors import DataError, LexprobeError
from lexprobe.metrics import retrieval as R
from lexprobe.provenance import model_revision
from lexprobe.validation import Rule

CHUNK = 2048  # sentences per append to the embedding store (what an interruption can lose per rank)


#: corpora whose sense proportion r divides by the lemma+POS count (the authors' lemma "make_v")
RARITY_BY_LEMMA_POS = ("ontonotes",)


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


def select_instances(instances: Sequence[SenseInstance], cfg: SenseConfig) -> tuple[list, list, dict]:
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
        kept = {key(q) for q in queries}
        database = [d for d in database if key(d) in kept]
    info.update(database=len(database), queries=len(queries))
    return database, queries, info


def authors_semcor(cfg: SenseConfig) -> bool:
    """SemCor read as the authors' code reads it (``data/semcor.py: authors_semcor_instances``):
    sentence split with seed 42, synset_lemma labels, pools keyed by ``label.split("_")[0]``,
    and r divided by the count of the label's WordNet lemma name in D."""
    return cfg.corpus == "semcor" and RECIPES[cfg.recipe].authors_semcor


def load_instances(cfg: SenseConfig) -> list[SenseInstance]:
    """The corpus; under ``recipe="authors"`` SemCor as the authors' code reads it (a recipe with
    ``semcor_sentence_split`` alone: the paper's reader with the authors' sentence split)."""
    recipe = RECIPES[cfg.recipe]
    if cfg.corpus == "semcor" and (recipe.authors_semcor or recipe.semcor_sentence_split):
        from lexprobe.data.semcor import AUTHORS_SEED, authors_semcor_instances, semcor_instances

        if cfg.path is not None and not Path(cfg.path).exists():
            raise DataError(f"semcor data not found at {cfg.path}; check --path")
        if authors_semcor(cfg):
            return authors_semcor_instances(cfg.path)
        return semcor_instances(cfg.path, seed=AUTHORS_SEED, split_by="sentence")
    from lexprobe.data.corpora import load_corpus

    return load_corpus(cfg.corpus, cfg.path, seed=cfg.seed)


def store_path(out: str | Path) -> Path:
    """The embedding store beside the output: ``<out>.embeddings/``."""
    return Path(str(out) + ".embeddings")


def rank_senses(cfg: SenseConfig, instances, embedder, progress: bool, out: str | Path | None, run_key=None,
                store_row: int = 0, log_stage: str | None = None, store_chunk: int | None = None) -> Records | None:
    """The method's run: embed, rank, one record per query (the pipeline above). ``run_key``: the resume key's
    maker (``Job.key``). ``store_row``, ``log_stage``, ``store_chunk``: a layer sweep's vectors of every layer
    share one store (row ``store_row`` is this layer), each layer's rankings have their own log, appended in
    small chunks."""
    ctx = context()
    t0 = time.time()
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
    if out is None and ctx.enabled:
        raise LexprobeError("a distributed sense-ranking run needs --out on a filesystem every rank sees")
    t1 = time.time()
    # queries whose sense is too rare in D are never ranked: do not spend time encoding them
    key = lambda x: lemma_key(x, cfg.match_pos)  # noqa: E731
    db_senses: dict = defaultdict(int)
    for d in database:
        db_senses[(key(d), d.label)] += 1
    embedded_q = np.array([db_senses[(key(q), q.label)] >= cfg.min_sense_count for q in queries], dtype=bool)
    targets = list(database) + [q for q, e in zip(queries, embedded_q) if e]
    with tempfile.TemporaryDirectory(prefix="lexprobe-embeddings-") as tmp:
        identity = embedder_identity(embedder)
        if hasattr(embedder, "encode_jobs"):
            store = EmbeddingStore(store_path(out) if out is not None else Path(tmp) / "store", identity)
            locations, ok, stats = embed_to_store(embedder, targets, store, progress, chunk=store_chunk or CHUNK)
        else:  # e.g. the random baseline: vectors made on the fly, nothing worth storing
            emb = embedder.embed(targets, progress=progress)
            # the reading side of a store, over an array
            store = InMemoryVectors(emb.vectors, identity)  # type: ignore[assignment]
            locations = np.stack([np.zeros(len(targets), np.int64), np.arange(len(targets))], axis=1)
            ok, stats = emb.ok, {"sentences_encoded": len({t.sentence_key for t in targets}), "sentences_from_store": 0}
        t_embed = time.time() - t1
        db_ok = ok[: len(database)]
        q_loc = np.zeros((len(queries), 2), dtype=np.int64)
        q_loc[embedded_q] = locations[len(database):]
        q_ok = np.ones(len(queries), dtype=bool)  # queries dropped as rare are not "unaligned"
        q_ok[embedded_q] = ok[len(database):]
        t2 = time.time()
        report = rank_from_store(cfg, store, database, locations[: len(database)], db_ok, queries, q_loc, q_ok,
                                 device=ranking_device(embedder),
                                 log_base=partial_path(out, log_stage) if out else None, layer=store_row,
                                 run_key=run_key)
    if report is None:  # another rank than 0: rank 0 writes the result
        return None
    t_rank = time.time() - t2
    records = query_records(cfg, database, queries, report, info,
                            timing={"read_s": t_read, "embed_s": t_embed, "rank_s": t_rank,
                                    "total_s": time.time() - t0}, db_ok=db_ok)
    records.counts.update(sentences_encoded=stats["sentences_encoded"],
                          sentences_from_store=stats["sentences_from_store"])
    return records


class InMemoryVectors:
    """``EmbeddingStore``'s reading side over an array (one row per target, writer 0)."""

    def __init__(self, vectors: np.ndarray, identity: dict):
        self.vectors, self.identity = np.asarray(vectors, dtype=np.float32), identity

    def fetch(self, locations: np.ndarray, layer: int = 0) -> np.ndarray:
        return self.vectors[np.asarray(locations, dtype=np.int64).reshape(-1, 2)[:, 1]]


def embedder_identity(embedder) -> dict:
    """What a stored vector depends on: the weights, the layer(s), max length and dtype."""
    describe = embedder.describe() if hasattr(embedder, "describe") else {}
    path = getattr(embedder, "path", None) or describe.get("name", "")
    model = getattr(embedder, "model", None)
    return {"model": model_revision(str(path)), "embedder": describe,
            "dtype": str(getattr(model, "dtype", "float32"))}


def ranking_device(embedder):
    """The embedder's GPU, if it has one; None ranks with numpy on the CPU."""
    dev = getattr(embedder, "device", None)
    return dev if dev is not None and getattr(dev, "type", "cpu") == "cuda" else None


def embed_to_store(embedder, targets: Sequence[SenseInstance], store: EmbeddingStore, progress: bool = True,
                   chunk: int = CHUNK):
    """Embed every distinct sentence not yet in ``store``; returns (writer, row) per target, aligned flags, stats.

    Sentences are dealt to ranks by token count and appended to each rank's files in
    chunks of ``chunk`` sentences, so an interruption loses at most one chunk per rank.
    """
    ctx = context()
    sentences: dict[str, tuple[tuple[str, ...], set]] = {}
    digests = []
    for t in targets:
        d = sentence_digest(t.tokens)
        digests.append(d)
        sentences.setdefault(d, (tuple(t.tokens), set()))[1].add(t.index)
    pending = None
    if ctx.is_main:
        store.prepare()
        store.load_index()
        pending = []
        for d, (_, idx) in sentences.items():
            stored = set(store.entries[d][2]) if d in store.entries else set()
            if not idx <= stored:  # a stored sentence missing a target is embedded again with all of them
                pending.append((d, sorted(idx | stored)))
    pending = broadcast(pending)
    jobs = [(sentences[d][0], idx) for d, idx in pending]
    costs = token_counts(embedder, [" ".join(tokens) for tokens, _ in jobs])
    mine = [jobs[i] for i in assign(costs, ctx.world_size)[ctx.rank]]
    mine.sort(key=lambda j: (-len(" ".join(j[0])), j))  # longest first: similar lengths share a batch
    writer = store.writer(ctx.rank)
    bar = tqdm(total=len(mine), unit="sent", desc="encoding", disable=not (progress and ctx.is_main), leave=False)
    try:
        for start in range(0, len(mine), chunk):
            part = mine[start : start + chunk]
            encoded = embedder.encode_jobs([(tokens, list(idx)) for tokens, idx in part])
            writer.append([sentence_digest(tokens) for tokens, _ in part], [idx for _, idx in part],
                          [v for v, _ in encoded], [m for _, m in encoded])
            bar.update(len(part))
    finally:
        writer.close()
        bar.close()
    barrier()
    store.load_index()
    if pending and not all(d in store.entries for d, _ in pending):
        raise LexprobeError(f"embeddings written by other ranks are not visible in {store.root}; "
                            "put --out on a filesystem every rank sees")
    locations = np.zeros((len(targets), 2), dtype=np.int64)
    ok = np.zeros(len(targets), dtype=bool)
    for i, (t, d) in enumerate(zip(targets, digests)):
        writer_id, row, targets_in, flags = store.entries[d]
        j = targets_in.index(t.index)
        locations[i] = (writer_id, row + j)
        ok[i] = flags[j] == "1"
    stats = {"sentences_encoded": len(pending), "sentences_from_store": len(sentences) - len(pending)}
    return locations, ok, stats


class RankedRecord(TypedDict):
    """One ranked query as the resume log keeps it (``rank_from_store``)."""

    q: int
    top: list[int]
    scores: list[float]
    hits: Annotated[str, Rule(lambda s: set(s) <= {"0", "1"}, "a string of 0/1 hits")]
    R: int
    N: int


def rank_from_store(cfg, store: EmbeddingStore, database, db_loc, db_ok, queries, q_loc, q_ok, device=None,
                    log_base: Path | None = None, layer: int = 0, run_key=None) -> RankingReport | None:
    """Rank lemma by lemma, reading only each lemma's vectors (row ``layer`` of a multi-layer
    store) from the store; lemmas are resume units (and are dealt to ranks by |Q| x |D|).
    Rank 0 gets the report."""
    report, pools, by_lemma = plan_ranking(database, queries, cfg.min_sense_count, cfg.match_pos, db_ok, q_ok)
    lemmas = sorted(by_lemma, key=str)
    units = [json.dumps(k) for k in lemmas]

    def compute(indices: list[int]) -> list[list[dict]]:
        records = []
        for i in indices:
            lem = lemmas[i]
            qidx, pool = by_lemma[lem], pools[lem]
            ranked = rank_lemma(lem, qidx, pool, store.fetch(q_loc[qidx], layer), store.fetch(db_loc[pool], layer),
                                queries, database, report.sense_freq, cfg.k, device)
            records.append([{"q": int(r.query), "top": r.top.tolist(), "scores": np.round(r.scores, 6).tolist(),
                             "hits": "".join(map(str, r.hits.tolist())), "R": r.n_relevant, "N": r.n_candidates}
                            for r in ranked])
        return records

    items = [[_instance_key(x) for x in database], [_instance_key(x) for x in queries]]
    options = {"store": store.identity, "layer": layer, "k": cfg.k, "min_sense_count": cfg.min_sense_count,
               "match_pos": cfg.match_pos}
    # the run's key (``evaluate``'s: weights, method, recipe, config) and what the ranking read
    key = run_key(items, **options) if run_key is not None else resume_key(
        items, str(store.identity.get("model")), None, options)
    per_lemma = run_units(units, compute, [len(by_lemma[k]) * len(pools[k]) for k in lemmas], step=64,
                          log_base=log_base, log_key=key, record=list[RankedRecord])
    if per_lemma is None:
        return None
    report.ranked = sorted(
        (RankedQuery(r["q"], np.asarray(r["top"], dtype=np.int64), np.asarray(r["scores"], dtype=np.float32),
                     np.array([int(h) for h in r["hits"]], dtype=np.int8), r["R"], r["N"])
         for recs in per_lemma for r in recs),
        key=lambda r: r.query,
    )
    return report


def context_window(tokens, index: int, width: int = 12) -> str:
    """The query's sentence around its target (``width`` tokens each side), the target in [brackets]: what the
    report's items page shows so that a reader sees the use, not only its key."""
    tokens = list(tokens)
    if not 0 <= index < len(tokens):
        return " ".join(tokens)
    left, right = max(0, index - width), min(len(tokens), index + width + 1)
    return " ".join((["…"] if left else []) + tokens[left:index] + [f"[{tokens[index]}]"] + tokens[index + 1:right]
                    + (["…"] if right < len(tokens) else []))


def _instance_key(x: SenseInstance) -> list:
    return [x.doc_id, x.sent_id, list(x.tokens), x.index, x.lemma, x.pos, x.label, x.split]


def rarity_group(cfg, inst: SenseInstance):
    """What r = R / N divides by when it is not the query's retrieval pool: the lemma+POS
    (OntoNotes), the label's WordNet lemma name (the authors' SemCor); else None."""
    if cfg.corpus in RARITY_BY_LEMMA_POS:
        return (inst.lemma, inst.pos)
    if authors_semcor(cfg):
        from lexprobe.data.semcor import authors_lemma_of_label

        return authors_lemma_of_label(inst.label)
    return None


def rarity_denominators(cfg, database: Sequence[SenseInstance], db_ok=None):
    """N of r = R / N per query: None (the same-lemma pool) or a ``rarity_group`` -> count map."""
    if cfg.corpus not in RARITY_BY_LEMMA_POS and not authors_semcor(cfg):
        return None
    ok = np.ones(len(database), bool) if db_ok is None else np.asarray(db_ok, bool)
    counts: dict = defaultdict(int)
    for d, good in zip(database, ok):
        if good:
            counts[rarity_group(cfg, d)] += 1
    return counts


def query_records(cfg: SenseConfig, database, queries, report, info, timing, db_ok=None) -> Records:
    """One record per ranked query (its hits, R, N and bucket), and what the run counted; ``evaluate``
    aggregates them (``SenseRank.aggregate``: pooled P@k curves, exact random and oracle figures)."""
    freq_edges, rarity_edges = cfg.bucket_edges
    per_query = []
    single_sense = 0
    pos_counts = rarity_denominators(cfg, database, db_ok)
    for rq in report.ranked:
        q = queries[rq.query]
        denominator = rq.n_candidates if pos_counts is None else pos_counts.get(rarity_group(cfg, q), 0)
        rarity = rq.n_relevant / denominator if denominator else 1.0
        single_sense += rarity == 1.0
        freq = rq.n_relevant if cfg.bucket_by == "sense" else rq.n_candidates
        per_query.append({
            "id": f"{q.doc_id}#{q.sent_id}#{q.index}",
            "lemma": q.lemma, "pos": q.pos, "label": q.label, "context": context_window(q.tokens, q.index),
            "n_candidates": rq.n_candidates, "n_relevant": rq.n_relevant, "rarity": round(rarity, 6),
            "bucket_freq": freq,
            "bucket": R.bucket_of(freq, rarity, freq_edges, rarity_edges),
            "ap": round(R.average_precision(rq.hits, rq.n_relevant, cfg.k), 6),
            "hits": "".join(str(int(h)) for h in rq.hits),
            "top": [database[i].label for i in rq.top[:5]],
        })
    counts = dict(info)
    counts.update(
        ranked_queries=len(report.ranked),
        dropped_rare_sense=report.dropped_rare_sense,
        dropped_unaligned=report.dropped_unaligned,
        database_unaligned=report.db_unaligned,
        single_sense_queries=single_sense,
        lemmas_in_database=len(report.lemma_freq),
    )
    return Records(per_query, items={"database": database, "queries": queries}, counts=counts, tasks=[cfg.corpus],
                   timing={k: round(v, 2) for k, v in timing.items()})

