"""Sense ranking's aggregation of per-query records (``contract.sections``) against the reference summary."""

from lexprobe.core.contract import sections
import numpy as np
import pytest

from lexprobe.core.contract import Records
from lexprobe.core.options import recorded
from lexprobe.core.registry import get
from lexprobe.benchmarks.senserank.config import SenseConfig
from lexprobe.metrics import retrieval as R


def _records(n_queries=40, k=3, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_queries):
        n = int(rng.integers(1, 12))
        r = int(rng.integers(1, n + 1))
        ranking = rng.permutation([1] * r + [0] * (n - r))[:k]
        out.append({"id": f"q{i}", "pos": "n", "n_relevant": r, "n_candidates": n,
                    "hits": "".join(map(str, ranking)), "bucket": R.bucket_of(r, r / n, (0, 3, np.inf))})
    return out


def test_sections_of_query_records_equal_the_reference_summary():
    """Per bucket (an empty one too) and overall: the paper's pooled figure as the mean of the pooled P@k
    curve, per-query MAP, the exact random and oracle figures and the curves are ``retrieval.summarize``'s;
    queries with r = 1 are in ``all`` only."""
    k = 3
    records = _records(k=k)
    config = recorded(SenseConfig(corpus="synthetic", k=k, freq_edges="0,3,inf"))
    built = sections(get("senserank"), Records(records, tasks=["synthetic"]), "similarity", config)
    metrics, base = built["metrics"]["synthetic"], built["baselines"]
    names = R.bucket_names((0, 3, np.inf), R.DEFAULT_RARITY_EDGES)
    assert list(metrics) == [*names, "all"]
    assert any(q["bucket"] is None for q in records) and not any(q["bucket"] == "l>=3 r<0.25" for q in records)
    for name in list(metrics):
        members = [q for q in records if name == "all" or q["bucket"] == name]
        ref = R.summarize([R.QueryOutcome(np.array([int(c) for c in q["hits"]]), q["n_relevant"], q["n_candidates"])
                           for q in members], k=k)
        m, rnd, orc = metrics[name], base["random"]["synthetic"][name], base["oracle"]["synthetic"][name]
        if not members:
            assert m == rnd == orc == {"n": 0, "ci": {}} and name not in built["breakdowns"]["synthetic"]["curves"]
            continue
        assert (m["n"], m["pooled"], m["map"]) == (ref["queries"], ref["pooled"], ref["map"])
        assert (rnd["pooled"], rnd["map"], orc["pooled"], orc["map"]) == (
            ref["pooled_random"], ref["map_random"], ref["pooled_oracle"], 1.0)
        for got, keys in ((m, ("pooled", "map")), (rnd, ("pooled_random", "map_random")), (orc, ("pooled_oracle",))):
            assert list(got["ci"]) == [key.split("_")[0] for key in keys]
            for key in keys:
                assert got["ci"][key.split("_")[0]] == pytest.approx(ref["ci"][key], abs=1e-6)
        assert built["breakdowns"]["synthetic"]["curves"][name] == ref["curves"]


def test_the_items_page_reads_sense_keys_with_their_glosses():
    """A SemCor query's sense and its neighbours' are WordNet sense keys: each reads with its WordNet gloss, once a
    row (the query's own in its column); a label that is no sense key (another corpus's inventory) as it is."""
    from lexprobe.benchmarks.senserank.results import failure_rows

    interest, reason = "interest%1:09:00::", "interest%1:07:01::"
    query = {"id": "d#1#2", "lemma": "interest", "pos": "n", "label": interest, "n_candidates": 4, "n_relevant": 2,
             "ap": 1.0, "hits": "1010", "top": [interest, reason, interest, reason]}
    other = {**query, "id": "d#1#3", "label": "bank_01", "top": ["bank_01", "bank_02"], "hits": "10"}
    row, plain = failure_rows({"tasks": ["semcor"], "config": {"corpus": "semcor"}, "model": {"name": "m"},
                               "metrics": {"semcor": {}}, "instances": [query, other]})
    assert row["gold"] == f"{interest} (a sense of concern with and curiosity about someone or something)"
    assert row["chosen"].splitlines() == [f"✓ {interest}", f"✗ {reason} (a reason for wanting something done)",
                                          f"✓ {interest}", f"✗ {reason}"]
    assert (plain["gold"], plain["chosen"]) == ("bank_01", "✓ bank_01\n✗ bank_02")
