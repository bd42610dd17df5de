"""Sense ranking's tables: Table 1 per corpus (model, random, oracle per bucket) and layer sweeps, for the report
and, the same tables, for the console (``format_result``)."""

from __future__ import annotations

from dataclasses import replace

from lexprobe.benchmarks.senserank.results import corpus, sweep_rows
from lexprobe.core.result_schema import model_name
from lexprobe.reporting import wrap_text
from lexprobe.tables import (
    Table,
    baseline_label,
    by_group,
    cell,
    digest,
    label,
    name_counts,
    to_text,
    vs_random,
)

#: the two figures of a bucket table, named apart (both are called "MAP@50" somewhere): title, one sentence
METRICS = {
    "pooled": ("pooled precision, the paper's \"MAP@50\"",
               "Pooled precision: at each k = 1..50, the same-sense instances in all queries' top k over (queries x "
               "k), averaged over k: the figure of the paper's Table 1 (`pooled` in the result); a query with R < 50 "
               "same-sense instances cannot reach 100, so the oracle stays below it."),
    "map": ("MAP@50, the mean of per-query average precision",
            "MAP@50: each query's average precision over its top 50 (precision at each rank that holds a same-sense "
            "instance, over min(R, 50)), averaged over queries (`map` in the result); a query with few same-sense "
            "instances reaches 100 here when it ranks them first, which pooled precision does not allow."),
}


def tables(results: list[dict]) -> list[Table]:
    return (bucket_tables([r for r in results if not r.get("sweep")])
            + sweep_tables([r for r in results if r.get("sweep")]))


def bucket_tables(results: list[dict]) -> list[Table]:
    tables = []
    names = name_counts(results)
    for task, members in by_group(results, corpus).items():
        slices = list(dict.fromkeys(s for r in members for s in r["metrics"][task] if s != "all")) + ["all"]

        def cells(tree: dict, key: str, slices: list = slices) -> list:
            return [cell(tree.get(c) if (tree.get(c) or {}).get("n") else None, key, 100.0, 2) for c in slices]

        for metric, (title, what) in METRICS.items():
            table = Table("senserank", f"Sense ranking {task}: {title}", ["Model"] + slices,
                          note=what + " x100; 95% bootstrap intervals over queries in brackets; random and oracle "
                                      "exact.",
                          remarks=[outside_buckets(m) for m in members[:1] if outside_buckets(m)])
            seen = set()
            for r in members:
                if digest(r) in seen:
                    continue
                seen.add(digest(r))
                for base, what in (("random", "Random (exact)"), ("oracle", "Oracle")):
                    table.rows.append([baseline_label(what, r, members)] + cells(r["baselines"][base][task], metric))
            for r in members:
                rnd = cells(r["baselines"]["random"][task], metric)
                table.rows.append([label(r, names)] + [vs_random(c, b) for c, b in zip(cells(r["metrics"][task], metric),
                                                                                         rnd)])
            table.rows.append(["queries"] + [str((members[0]["metrics"][task].get(c) or {}).get("n", 0))
                                             for c in slices])
            tables.append(table)
    return tables


def sweep_tables(results: list[dict]) -> list[Table]:
    tables = []
    for r in results:
        best = r["sweep"]["best"]
        table = Table("senserank", f"Sense ranking {corpus(r)} by layer: {model_name(r)}",
                      ["Layer", "Pooled precision (paper's MAP@50)", "MAP@50 (per-query AP)", "Random (pooled)",
                       "Oracle (pooled)", "Queries"],
                      note=f"x100; layers are hidden_states indices (0 = embeddings); best layer {best} (by pooled "
                           "precision); 95% bootstrap intervals over queries in brackets; random and oracle exact. "
                           + " ".join(what for _, what in METRICS.values()))
        for layer, m, rnd, orc in sweep_rows(r):
            name = f"{layer} (best)" if str(layer) == str(best) else str(layer)
            table.rows.append([name, cell(m, "pooled", 100.0, 2), cell(m, "map", 100.0, 2),
                               cell(rnd, "pooled", 100.0, 2), cell(orc, "pooled", 100.0, 2), m.get("n")])
        tables.append(table)
    return tables


def outside_buckets(result: dict) -> str:
    """What the bucket columns leave out: the queries in no (ℓ x r) bucket (those with r = 1, the query's
    sense being the lemma's only one in the database, as in the paper's code; and any outside the bucket
    edges); empty when the buckets hold every query."""
    task = corpus(result)
    slices = result["metrics"][task]
    total = (slices.get("all") or {}).get("n") or 0
    in_buckets = sum((m or {}).get("n") or 0 for s, m in slices.items() if s != "all")
    left = total - in_buckets
    if left <= 0 or len(slices) == 1:
        return ""
    single = (result.get("counts") or {}).get("single_sense_queries")
    why = (f"{single} with r = 1 (the query's sense is the only sense of its lemma in the database, so any "
           "ranking is perfect; the paper's code leaves them out of the buckets)" if single == left else
           f"of them {single} with r = 1 (the lemma's only sense in the database) and {left - single} outside "
           "the bucket edges" if single else "outside the bucket edges")
    return (f"The buckets hold {in_buckets} of the {total} queries; the other {left} are counted only in "
            f"\"all\": {why}.")


def format_result(result: dict) -> str:
    """What the CLI prints after a run: this result's tables (``tables``) as ``tables.to_text`` prints every
    table, with the intervals their notes announce (a bucket table a line per bucket: its buckets side by side
    do not fit 100 columns with their intervals), and what the run counted."""
    name = model_name(result)  # in each title too: a long name wraps inside its row's cell
    blocks = [[to_text(replace(t, title=t.title if name in t.title else f"{t.title}, {name}"),
                       transpose=not result.get("sweep"))] for t in tables([result])]
    if not result.get("sweep"):
        c = result["counts"]
        blocks[-1].append(wrap_text(
            f"D={c['database']} instances ({c['lemmas_in_database']} lemmas), Q={c['queries']} -> "
            f"{c['ranked_queries']} ranked; dropped {c['dropped_rare_sense']} queries whose sense has "
            f"<{result['config']['min_sense_count']} instances in D, {c['dropped_unaligned']} unaligned queries, "
            f"{c['database_unaligned']} unaligned D targets."))
    return "\n\n".join("\n".join(block) for block in blocks)
