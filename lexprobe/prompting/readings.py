"""Answer readings in schema-2 results: one metric name per reading and measure.

A method that reads one answer several ways reports every reading's metrics in the same slice, named
``<reading>.<metric>`` (``reading_slice``); the rest are the report's words for readings, and what every
benchmark's choose results show, built here once in the benchmark's words: their tables (``choose_tables``),
the console text derived from them and the items page's rows (``item_rows``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from lexprobe.core.contract import Presentation
from lexprobe.tables import POS_NAME, Table, Text, biased, cell, model_name, parse_rate, to_text, vs_random

#: every reading a choose result can hold, in report order
READINGS = ("likelihood", "likelihood_cyclic", "generation", "generation_lenient")
LABELS = {"likelihood": "label likelihood", "likelihood_cyclic": "label likelihood, cyclic debiased",
          "generation": "generation", "generation_lenient": "generation, lenient"}
#: the readings of generated text (the strict one's record holds the text)
GENERATED = ("generation", "generation_lenient")


def reading_slice(summary: dict, readings: Iterable[str] = READINGS) -> dict:
    """A schema-2 metrics slice of a per-reading summary."""
    out: dict = {"n": summary.get("n", 0)}
    ci: dict = {}
    for reading in readings:
        block = summary.get(reading)
        if not isinstance(block, dict):
            continue
        for key, value in block.items():
            if key == "ci":
                ci.update({f"{reading}.{k}": v for k, v in value.items()})
            elif key == "failures":
                out.update({f"{reading}.failures.{mode}": n for mode, n in value.items()})
            else:
                out[f"{reading}.{key}"] = value
    out["ci"] = ci
    return out


def asked_by(reading: str, records: list[dict]) -> list[dict]:
    """The records of one item that a reading answers: every option order for label likelihood, the first
    cyclic order only for the others."""
    if reading == "likelihood":
        return records
    return [r for r in records if r.get("rotation", 0) == 0]


#: the readings' names in the report's compact position-bias cells (as the tables' column headers name them)
SHORT = {"likelihood": "label", "likelihood_cyclic": "debiased", "generation": "gen.", "generation_lenient": "lenient"}


def bias_cell(bias: dict | None):
    """Position bias for the report's tables, one line per reading: "label: 4 at 96% (gold 12%)" (the most
    chosen position, its share, the gold share there); readings that agree share a line, the words are the
    tooltip; flagged "bias" over ``tables.BIAS_THRESHOLD``."""
    items = [(reading, b) for reading, b in (bias or {}).items() if isinstance(b, dict) and "most_chosen" in b]
    if not items:
        return ""
    lines: dict[str, list[str]] = {}
    for reading, b in items:
        shown = f"{b['most_chosen']} at {100 * b['most_chosen_share']:.0f}% (gold {100 * b['gold_share_there']:.0f}%)"
        lines.setdefault(shown, []).append(SHORT.get(reading, reading))
    words = "; ".join(f"{label(reading)}: position {b['most_chosen']} in {100 * b['most_chosen_share']:.0f}% of "
                      f"answers (gold there {100 * b['gold_share_there']:.0f}%)" for reading, b in items)
    return Text([f"{', '.join(names)}: {shown}" for shown, names in lines.items()], tip=words,
                flags=("bias",) if any(biased(b) for _, b in items) else ())


def skipped_units(result: dict, task: str | None, pos: str) -> int:
    """Instances (unit x order) of ``task`` and ``pos`` (any POS for ``all``/``both``) not asked, e.g. a prompt
    too long for the model; 0 where none."""
    return sum(1 for r in result.get("instances") or [] if "skipped" in r
               and (task is None or r.get("task", task) == task) and (pos in ("all", "both") or r.get("pos") == pos))


def label(reading: str) -> str:
    return LABELS.get(reading, reading)


def answered(answer: dict, text: str | None = None) -> str:
    """A generated answer as the report's items pages show it (``text``: the strict reading's text)."""
    text = answer.get("text", "") if text is None else text
    return f"answered {text!r}" + (f" — {answer['failure'].replace('_', ' ')}" if answer.get("failure") else "")


def cyclic_order(record: dict) -> str:
    """How the items pages tell the extra cyclic orders of ``--debias cyclic`` apart (the first: nothing)."""
    return f" (cyclic order {record['rotation'] + 1})" if record.get("rotation") else ""


def skipped_row(item: str, task: str, reason: str, order: str) -> dict:
    """An items-page row of an item that was not asked."""
    return {"task": task, "item": f"{item}{order}", "gold": "", "chosen": f"not asked: {reason}",
            "score": "skipped", "details": f"not asked: {reason}"}


def choose_options(config: dict) -> dict:
    """The ask-to-choose options of a result's config (schema 2 nests them under ``choose``)."""
    return (config or {}).get("choose") or config or {}


def options_shown(config: dict) -> str:
    """"≤N options": how many options a choose run's config shows."""
    return f"≤{choose_options(config).get('max_candidates') or 'all'} options"


def orders(config: dict) -> str:
    """The options shown, the option orders and the debiasing of a choose run's config."""
    c = choose_options(config)
    return (f"{options_shown(config)}, {c.get('permutations', 1)} order(s)"
            + (", cyclic debiasing" if c.get("debias") == "cyclic" else ""))


