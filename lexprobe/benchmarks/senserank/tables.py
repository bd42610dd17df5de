"""Sense ranking's report tables: Table 1 per corpus (model, random, oracle per bucket) and layer sweeps."""

from __future__ import annotations

from lexprobe.benchmarks.senserank.report import corpus, sweep_rows
from lexprobe.result_schema import model_name
from lexprobe.tables import Table, baseline_label, by_group, cell, digest, label, name_counts


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

        for metric, title in (("pooled", "mean pooled P@k, k=1..50 (the paper's MAP@50)"),
                              ("map", "MAP@50 (per-query average precision)")):
            table = Table("senserank", f"Sense ranking {task}: {title}", ["Model"] + slices,
                          note="x100; 95% bootstrap intervals over queries in brackets; random and oracle exact.")
            digests, seen = {digest(r) for r in members}, set()
            for r in members:
                if digest(r) in seen:
                    continue
                seen.add(digest(r))
                for base, what in (("random", "Random (exact)"), ("oracle", "Oracle")):
                    table.rows.append([baseline_label(what, r, digests)] + cells(r["baselines"][base][task], metric))
            for r in members:
                table.rows.append([label(r, names)] + cells(r["metrics"][task], metric))
            table.rows.append(["queries"] + [str((members[0]["metrics"][task].get(c) or {}).get("n", 0))
                                             for c in slices])
            tables.append(table)
    return tables


def sweep_tables(results: list[dict]) -> list[Table]:
    tables = []
    for r in results:
        best = r["sweep"]["best"]
        table = Table("senserank", f"Sense ranking {corpus(r)} by layer: {model_name(r)}",
                      ["Layer", "MAP@50 (paper, pooled)", "MAP@50 (per-query AP)", "Random", "Oracle", "Queries"],
                      note=f"x100; layers are hidden_states indices (0 = embeddings); best layer {best}; "
                           "95% bootstrap intervals over queries in brackets; random and oracle exact.")
        for layer, m, rnd, orc in sweep_rows(r):
            name = f"{layer} (best)" if str(layer) == str(best) else str(layer)
            table.rows.append([name, cell(m, "pooled", 100.0, 2), cell(m, "map", 100.0, 2),
                               cell(rnd, "pooled", 100.0, 2), cell(orc, "pooled", 100.0, 2), m.get("n")])
        tables.append(table)
    return tables
