"""Answer readings in schema-2 results: one metric name per reading and measure.

A method that reads one answer several ways (ask-to-choose: label likelihood, generation
read strictly, ...) reports every reading's metrics in the same slice, named
``<reading>.<metric>``; ``readings`` lists them. ``reading_slice`` turns a summary of the
form ``{"n", reading: {metric, "ci", "failures"}, ...}`` into such a slice, for any number of
readings.
"""

from __future__ import annotations

from typing import Iterable

READINGS = ("likelihood", "generation")
LABELS = {"likelihood": "label likelihood", "generation": "generation"}


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


def readings_of(slices: Iterable[dict]) -> list[str]:
    """The readings present in schema-1 summaries, in the canonical order."""
    present = {r for s in slices for r in READINGS if isinstance(s.get(r), dict)}
    return [r for r in READINGS if r in present]


def label(reading: str) -> str:
    return LABELS.get(reading, reading)


def answered(answer: dict) -> str:
    """A generated answer as the report's items pages show it."""
    text = answer.get("text", "")
    return f"answered {text!r}" + (f" — {answer['failure'].replace('_', ' ')}" if answer.get("failure") else "")


def skipped_row(item: str, task: str, reason: str, order: str) -> dict:
    """An items-page row of an item that was not asked."""
    return {"task": task, "item": f"{item}{order}", "gold": "", "chosen": f"not asked: {reason}",
            "score": "skipped", "details": f"not asked: {reason}"}


def choose_options(config: dict) -> dict:
    """The ask-to-choose options of a result's config (schema 2 nests them under ``choose``)."""
    return (config or {}).get("choose") or config or {}


def setting(result: dict) -> str:
    """How a choose run asked: template, chat, options shown, option orders."""
    c = choose_options(result.get("config") or {})
    template = c.get("template") or "?"
    template = template.get("name", "?") if isinstance(template, dict) else str(template)
    return (f"{template}{' / chat' if c.get('chat') else ''}, ≤{c.get('max_candidates') or 'all'} options, "
            f"{c.get('permutations', 1)} order(s)")


def failures_text(m: dict, reading: str = "generation") -> str:
    prefix = f"{reading}.failures."
    counts = {k[len(prefix):]: v for k, v in m.items() if k.startswith(prefix)}
    parts = [f"{k.replace('_', ' ')} {v}" for k, v in counts.items() if v]
    return ", ".join(parts) if parts else ("none" if counts else "")
