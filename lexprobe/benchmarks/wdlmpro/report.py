"""Paper-style tables for WDLMPro results (Tables 4-7 and 10 of the paper)."""

from __future__ import annotations

from lexprobe.reporting import format_table

TASK_TITLE = {"w2d": "W2D (match word to definition)", "d2w": "D2W (match definition to word)"}
POS_NAME = {"n": "Noun", "v": "Verb", "all": "All"}


def _pct(x):
    return None if x is None else f"{100 * x:.1f}"


def _rs(x):
    return None if x is None else f"{x:.2f}"


def main_table(result: dict, task: str) -> str:
    metrics, base = result["metrics"][task], result["random_baseline"][task]
    cols = [p for p in ("n", "v", "all") if p in metrics]
    headers = ["Model"] + [f"{POS_NAME[p]} {m}" for p in cols for m in ("P@1", "RS")] + ["N"]
    model_row = [result["model"]["name"]] + [v for p in cols for v in (_pct(metrics[p]["p_at_1"]), _rs(metrics[p]["rank_score"]))]
    base_row = ["Random (expected)"] + [v for p in cols for v in (_pct(base[p]["p_at_1"]), _rs(base[p]["rank_score"]))]
    n = metrics["all"]["n"]
    return format_table(headers, [model_row + [n], base_row + [n]], title=TASK_TITLE[task])


def breakdown_table(result: dict, task: str, name: str) -> str | None:
    per_pos = result["breakdowns"].get(task, {}).get(name)
    if not per_pos:
        return None
    rows = []
    for pos, bands in per_pos.items():
        for band, a in bands.items():
            rows.append([POS_NAME.get(pos, pos), band, a["n"], f"{a['mean_candidates']:.1f}",
                         _pct(a["p_at_1"]), _rs(a["rank_score"]), _pct(a["random_p_at_1"])])
    headers = ["POS", name.replace("_", " "), "N", "# cand.", "P@1", "RS", "Random P@1"]
    return format_table(headers, rows, title=f"{task.upper()} by {name.replace('_', ' ')}")


def full_report(result: dict) -> str:
    parts = []
    for task in result["task"]:
        parts.append(main_table(result, task))
        for name in ("frequency", "depth", "word_tokens"):
            t = breakdown_table(result, task, name)
            if t:
                parts.append(t)
    if result.get("dropped"):
        from lexprobe.benchmarks.wdlmpro.static_drop import format_dropped

        parts.append(format_dropped(result["dropped"]))
    return "\n\n".join(parts)
