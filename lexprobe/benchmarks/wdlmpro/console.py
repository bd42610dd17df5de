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
    metrics, base = result["metrics"][task], result["baselines"]["random"][task]
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
    for task in result["tasks"]:
        parts.append(main_table(result, task))
        for name in ("frequency", "depth", "word_tokens"):
            t = breakdown_table(result, task, name)
            if t:
                parts.append(t)
    return "\n\n".join(parts)


def choose_report(result: dict) -> str:
    """The ask-to-choose table: each reading's figures per task and POS, as fractions; then the position bias."""
    from lexprobe.prompting.readings import bias_text, choose_options

    c = choose_options(result["config"])
    cyclic = "likelihood_cyclic" in result.get("readings", [])
    rows, bias = [], []
    for task, by_pos in result["metrics"].items():
        for pos, m in by_pos.items():
            rnd = result["baselines"].get("random", {}).get(task, {}).get(pos) or {}
            rows.append([task.upper(), pos, m["n"], m.get("likelihood.p_at_1"), m.get("likelihood.rank_score")]
                        + ([m.get("likelihood_cyclic.p_at_1")] if cyclic else [])
                        + [m.get("generation.p_at_1"), m.get("generation.valid"), m.get("generation_lenient.p_at_1"),
                           m.get("generation_lenient.valid"), rnd.get("p_at_1")])
        shown = bias_text(result["breakdowns"].get(task, {}).get("position_bias", {}).get("all"))
        if shown:
            bias.append(f"{task.upper()} {shown}")
    title = (f"WDLMPro, ask to choose ({c.get('template')} template{', chat' if c.get('chat') else ''}, "
             f"<= {c.get('max_candidates')} options, {c.get('permutations')} order(s)"
             f"{', cyclic debiasing' if cyclic else ''}): P@1 as a fraction; generated answers read strictly "
             "and leniently")
    table = format_table(["task", "pos", "asked", "label P@1", "label RS"] + (["debiased P@1"] if cyclic else [])
                         + ["strict P@1", "strict parsed", "lenient P@1", "lenient parsed", "random P@1"],
                         rows, title=title)
    if bias:
        table += ("\nposition bias (most chosen position: share of answers vs share of gold there):\n  "
                  + "\n  ".join(bias))
    return table
