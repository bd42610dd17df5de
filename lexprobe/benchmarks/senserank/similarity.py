"""CWE similarity ranking: the ``similarity`` method, from a corpus to one record per query.

Pipeline: the corpus's ``SenseInstance``s -> D = train split, Q = the rest -> drop queries whose sense has
fewer than ``min_sense_count`` instances in D -> a ``TokenVector`` request (``asking.requests``: the mean of
the target's subword vectors at a layer) per target -> rank same-lemma D instances by cosine (``ranking.py``)
-> one record per query (hits of the top k, R, N, bucket), which ``results.py`` aggregates (AP@50 and the
paper's pooled precision, exact random and oracle figures, per (frequency x sense proportion) bucket).

Why a store: a million targets at 768 dimensions are 3 GB of float32 per layer, so each chunk of sentences
is one engine call whose answers are appended to the memory-mapped store (``store.py``, ``<out>.embeddings/``;
a temporary folder without ``--out``), and ranking reads one lemma's vectors at a time. An interruption loses
at most one chunk per rank; a rerun asks only for what the store lacks. The random baseline's vectors depend
on the sentence's identity, which the store's keys (token digests) do not hold: they stay in memory. A layer
sweep (``--layers``, ``hidden_states`` indices) asks every layer in the same requests (one forward pass per
sentence), stores rows ``[layers, dim]`` and ranks each layer as a ``--layer L`` run with its own resume log
(``<out>.layer<L>.partial.jsonl``).

Buckets (Table 1; docs/senserank.md): ℓ is the query sense's frequency in D (the authors' code) or the lemma's
(``bucket_by="lemma"``, the paper's text); r = R / N, by lemma+POS for OntoNotes (``RARITY_BY_LEMMA_POS``).
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, Sequence, TypedDict

import numpy as np
from tqdm.auto import tqdm

from lexprobe import estimate
from lexprobe.asking.engine import as_engine
from lexprobe.asking.requests import TokenVector
from lexprobe.benchmarks.senserank.config import SenseConfig, parse_layers
from lexprobe.benchmarks.senserank.ranking import RankedQuery, RankingReport, lemma_key, plan_ranking, rank_lemma
from lexprobe.benchmarks.senserank.recipe import RECIPES
from lexprobe.benchmarks.senserank.store import EmbeddingStore, StoreWriter, sentence_digest
from lexprobe.cache import partial_path
from lexprobe.core.contract import Job, Method, Records, sections
from lexprobe.core.options import recorded
from lexprobe.data.instances import SenseInstance
from lexprobe.distributed import assign, barrier, broadcast, context, remove_logs
from lexprobe.errors import DataError, LexprobeError
from lexprobe.metrics import retrieval as R
from lexprobe.provenance import model_revision
from lexprobe.tasks import loop
from lexprobe.tasks.loop import Units
from lexprobe.validation import Rule

CHUNK = 2048  # sentences per engine call and store append (what an interruption can lose per rank)
PROBE_CHUNK = 128  # the first chunk's sentences where an estimate is in force (``estimate``)


#: corpora whose sense proportion r divides by the lemma+POS count (the authors' lemma "make_v")
RARITY_BY_LEMMA_POS = ("ontonotes",)


class Similarity(Method):
    name = "similarity"
    requests = ((TokenVector,),)

    def run(self, job: Job) -> Records | None:
        return rank_senses(job)

    def finished(self, out: Path, config: SenseConfig, result: dict | None = None) -> None:
        """The vector store removed (``--keep-embeddings`` keeps it), a layer sweep's ranking logs too."""
        for layer in ((result or {}).get("sweep") or {}).get("values", ()):
            remove_logs(partial_path(out, f"layer{int(layer)}"))
        if not config.keep_embeddings:
            shutil.rmtree(store_path(out), ignore_errors=True)


