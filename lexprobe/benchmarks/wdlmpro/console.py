"""Paper-style tables for WDLMPro results (Tables 4-7 and 10 of the paper): every figure in % (x100: P@1, the
rank score RS, parse rates, position shares; ``lexprobe.tables.UNITS``), every table named after its model, at most
``reporting.WIDTH`` columns wide."""

from __future__ import annotations

from lexprobe.reporting import format_table, wrap_text
from lexprobe.result_schema import model_name

TASK_TITLE = {"w2d": "W2D (match word to definition)", "d2w": "D2W (match definition to word)"}
POS_NAME = {"n": "Noun", "v": "Verb", "all": "All"}


def _pct(x):
    return None if x is None else f"{100 * x:.1f}"


def _rs(x):
    return None if x is None else f"{100 * x:.1f}"


def main_table(result: dict, task: str) -> str:
    metrics, base = result["metrics"][task], result["baselines"]["random"][task]
    cols = [p for p in ("n", "v", "all") if p in metrics]
    headers = ["Model"] + [f"{POS_NAME[p]} {m}" for p in cols for m in ("P@1", "RS")] + ["N"]
    model_row = [result["model"]["name"]] + [v for p in cols for v in (_pct(metrics[p]["p_at_1"]), _rs(metrics[p]["rank_score"]))]
    base_row = ["Random (expected)"] + [v for p in cols for v in (_pct(base[p]["p_at_1"]), _rs(base[p]["rank_score"]))]
    n = metrics["all"]["n"]
    return format_table(headers, [model_row + [n], base_row + [n]],
                        title=f"{TASK_TITLE[task]}, {model_name(result)}: P@1 and rank score RS in %")


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
    return format_table(headers, rows, title=f"{task.upper()} by {name.replace('_', ' ')}, {model_name(result)} (%)")


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
    """The ask-to-choose table: each reading's figures per task and POS, in %; then the position bias."""
    from lexprobe.prompting.readings import bias_text, choose_options

    c = choose_options(result["config"])
    cyclic = "likelihood_cyclic" in result.get("readings", [])
    rows, bias = [], []
    for task, by_pos in result["metrics"].items():
        for pos, m in by_pos.items():
            rnd = result["baselines"].get("random", {}).get(task, {}).get(pos) or {}
            rows.append([task.upper(), pos, m["n"], _pct(m.get("likelihood.p_at_1")), _rs(m.get("likelihood.rank_score"))]
                        + ([_pct(m.get("likelihood_cyclic.p_at_1"))] if cyclic else [])
                        + [_pct(m.get(k)) for k in ("generation.p_at_1", "generation.valid", "generation_lenient.p_at_1",
                                                    "generation_lenient.valid")] + [_pct(rnd.get("p_at_1"))])
        shown = bias_text(result["breakdowns"].get(task, {}).get("position_bias", {}).get("all"))
        if shown:
            bias.append(f"{task.upper()} {shown}")
    title = (f"WDLMPro, {model_name(result)} asked to choose ({c.get('template')} template"
             f"{', chat' if c.get('chat') else ''}, <= {c.get('max_candidates')} options, {c.get('permutations')} "
             f"order(s){', cyclic debiasing' if cyclic else ''}): figures in %; generated answers read strictly "
             "and leniently")
    table = format_table(["task", "pos", "asked", "label P@1", "label RS"] + (["debiased P@1"] if cyclic else [])
                         + ["strict P@1", "strict parsed", "lenient P@1", "lenient parsed", "random P@1"],
                         rows, title=title)
    if bias:
        table += "\n" + wrap_text("position bias (most chosen position: % of answers vs % of gold there):\n  "
                                  + "\n  ".join(bias))
    return table
