"""What the CLI prints after a CoDA21 run: the alignment table (likelihood, ask, people) and the choose table."""

from __future__ import annotations

from typing import Any

from lexprobe.benchmarks.coda21.dataset import POS_NAMES


def format_result(result: dict[str, Any]) -> str:
    from lexprobe.benchmarks.coda21.dataset import format_rows

    fmt = (lambda v: "-" if v is None else f"{v:.3f}")  # noqa: E731
    skipped: dict[str, int] = {}
    for s in result["skipped"]:
        pos = str(s["unit"]).split("/")[0]
        skipped[pos] = skipped.get(pos, 0) + 1
    rows = []
    for key, m in result["metrics"]["alignment"].items():
        gone = len(result["skipped"]) if key == "all" else skipped.get(key, 0)
        if m["n"] == 0 and gone == 0:
            continue
        rnd = result["baselines"].get("random", {}).get("alignment", {}).get(key, {}).get("accuracy")
        rows.append([POS_NAMES.get(key, "both" if key == "all" else key), m["n"], fmt(m.get("accuracy")),
                     fmt(m.get("simple_accuracy")), fmt(rnd), gone])
    align = result["config"]["align"]
    acc_name = "accuracy" if align != "none" else "accuracy (simple)"
    return format_rows(["POS", "groups", acc_name, "simple matching", "random (exact)", "skipped"], rows)


def choose_report(result: dict) -> str:
    from lexprobe.prompting.readings import bias_text, choose_options
    from lexprobe.reporting import format_table

    cyclic = "likelihood_cyclic" in result.get("readings", [])
    rows = []
    for key, m in result["metrics"]["alignment"].items():
        rnd = result["baselines"].get("random", {}).get("alignment", {}).get(key, {})
        rows.append([key, m["n"], m.get("likelihood.accuracy")]
                    + ([m.get("likelihood_cyclic.accuracy")] if cyclic else [])
                    + [m.get("generation.accuracy"), m.get("generation.valid"), m.get("generation_lenient.accuracy"),
                       m.get("generation_lenient.valid"), rnd.get("accuracy")])
    c = choose_options(result["config"])
    title = (f"CoDA21, ask to choose ({c.get('template')} template{', chat' if c.get('chat') else ''}, "
             f"<= {c.get('max_candidates')} pairs, {c.get('permutations')} order(s)"
             f"{', cyclic debiasing' if cyclic else ''}): alignment accuracy; generated answers read strictly and "
             "leniently")
    table = format_table(["pos", "asked", "label accuracy"] + (["debiased accuracy"] if cyclic else [])
                         + ["strict accuracy", "strict parsed", "lenient accuracy", "lenient parsed", "random"],
                         rows, title=title)
    bias = bias_text(result["breakdowns"].get("alignment", {}).get("position_bias", {}).get("all"))
    if bias:
        table += f"\nposition bias (most chosen letter position: share of rows vs share of gold there): {bias}"
    return table
