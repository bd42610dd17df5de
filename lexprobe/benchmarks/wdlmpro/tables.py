"""WDLMPro's report tables: models side by side per task (likelihood), the ask-to-choose table, and a likelihood
result's breakdowns (the console prints them; the report draws them, ``plot.py``). What ``lexprobe wdlmpro eval``
prints after a run is these tables of its result, each through ``lexprobe.tables.to_text`` (every figure in %, at
most ``reporting.WIDTH`` columns wide)."""

from __future__ import annotations

from dataclasses import replace

from lexprobe.core.result_schema import model_name
from lexprobe.prompting import readings
from lexprobe.tables import (
    POS_NAME,
    Cell,
    Table,
    baseline_label,
    cell,
    digest,
    label,
    name_counts,
    to_text,
    vs_random,
)

TASK_TITLE = {"w2d": "W2D (word to definition)", "d2w": "D2W (definition to word)"}


def likelihood_tables(results: list[dict]) -> list[Table]:
    tables = []
    names = name_counts(results)
    for task in [t for t in TASK_TITLE if any(t in r["metrics"] for r in results)]:
        members = [r for r in results if task in r["metrics"]]
        cols = [p for p in ("n", "v", "all") if any(p in r["metrics"][task] for r in members)]
        headers = ["Model"] + [f"{POS_NAME[p]} {m}" for p in cols for m in ("P@1 (%)", "RS")] + ["N"]
        table = Table("wdlmpro", f"WDLMPro {TASK_TITLE[task]}", headers,
                      note="95% bootstrap intervals over targets in brackets; RS = rank score (x100).")
        seen = set()
        for r in members:
            m = r["metrics"][task]
            rnd = r["baselines"].get("random", {}).get(task) or {}
            table.rows.append([label(r, names)] + [vs_random(cell(m.get(p), key), rnd.get(p), key)
                                                   for p in cols for key in ("p_at_1", "rank_score")]
                              + [m.get("all", {}).get("n")])
        for r in members:
            b = r["baselines"].get("random", {}).get(task)
            if digest(r) in seen or not b:
                continue
            seen.add(digest(r))
            table.rows.append([baseline_label("Random (expected)", r, members)]
                              + [cell(b.get(p), key) for p in cols for key in ("p_at_1", "rank_score")]
                              + [b.get("all", {}).get("n")])
        tables.append(table)
    return tables


def choose_tables(results: list[dict]) -> list[Table]:
    """A table per task that a result holds."""
    by_task = {task: [r for r in results if task in r["metrics"]] for task in TASK_TITLE}
    return readings.choose_tables(
        "wdlmpro", "WDLMPro {group}, ask to choose (--method choose)",
        [(TASK_TITLE[task], task, members) for task, members in by_task.items() if members],
        ("p_at_1", "P@1"), "Random P@1 (%)", label_columns=(("Label RS", "rank_score"),),
        note="the readings of one run: label likelihood (most probable option label{debiased}) and greedy "
             "generation parsed strictly and leniently (failures count as wrong); "
             "position bias: per reading (label, debiased, gen., lenient), the most chosen presented "
             "position at its share of the answers (gold: the share of gold answers there); random = "
             "expected P@1 over the options shown; x100, 95% bootstrap intervals over targets (each "
             "averaged over its option orders) in brackets; "
             "Asked counts target × order; Skipped: targets whose prompt did not fit the model.",
        debiased="; debiased: averaged over the options' cyclic orders", prose=("Generation failures", "Lenient failures"))


def breakdown_tables(result: dict) -> list[Table]:
    """Per task and breakdown (frequency, depth, word tokens) of a likelihood result: P@1 and RS per band and POS
    beside the random P@1, with the mean number of candidates."""
    out = []
    for task in result["tasks"]:
        for name in ("frequency", "depth", "word_tokens"):
            per_pos = (result["breakdowns"].get(task) or {}).get(name)
            if not per_pos:
                continue
            what = name.replace("_", " ")
            table = Table("wdlmpro", f"WDLMPro {task.upper()} by {what}: {model_name(result)}",
                          ["POS", what, "N", "# cand.", "P@1 (%)", "RS", "Random P@1 (%)"])
            table.rows = [[POS_NAME.get(pos, pos), band, a["n"], f"{a['mean_candidates']:.1f}", cell(a, "p_at_1"),
                           cell(a, "rank_score"), Cell(a["random_p_at_1"])]
                          for pos, bands in per_pos.items() for band, a in bands.items()]
            out.append(table)
    return out


def format_result(result: dict) -> str:
    """A likelihood run's tables transposed (a line per figure, a column per model and baseline), the model named
    whole in each title (its column's head may wrap); the breakdowns as they are."""
    named = [replace(t, title=f"{t.title}: {model_name(result)}") for t in likelihood_tables([result])]
    return "\n\n".join([to_text(t, transpose=True) for t in named] + [to_text(t) for t in breakdown_tables(result)])

