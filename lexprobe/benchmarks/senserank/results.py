"""Sense-ranking results in schema 2: per-query values and their aggregation, items-page rows.

One task per corpus (``semcor``, ...); slices are ``all`` and the paper's (ℓ x r) buckets;
metrics ``pooled`` (the paper's MAP@50: mean pooled P@k, k = 1..50) and ``map``
(per-query AP@50); baselines ``random`` (exact expectation) and ``oracle``; the P@k
curves under ``breakdowns[corpus]["curves"][slice]``. A layer sweep holds one such block
per layer under ``sweep`` and the best layer's in ``metrics``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lexprobe.core.contract import Unit
from lexprobe.core.result_schema import model_name
from lexprobe.metrics import retrieval as R


def corpus(result: dict) -> str:
    if result.get("tasks"):
        return result["tasks"][0]
    return str((result.get("config") or {}).get("corpus") or "?")  # a result's sections being built


@dataclass
class Query(Unit):
    """A ranked query as ``evaluate`` aggregates it: ``values`` (its AP@k and its mean of hits(k)/k over
    k = 1..K) and its hits(k) (the model's, or a baseline's expectation), which a slice's pooled P@k curve
    sums; ``bucket``: its slice (None: in no bucket, e.g. r = 1), while ``pos`` stays its part of speech
    (``compare``'s slices). ``oracle``: the oracle's figures, whose AP@k is 1 by construction."""

    cumulative: np.ndarray = field(default_factory=lambda: np.zeros(0))
    bucket: str | None = None
    oracle: bool = False


def unit_values(result: dict, of: str = "model") -> list[Query]:
    """The queries of ``result`` with the model's figures, or (``of``) the exact ``random`` or ``oracle`` ones."""
    k = int((result.get("config") or {}).get("k", 50))
    ranks = np.arange(1, k + 1, dtype=np.float64)
    out = []
    for r in result["instances"]:
        relevant, candidates = r["n_relevant"], r["n_candidates"]
        ap: float | None
        if of == "model":
            hits = np.array([int(c) for c in r["hits"]], dtype=np.int64)
            cumulative, ap = R.cumulative_hits(hits, k), R.average_precision(hits, relevant, k)
        elif of == "random":
            cumulative = R.random_expected_hits(relevant, candidates, k)
            ap = R.random_expected_ap(relevant, candidates, k)
        else:
            cumulative, ap = R.oracle_hits(relevant, candidates, k), None
        out.append(Query(r["id"], corpus(result), r["pos"], {"pooled": float(np.mean(cumulative / ranks)), "map": ap},
                         cumulative, r.get("bucket"), oracle=of == "oracle"))
    return out


def slices(result: dict, units: list[Query]) -> dict[str, list[Query]]:
    """Table 1's (ℓ x r) buckets in table order (an empty one too), then ``all``."""
    from lexprobe.benchmarks.senserank.config import bucket_edges

    names = R.bucket_names(*bucket_edges(result["config"]["freq_edges"], result["config"]["rarity_edges"]))
    return {name: [u for u in units if u.bucket == name] for name in names} | {"all": list(units)}


def pk_curve(units: list[Query]) -> np.ndarray:
    """Pooled P@k, k = 1..K: hits(k) summed over the queries / (queries x k)."""
    total = np.zeros(len(units[0].cumulative))
    for u in units:
        total += u.cumulative
    return total / (len(units) * np.arange(1, len(total) + 1, dtype=np.float64))


def aggregate(means: dict, units: list[Query]) -> dict:
    """A slice's figures from the per-query means (``contract.mean_aggregate``'s): ``pooled`` is the
    paper's MAP@50, the mean of the pooled P@k curve (not a mean of per-query values); the oracle's AP is 1."""
    if not units:
        return means  # {"n": 0, "ci": {}}: no figure
    return {"pooled": float(pk_curve(units).mean()), "map": 1.0 if units[0].oracle else means["map"],
            "n": means["n"], "ci": means["ci"]}


def breakdowns(result: dict) -> dict:
    """The P@k curves (model, random, oracle) of every slice that has queries."""
    of = {name: unit_values(result, name) for name in ("model", "random", "oracle")}
    cut = {name: slices(result, units) for name, units in of.items()}
    curves = {s: {name: [float(x) for x in pk_curve(cut[name][s])] for name in of}
              for s, members in cut["model"].items() if members}
    return {corpus(result): {"curves": curves}}


FAILURE_COLUMNS = [("model", "Model"), ("task", "Corpus"), ("pos", "POS"), ("item", "Query (target in [brackets])"),
                   ("gold", "Query sense"), ("chosen", "Senses of the nearest neighbours (✓ same sense)"),
                   ("score", "AP@50 (random), %")]


def failure_rows(result: dict) -> list[dict]:
    """One row per query; a failure (``ok`` false) ranks its same-sense instances no better than chance: AP@50
    below R/N, the share of the lemma's database instances with the query's sense (``SenseRank.failure_note``).
    A sense that is a WordNet sense key reads with its gloss beside it (``glosses``); the neighbours one a line."""
    glossed = glosses({q.get("label", "") for q in result["instances"]}
                      | {label for q in result["instances"] for label in q.get("top", [])})

    def sense(label: str, said: set | None = None) -> str:
        """The label with its gloss, the first time a row names it (``said``: the row's labels glossed)."""
        if label not in glossed or (said is not None and label in said):
            return label
        if said is not None:
            said.add(label)
        return f"{label} ({glossed[label]})"

    rows = []
    for q in result["instances"]:
        hits, top = q.get("hits", ""), q.get("top", [])
        said = {q.get("label", "")}  # the query's sense is glossed in its own column
        chosen = "\n".join(f"{'✓' if h == '1' else '✗'} {sense(label, said)}" for h, label in zip(hits, top))
        r, n = q.get("n_relevant"), q.get("n_candidates")  # R/N: a random order's mean precision
        ap, chance = q.get("ap", 0.0), (r / n if r is not None and n else None)
        item = f"{q.get('lemma', '')}: {q['context']} ({q['id']})" if q.get("context") else f"{q.get('lemma', '')} ({q['id']})"
        rows.append({"task": corpus(result), "item": item, "gold": sense(q.get("label", "")),
                     "chosen": chosen, "ok": ap >= chance if chance is not None else hits[:1] == "1",
                     "score": f"{100 * ap:.1f}" + (f" ({100 * chance:.1f})" if chance is not None else ""),
                     "model": model_name(result), "pos": q.get("pos", "")})
    return rows


#: a WordNet sense key (``interest%1:09:00::``, ``mean%5:00:00:average:00``)
SENSE_KEY = r"[^\s%]+%[1-5]:\d\d:\d\d:[^\s:]*:\d*"


def glosses(labels: set[str]) -> dict[str, str]:
    """The WordNet definition of each label that is a sense key (SemCor's senses; other corpora's labels are
    their own inventories', left as they are); none where WordNet is not installed (the keys stay readable)."""
    import logging
    import re

    keys = sorted(label for label in labels if re.fullmatch(SENSE_KEY, label))
    if not keys:
        return {}
    from lexprobe.data.wordnet import load_wordnet
    from lexprobe.errors import LexprobeError

    try:
        wordnet = load_wordnet()
    except (LexprobeError, LookupError, OSError) as err:
        logging.getLogger(__name__).warning("sense keys shown without their glosses: %s", err)
        return {}
    out = {}
    for key in keys:
        try:
            out[key] = wordnet.lemma_from_key(key).synset().definition()
        except Exception:  # noqa: BLE001 - NLTK raises WordNetError or others for a key it lacks: no gloss
            continue
    return out


def bucket_columns(result: dict) -> list[str]:
    slices = list(result["metrics"][corpus(result)])
    return [s for s in slices if s != "all"] + ["all"]


def sweep_rows(result: dict):
    """(layer, metrics of all, random of all, oracle of all) per swept layer."""
    task = corpus(result)
    for layer, v in result["sweep"]["values"].items():
        yield (layer, v["metrics"][task]["all"], v["baselines"]["random"][task]["all"],
               v["baselines"]["oracle"][task]["all"])
