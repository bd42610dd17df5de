"""Answer readings in schema-2 results: one metric name per reading and measure.

A method that reads one answer several ways reports every reading's metrics in the same slice, named
``<reading>.<metric>`` (``reading_slice``); the rest are the report's words for readings.
"""

from __future__ import annotations

from typing import Iterable

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
    from lexprobe.tables import Text, biased

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