def rank_senses(job: Job) -> Records | None:
    """The method's run (the pipeline above): one record per query, or a sweep's per-layer sections."""
    cfg, scorer, out = job.config, job.scorer, job.out
    t0 = time.time()
    layers = asked_layers(cfg, scorer)
    instances, pdep_counts = job.items, None
    if cfg.corpus == "pdep":  # the paper's 48 prepositions and sense filters (PDEP corpus rules)
        from lexprobe.data.pdep_rules import filter_pdep_instances

        instances, pdep_counts = filter_pdep_instances(instances)
        if not instances:
            raise DataError("no PDEP instance passes the corpus rules (48 prepositions, sense filters)")
    database, queries, info = select_instances(instances, cfg)
    if pdep_counts is not None:
        info["pdep_rules"] = dict(pdep_counts)
    t_read = time.time() - t0
    if out is None and context().enabled:
        raise LexprobeError("a distributed sense-ranking run needs --out on a filesystem every rank sees")
    t1 = time.time()
    # queries whose sense is too rare in D are never ranked: do not spend time encoding them
    key = lambda x: lemma_key(x, cfg.match_pos)  # noqa: E731
    db_senses = Counter((key(d), d.label) for d in database)
    embedded_q = np.array([db_senses[(key(q), q.label)] >= cfg.min_sense_count for q in queries], dtype=bool)
    targets = list(database) + [q for q, e in zip(queries, embedded_q) if e]
    words_alone = job.recipe.words_alone
    identity = store_identity(scorer, layers, words_alone)
    sweep = cfg.layers is not None
    per_layer: dict[int, Records] = {}
    with tempfile.TemporaryDirectory(prefix="lexprobe-embeddings-") as tmp:
        store: Any
        if getattr(scorer, "kind", None) == "random":  # drawn from a seed on the fly: nothing worth storing
            store = InMemoryVectors(identity)
            locations, ok, stats = store.ask(job.engine, targets, layers[0], words_alone)
        else:
            store = EmbeddingStore(store_path(out) if out is not None else Path(tmp) / "store", identity)
            chunk = 4 * int(getattr(scorer, "batch_size", 32) or 32) if sweep else CHUNK
            locations, ok, stats = embed_to_store(job.engine, targets, store, layers, words_alone, job.progress,
                                                  chunk)
        t_embed = time.time() - t1
        db_ok = ok[: len(database)]
        q_loc = np.zeros((len(queries), 2), dtype=np.int64)
        q_loc[embedded_q] = locations[len(database):]
        q_ok = np.ones(len(queries), dtype=bool)  # queries dropped as rare are not "unaligned"
        q_ok[embedded_q] = ok[len(database):]
        for row, layer in enumerate(layers):
            t2 = time.time()
            report = rank_from_store(cfg, store, database, locations[: len(database)], db_ok, queries, q_loc, q_ok,
                                     device=ranking_device(scorer), layer=row, job=job,
                                     log_base=partial_path(out, f"layer{layer}" if sweep else None) if out else None)
            if report is None:  # another rank than 0: rank 0 writes the result
                return None
            per_layer[layer] = query_records(cfg, database, queries, report, info, db_ok=db_ok, timing={
                "read_s": t_read, "embed_s": t_embed, "rank_s": time.time() - t2, "total_s": time.time() - t0})
            per_layer[layer].counts.update(stats)
    read_at = {} if getattr(scorer, "layer_index", None) is None else {"layer": cfg.layer,
                                                                        "hidden_states_index": layers[0]}
    if not sweep:
        per_layer[layers[0]].model = read_at  # the layer asked, not the one the model was loaded at
        return per_layer[layers[0]]
    config = recorded(cfg)  # each layer's records aggregated as a single run's
    values = {str(layer): {k: v for k, v in sections(job.benchmark, records, "similarity", config).items()
                           if k in ("metrics", "baselines")} for layer, records in per_layer.items()}
    best = max(layers, key=lambda x: (values[str(x)]["metrics"][cfg.corpus]["all"].get("pooled") or 0.0, -x))
    first = per_layer[layers[0]]
    return Records([], items=first.items, counts=first.counts, tasks=[cfg.corpus],
                   model={"layer": best, "hidden_states_index": best, "layers": layers},  # metrics: the best's
                   timing={"total_s": round(time.time() - t0, 2)},
                   sections={**values[str(best)], "breakdowns": {},
                             "sweep": {"parameter": "layer", "values": values, "best": best}})


def asked_layers(cfg: SenseConfig, scorer: Any) -> list[int]:
    """The hidden_states indices asked, checked against the model before any work: ``--layer``'s, or each of a
    sweep's (``--layers``, in the order given, repeats dropped)."""
    index = getattr(scorer, "layer_index", None)  # a transformer's layers (the random baseline has none)
    if cfg.layers is None:
        return [index(cfg.layer) if index else cfg.layer]
    if index is None:
        raise LexprobeError(f"--layers sweeps a transformer's hidden states; model {getattr(scorer, 'name', '?')!r} "
                            "has no layers (random scores or static vectors): drop --layers or pass a transformer")
    if context().enabled:
        raise LexprobeError("a layer sweep runs in one process; start it without torchrun")
    wanted = parse_layers(cfg.layers)
    return list(dict.fromkeys(index(x) for x in (range(scorer.n_layers + 1) if wanted == "all" else wanted)))


def store_path(out: str | Path) -> Path:
    """The embedding store beside the output: ``<out>.embeddings/``."""
    return Path(str(out) + ".embeddings")


