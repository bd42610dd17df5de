"""CoDA21's report tables: models side by side per data file (likelihood; ask in a table of its own), and the
ask-to-choose table; what the CLI prints after a run is the same tables of that one result (``format_result``)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from lexprobe.benchmarks.coda21.results import TASK, data_name
from lexprobe.core.result_schema import model_name
from lexprobe.prompting import readings
from lexprobe.tables import (
    POS_NAME,
    Cell,
    Table,
    baseline_label,
    by_group,
    cell,
    digest,
    label,
    name_counts,
    vs_random,
)


def format_result(result: dict, ask: bool = False) -> str:
    """What the CLI prints after a likelihood run (``ask``: an ask run): its table as text (a line per column; the
    model named in the title too, whole: its column's head may wrap)."""
    return readings.tables_text([replace(t, title=f"{t.title}: {model_name(result)}")
                                 for t in likelihood_tables([result], ask)])


def _random(r: dict, pos: str) -> Cell:
    b = r["baselines"].get("random", {}).get(TASK, {}).get(pos) or {}
    return cell(b, "accuracy")


def _questions(r: dict) -> str:
    return ", ".join(map(str, (r["config"].get("ask") or {}).get("questions", [])))


def likelihood_tables(results: list[dict], ask: bool = False) -> list[Table]:
    """One table per data file; ``ask``: the results of ``--method ask`` (the questions asked in the model column)."""
    tables = []
    names = name_counts(results)
    for task, members in by_group(results, data_name).items():
        cols = [p for p in ("n", "v", "all") if any((r["metrics"][TASK].get(p) or {}).get("n") for r in members)]
        headers = ["Model"] + [f"{POS_NAME[p]} {m}" for p in cols for m in ("acc. (%)", "simple (%)")] + ["groups"]
        title, note = f"CoDA21 {task}", ""
        if ask:
            title += ", asked yes/no (--method ask)"
            note = ("match score: P(Yes) against P(No) to the authors' question(s) per context-definition pair "
                    "(averaged over the questions named after the model, numbered as in the authors' code); ")
        table = Table("coda21", title, headers,
                      note=note + "accuracy with the one-to-one alignment and with simple matching; "
                                  "95% bootstrap intervals over groups in brackets.")
        for r in members:
            m = r["metrics"][TASK]
            name = f"{label(r, names)}, asked question(s) {_questions(r)}" if ask else label(r, names)
            table.rows.append([name] + [vs_random(cell(m.get(p), key), _random(r, p)) for p in cols
                                        for key in ("accuracy", "simple_accuracy")]
                              + [(m.get("all") or {}).get("n")])
        seen = set()
        for r in members:
            if digest(r) in seen:
                continue
            seen.add(digest(r))
            row: list[Any] = [baseline_label("Random (exact)", r, members)]
            for p in cols:
                row += [_random(r, p), _random(r, p)]
            table.rows.append(row + [(r["metrics"][TASK].get("all") or {}).get("n")])
        tables.append(table)
    return tables


#: the ask method's tables and text: a table of their own (``contract.tables`` groups results by these functions)
ask_tables = partial(likelihood_tables, ask=True)
format_ask = partial(format_result, ask=True)


def choose_tables(results: list[dict]) -> list[Table]:
    """A table per data file."""
    return readings.choose_tables(
        "coda21", "CoDA21 {group}, ask to choose (--method choose)",
        [(name, TASK, members) for name, members in by_group(results, data_name).items()],
        ("accuracy", "acc."), "Random (%)",
        note="alignment accuracy of the readings of one run: the k x k label-likelihood matrix "
             "solved with the optimal alignment{debiased}, and the generated matching parsed strictly and leniently "
             "(an invalid answer scores 0 for the group); position bias: per reading, the most chosen letter position "
             "of the rows at its share of the answers (gold: the share of gold there); random exact over the "
             "pairs shown; x100, 95% bootstrap intervals over groups in brackets; Asked counts group × order; "
             "Skipped: groups whose prompt did not fit the model.",
        debiased=" (debiased: letter probabilities averaged over the definitions' cyclic orders)")
