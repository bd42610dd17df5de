"""Stored answers → result files with the models' metrics, per participant and pooled.

The generic part (who answered, a person's config and run record); the item set's benchmark scores it
(``HumanItems.results``). Results have the models' layout with ``model.kind = "human"``, so
``lexprobe report`` and ``compare`` take them; a person picks one option, so WDLMPro's rank score is
``None``, never guessed.
"""

from __future__ import annotations

from typing import Any, Sequence

from lexprobe.errors import LexprobeError
from lexprobe.stats.bootstrap import describe as describe_intervals

#: The pooled result's name: '@' is not in a participant code (letters, digits, '-', '_'), so no
#: participant (not even one called "pooled") can share it, or its file.
POOLED = "@pooled"


def person_model(participant: str) -> dict:
    return {"name": f"human:{participant}", "kind": "human"}


def person_config(item_set: dict, items: Sequence[dict], participant: str, answered: int,
            participants: Sequence[str]) -> dict:
    total = len(items) * max(1, len(participants))
    return {
        "subset": item_set["subset"], "seed": item_set["seed"], "set_id": item_set["set_id"],
        "source": item_set.get("source", ""), "participant": participant, "participants": list(participants),
        "answered": answered, "total": total, "complete": answered == total,
    }


def finish_person_result(result: dict, digest: str, n_items: int, unit: str) -> dict:
    from lexprobe.run_record import run_record

    run = run_record(None, [], {**result["config"], "method": result["method"], "recipe": result["recipe"]})
    run.update(model=result["model"]["name"], model_kind="human", model_revision=None,
               items_digest=digest, n_items=n_items)
    result["run"] = run
    result["intervals"] = describe_intervals(unit)
    return result


def who(answers: dict) -> list[str]:
    """Every participant, and ``@pooled`` (``POOLED``) when there are several."""
    return sorted(answers) + ([POOLED] if len(answers) > 1 else [])


def results_for(item_set: dict, answers: dict[str, dict[str, Any]]) -> dict[str, dict]:
    """{name: result} for one item set, from its benchmark (``HumanItems.results``); name is
    ``<participant>`` (CoDA21) or ``<task>-<participant>`` (WDLMPro), ``@pooled`` for all together."""
    from lexprobe.core.registry import get

    bench = get(item_set["benchmark"])
    if bench.human is None:
        raise LexprobeError(f"{bench.meta.name} has no human items")
    return bench.human.results(bench, item_set, answers)