def store_identity(scorer: Any, layers: list[int], words_alone: bool) -> dict:
    """What a stored vector depends on: the weights, the layers of a row, the tokenisation, max length and dtype."""
    describe = scorer.describe() if hasattr(scorer, "describe") else {}
    path = getattr(scorer, "path", None) or describe.get("name", "")
    return {"model": model_revision(str(path)), "layers": layers, "words_alone": words_alone,
            "embedder": {k: v for k, v in describe.items() if k not in ("layer", "hidden_states_index", "words_alone")},
            "dtype": str(getattr(getattr(scorer, "model", None), "dtype", "float32"))}


def ranking_device(scorer: Any):
    """The model's GPU, if it has one; None ranks with numpy on the CPU."""
    dev = getattr(scorer, "device", None)
    return dev if dev is not None and getattr(dev, "type", "cpu") == "cuda" else None


class InMemoryVectors:
    """``EmbeddingStore``'s reading side over an array (one row per target, writer 0): the random baseline's."""

    def __init__(self, identity: dict):
        self.identity, self.vectors = identity, np.zeros((0, 0), dtype=np.float32)

    def ask(self, engine: Any, targets: Sequence[SenseInstance], layer: int, words_alone: bool):
        """Every target's vector (seeded by its document and sentence ids too); locations, aligned, stats
        (``engine``: an ``Engine``, or a backend to make one for)."""
        answers = as_engine(engine)([TokenVector(tuple(t.tokens), t.index, layer, words_alone, (t.doc_id, t.sent_id))
                                  for t in targets])
        self.vectors = np.array(answers, dtype=np.float32) if answers else np.zeros((0, 1), dtype=np.float32)
        locations = np.stack([np.zeros(len(targets), np.int64), np.arange(len(targets))], axis=1)
        stats = {"sentences_encoded": len({t.sentence_key for t in targets}), "sentences_from_store": 0}
        return locations, np.ones(len(targets), dtype=bool), stats

    def fetch(self, locations: np.ndarray, layer: int = 0) -> np.ndarray:
        return self.vectors[np.asarray(locations, dtype=np.int64).reshape(-1, 2)[:, 1]]


def embed_to_store(engine: Any, targets: Sequence[SenseInstance], store: EmbeddingStore, layers: list[int],
                   words_alone: bool, progress: bool = True, chunk: int = CHUNK):
    """Ask the vectors of every distinct sentence not yet in ``store``; returns (writer, row) per target, aligned
    flags, stats. Sentences are dealt to ranks by token count; each chunk of ``chunk`` sentences is one engine
    call (a fresh engine: the answers go to the store, not to a memo) appended to the rank's files at once.
    ``engine``: an ``Engine``, or a backend to make one for."""
    engine = as_engine(engine)
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
    costs = engine.costs([" ".join(tokens) for tokens, _ in jobs])
    shares = assign(costs, ctx.world_size)[ctx.rank]
    mine, cost_of = [jobs[i] for i in shares], {id(jobs[i]): costs[i] for i in shares}
    mine.sort(key=lambda j: (-len(" ".join(j[0])), j))  # longest first: similar lengths share a batch
    writer = store.writer(ctx.rank)
    bar = tqdm(total=len(mine), unit="sent", desc="encoding", disable=not (progress and ctx.is_main), leave=False)
    held: list = []
    # the encoding is most of a run's time and not in ``run_units``: the estimate in force is told of it here
    watched = estimate.stage([cost_of[id(j)] for j in mine], enabled=not ctx.enabled, unit="sentence")
    mine = watched.order(mine)  # (a probe that stops: a random sample of the sentences, not the longest first)
    starts = list(range(0, len(mine), chunk))
    if watched.watch is not None and len(mine) > PROBE_CHUNK:  # an estimate's probe: seconds, not a whole chunk
        starts = [0, *range(PROBE_CHUNK, len(mine), chunk)]
    try:
        for start, end in zip(starts, [*starts[1:], len(mine)]):
            part = mine[start:end]
            answers = iter(engine.fresh()([TokenVector(tokens, i, layer, words_alone)
                                            for tokens, idx in part for i in idx for layer in layers]))
            # per sentence: its tokens, targets and each target's answers at every layer
            held = _append(writer, held + [(tokens, idx, [[next(answers) for _ in layers] for _ in idx])
                                           for tokens, idx in part])
            bar.update(len(part))
            watched.batch(len(part), sum(cost_of[id(j)] for j in part))
        watched.end()
        _append(writer, held, final=True)
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


def _append(writer: StoreWriter, done: list, final: bool = False) -> list:
    """Write the sentences of ``done`` (a target without a vector, unaligned, gets a row of zeros); held back
    (returned) while neither the store nor any answer has given the vectors' size, unless ``final`` (a rank
    whose every target is unaligned: rows of size 1, never read)."""
    sizes = [a.shape[-1] for _, _, per in done for answers in per for a in answers if a is not None]
    dim = writer.shape[-1] if writer.shape else (sizes[0] if sizes else (1 if final else None))
    if dim is None or not done:
        return done
    zeros = np.zeros(dim, dtype=np.float32)
    writer.append([tokens for tokens, _, _ in done], [idx for _, idx, _ in done],
                  [np.array([[zeros if a is None else a for a in answers] for answers in per], dtype=np.float32)
                   for _, _, per in done],
                  [np.array([answers[0] is not None for answers in per]) for _, _, per in done])
    return []


