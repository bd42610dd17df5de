"""Stored answers → result files with the models' metrics, per participant and pooled.

One builder for every benchmark (``person_result``: who answered, their records through the models'
sections, a person's config and run record); a benchmark's ``HumanItems.results`` gives only what differs:
how one answer becomes a record, what its config adds, how its results are named. Results have the models' layout with ``model.kind = "human"``, so
``lexprobe report`` and ``compare`` take them; a person picks one option, so WDLMPro's rank score is
``None``, never guessed.
"""

from __future__ import annotations

from typing import Any, Callable

from lexprobe.core.contract import Records, sections
from lexprobe.core.result_schema import new_result
from lexprobe.errors import LexprobeError
from lexprobe.stats.bootstrap import describe as describe_intervals

#: The pooled result's name: '@' is not in a participant code (letters, digits, '-', '_'), so no
#: participant (not even one called "pooled") can share it, or its file.
POOLED = "@pooled"


def person_result(bench: Any, item_set: dict, answers: dict[str, dict[str, Any]], participant: str, task: str,
                  record: Callable[[dict, Any], dict], extra: dict, counts: dict[str, int] | None = None) -> dict:
    """One participant's (or the pooled) result on ``task``'s items (an item without ``task``: every task's),
    scored as a model's run is: each answer a record (``record(item, answer)``, with the ``answer`` and the
    ``participant`` added) through the sections a model's run gets (``contract.sections``), the config a
    person's (the item set, who answered how much of it, then ``extra``) and a run record that names the items'
    digest."""
    from lexprobe.run_record import run_record

    items = {it["id"]: it for it in item_set["items"] if it.get("task", task) == task}
    people = sorted(answers) if participant == POOLED else [participant]
    records = [{**record(items[i], a), "answer": a, "participant": p}
               for p in people for i, a in answers.get(p, {}).items() if i in items]
    total = len(items) * max(1, len(people))
    config = {"subset": item_set["subset"], "seed": item_set["seed"], "set_id": item_set["set_id"],
              "source": item_set.get("source", ""), "participant": participant, "participants": people,
              "answered": len(records), "total": total, "complete": len(records) == total, **extra}
    built = sections(bench, Records(records, counts=dict(counts or {}), tasks=[task]), "human", config)
    model = {"name": f"human:{participant}", "kind": "human"}
    result = new_result(bench.meta.name, model, "human", "human", config, built)
    run = run_record(None, [], {**config, "method": "human", "recipe": "human"})
    run.update(model=model["name"], model_kind="human", model_revision=None,
               items_digest=item_set["digests"][task], n_items=len(items))
    result["run"] = run
    result["intervals"] = describe_intervals(bench.meta.unit)
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
