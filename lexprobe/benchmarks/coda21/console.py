"""What the CLI prints after a CoDA21 run: the alignment table (likelihood, ask, people) and the choose table."""

from __future__ import annotations

from typing import Any

from lexprobe.benchmarks.coda21.dataset import POS_NAMES


def format_result(result: dict[str, Any]) -> str:
    """The alignment table, titled with the data file and the model, accuracies in %."""
    from lexprobe.benchmarks.coda21.results import data_name
    from lexprobe.reporting import format_table
    from lexprobe.result_schema import model_name

    fmt = (lambda v: "-" if v is None else f"{100 * v:.1f}")  # noqa: E731
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
    return format_table(["POS", "groups", acc_name, "simple matching", "random (exact)", "skipped"], rows,
                        title=f"CoDA21 {data_name(result)}, {model_name(result)}: alignment accuracy in %")


def choose_report(result: dict) -> str:
    from lexprobe.prompting.readings import bias_text, choose_options
    from lexprobe.reporting import format_table, wrap_text
    from lexprobe.result_schema import model_name

    fmt = (lambda v: None if v is None else f"{100 * v:.1f}")  # noqa: E731
    cyclic = "likelihood_cyclic" in result.get("readings", [])
    rows = []
    for key, m in result["metrics"]["alignment"].items():
        rnd = result["baselines"].get("random", {}).get("alignment", {}).get(key, {})
        rows.append([key, m["n"], fmt(m.get("likelihood.accuracy"))]
                    + ([fmt(m.get("likelihood_cyclic.accuracy"))] if cyclic else [])
                    + [fmt(m.get(k)) for k in ("generation.accuracy", "generation.valid", "generation_lenient.accuracy",
                                               "generation_lenient.valid")] + [fmt(rnd.get("accuracy"))])
    c = choose_options(result["config"])
    title = (f"CoDA21, {model_name(result)} asked to choose ({c.get('template')} template"
             f"{', chat' if c.get('chat') else ''}, <= {c.get('max_candidates')} pairs, {c.get('permutations')} "
             f"order(s){', cyclic debiasing' if cyclic else ''}): alignment accuracy in %; generated answers read "
             "strictly and leniently")
    table = format_table(["pos", "asked", "label accuracy"] + (["debiased accuracy"] if cyclic else [])
                         + ["strict accuracy", "strict parsed", "lenient accuracy", "lenient parsed", "random"],
                         rows, title=title)
    bias = bias_text(result["breakdowns"].get("alignment", {}).get("position_bias", {}).get("all"))
    if bias:
        table += "\n" + wrap_text(f"position bias (most chosen letter position: % of rows vs % of gold there): {bias}")
    return table