def select_instances(instances: Sequence[SenseInstance], cfg: SenseConfig) -> tuple[list, list, dict]:
    """D = train, Q = dev/test instances that may be queries (OntoNotes NOTA senses may not); --pos applied first,
    then the --max-instances lemma sample or the --limit query sample."""
    info: dict = {"corpus_instances": len(instances)}
    if cfg.pos:
        instances = [i for i in instances if i.pos in cfg.pos]
    database = [i for i in instances if i.split == "train"]
    queries = [i for i in instances if i.split != "train" and i.query]
    if not database or not queries:
        raise DataError(f"the corpus needs a train split (database) and a dev/test split (queries); got "
                        f"{len(database)} train and {len(queries)} other instances")
    info.update(database_full=len(database), queries_full=len(queries),
                not_query_senses=sum(1 for i in instances if i.split != "train" and not i.query))
    key = lambda x: lemma_key(x, cfg.match_pos)  # noqa: E731
    sense_count = Counter((key(d), d.label) for d in database)
    eligible = [q for q in queries if sense_count[(key(q), q.label)] >= cfg.min_sense_count]
    rng = random.Random(cfg.seed)
    if cfg.max_instances:
        size = Counter(key(x) for x in [*database, *queries])
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


class RankedRecord(TypedDict):
    """One ranked query as the resume log keeps it (``rank_from_store``)."""

    q: int
    top: list[int]
    scores: list[float]
    hits: Annotated[str, Rule(lambda s: set(s) <= {"0", "1"}, "a string of 0/1 hits")]
    R: int
    N: int


def rank_from_store(cfg, store: EmbeddingStore, database, db_loc, db_ok, queries, q_loc, q_ok, device=None,
                    log_base: Path | None = None, layer: int = 0, job: Job | None = None) -> RankingReport | None:
    """Rank lemma by lemma, reading only each lemma's vectors (row ``layer`` of a multi-layer
    store) from the store; lemmas are resume units (and are dealt to ranks by |Q| x |D|) of ``job``'s loop
    (None: a script's ranking, not logged). Rank 0 gets the report."""
    report, pools, by_lemma = plan_ranking(database, queries, cfg.min_sense_count, cfg.match_pos, db_ok, q_ok)
    lemmas = sorted(by_lemma, key=str)
    units = [json.dumps(k) for k in lemmas]

    def compute(_engine: Any, indices: list[int]) -> list[list[dict]]:
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

    # the run's key (``evaluate``'s: weights, method, recipe, config) and what the ranking read; asked of every run
    # given one, logged or not (``evaluate`` records the first key asked as the result's ``run.job``)
    if log_base is not None and job is None:
        raise ValueError("rank_from_store: a resume log (log_base) is keyed by the run's key: give the job")
    planned = Units(units, [len(by_lemma[k]) * len(pools[k]) for k in lemmas],
                    [[_instance_key(x) for x in database], [_instance_key(x) for x in queries]], list[RankedRecord],
                    64, key_extra={"store": store.identity, "layer": layer, "k": cfg.k,
                                   "min_sense_count": cfg.min_sense_count, "match_pos": cfg.match_pos})
    per_lemma = loop.run(job, planned, compute, log_base=log_base, bar=False)
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


def query_records(cfg: SenseConfig, database, queries, report, info, timing, db_ok) -> Records:
    """One record per ranked query (its hits, R, N and bucket), and what the run counted; ``evaluate``
    aggregates them (``SenseRank.aggregate``: pooled P@k curves, exact random and oracle figures)."""
    freq_edges, rarity_edges = cfg.bucket_edges
    per_query = []
    single_sense = 0
    pos_counts = None  # N of r = R / N: the same-lemma pool, or a count per ``rarity_group``
    if cfg.corpus in RARITY_BY_LEMMA_POS or authors_semcor(cfg):
        pos_counts = Counter(rarity_group(cfg, d) for d, good in zip(database, db_ok) if good)
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
    counts = dict(info, ranked_queries=len(report.ranked), dropped_rare_sense=report.dropped_rare_sense,
                  dropped_unaligned=report.dropped_unaligned, database_unaligned=report.db_unaligned,
                  single_sense_queries=single_sense, lemmas_in_database=len(report.lemma_freq))
    return Records(per_query, items={"database": database, "queries": queries}, counts=counts, tasks=[cfg.corpus],
                   timing={k: round(v, 2) for k, v in timing.items()})