def setting(result: dict) -> str:
    """How a choose run asked: template, chat, options shown, option orders, debiasing."""
    c = choose_options(result.get("config") or {})
    template = c.get("template") or "?"
    template = template.get("name", "?") if isinstance(template, dict) else str(template)
    return f"{template}{' / chat' if c.get('chat') else ''}, {orders(result.get('config') or {})}"


def failures_text(m: dict, reading: str = "generation") -> str:
    prefix = f"{reading}.failures."
    counts = {k[len(prefix):]: v for k, v in m.items() if k.startswith(prefix)}
    parts = [f"{k.replace('_', ' ')} {v}" for k, v in counts.items() if v]
    return ", ".join(parts) if parts else ("none" if counts else "")


def choose_tables(benchmark: str, title: str, groups: Iterable[tuple[str, str, list[dict]]], score: tuple[str, str],
                  random_header: str, note: str, debiased: str, label_columns: tuple[tuple[str, str], ...] = (),
                  prose: tuple[str, ...] = ()) -> list[Table]:
    """The ask-to-choose tables of every benchmark, in its words: a table per (group name, task, results), titled
    ``title`` with ``{group}`` filled in; a row per result and slice, each reading's ``score`` (its metric and
    header name, e.g. ("p_at_1", "P@1")) beside chance, the label likelihood's further ``label_columns`` (header,
    metric), the generated readings' parse rates and failures, the position bias, the items asked and skipped.
    ``note``'s ``{debiased}`` is ``debiased`` where a result has the debiased reading."""
    tables = []
    for group, task, members in groups:
        cyclic = any("likelihood_cyclic" in r.get("readings", []) for r in members)
        metric, scored = score[0], f"{score[1]} (%)"
        table = Table(benchmark, title.format(group=group),
                      ["Model", "Setting", "POS", f"Label {scored}"] + [h for h, _ in label_columns]
                      + ([f"Debiased {scored}"] if cyclic else [])
                      + [f"Generated {scored}", "Parsed (%)", "Generation failures", f"Lenient {scored}",
                         "Lenient parsed (%)", "Lenient failures", "Position bias", random_header, "Asked", "Skipped"],
                      note=note.format(debiased=debiased if cyclic else ""), prose=prose,
                      nowrap=("Setting", "Position bias"))
        for r in members:
            for pos, m in r["metrics"][task].items():
                rnd = r["baselines"].get("random", {}).get(task, {}).get(pos) or {}
                bias = r["breakdowns"].get(task, {}).get("position_bias", {}).get(pos)

                def shown(reading: str, key: str = metric, m: dict = m, rnd: dict = rnd) -> Any:
                    return vs_random(cell(m, f"{reading}.{key}"), rnd.get(key))

                table.rows.append([model_name(r), setting(r), POS_NAME.get(pos, pos), shown("likelihood")]
                                  + [shown("likelihood", key) for _, key in label_columns]
                                  + ([shown("likelihood_cyclic")] if cyclic else [])
                                  + [shown("generation"), parse_rate(cell(m, "generation.valid")), failures_text(m),
                                     shown("generation_lenient"), parse_rate(cell(m, "generation_lenient.valid")),
                                     failures_text(m, "generation_lenient"), bias_cell(bias), cell(rnd, metric),
                                     m.get("n"), skipped_units(r, task, pos)])
        tables.append(table)
    return tables


def tables_text(tables: list[Table]) -> str:
    """What the CLI prints of a run's tables: each transposed (a line per column)."""
    return "\n\n".join(to_text(t, transpose=True) for t in tables)


def choose_presentation(tables: Callable[[list[dict]], list[Table]],
                        rows: Callable[[dict], list[dict]]) -> Presentation:
    """A choose method's presentation: its ``tables`` (``choose_tables``), the console text derived from them, the
    items page's ``rows`` (``item_rows``); no figures and no files beside the result (a benchmark's own, such as
    WDLMPro's breakdown plot, are its likelihood runs')."""
    return Presentation(tables=tables, format_result=lambda result: tables_text(tables([result])),
                        failure_rows=rows, figures=lambda *_: [], written=lambda *_: None,
                        outputs=lambda out, config: {"--out": [out]})


def item_rows(result: dict, row: Callable[[dict, str, str | None], dict], task: str = "") -> list[dict]:
    """The items page's rows of a choose result: per asked record, a row per reading (the model column names the
    reading, so it filters), ``row(record, reading, text)`` in the benchmark's columns (``text``: the strict
    generation's); a record not asked, a row saying why (its ``word``, else its ``item``; its ``task``, else
    ``task``). Each item is told apart by its option order where there are several."""
    name = model_name(result)
    multi = choose_options(result.get("config") or {}).get("permutations", 1) > 1
    rows = []
    for inst in result["instances"]:
        order = (f" (order {inst.get('permutation', 0) + 1})" if multi else "") + cyclic_order(inst)
        if "skipped" in inst:
            rows.append({"model": f"{name} [choose]", "pos": inst.get("pos", ""), "ok": False,
                         **skipped_row(inst.get("word", inst["item"]), inst.get("task", task), inst["skipped"],
                                       order)})
        for reading in READINGS:
            if reading not in inst:
                continue
            shown = row(inst, reading, (inst.get("generation") or {}).get("text"))
            shown["item"] += order
            rows.append({**shown, "model": f"{name} [choose: {label(reading)}]", "pos": inst.get("pos", "")})
    return rows
