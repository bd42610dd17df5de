"""Item sets for people: the paper's human subsets (or a seeded sample) as web-page items.

An item set is a plain dict, stored whole in the answer database so scoring never
rebuilds it::

    {"set_id": ..., "benchmark": "wdlmpro"|"coda21", "subset": ..., "seed": ...,
     "items": [item, ...]}

A ``choice`` item (WDLMPro W2D/D2W) has lettered ``options`` and an ``answer`` label;
an ``align`` item (CoDA21) has numbered ``contexts`` (target hidden) and lettered
``definitions`` in a seeded order, and ``answer`` = the gold definition label of
each context. ``public_items`` strips the answers and what would give them away.
"""

from __future__ import annotations

import random
import string
from typing import Any, Sequence

from lexprobe.cache import stable_hash
from lexprobe.provenance import items_digest

BLANK = "_____"
PAPER_WDLMPRO = {"n": 20, "max_candidates": 10}
PAPER_CODA = {"variant": "clean-easy", "pos": "n", "n": 20, "seed": 42}


def groups_digest(groups: Sequence) -> str:
    """The run record's ``items_digest`` of a model evaluated on exactly these groups."""
    from lexprobe.run_record import _plain

    return items_digest(_plain(list(groups)))


def _set(benchmark: str, subset: str, seed: int, items: list[dict], digests: dict[str, str], source: str = "") -> dict:
    body = {"benchmark": benchmark, "subset": subset, "seed": seed, "source": source, "digests": digests,
            "items": items}
    return {"set_id": stable_hash(body, length=12), **body}


# ------------------------------------------------------------------ WDLMPro


def wdlmpro_item_set(groups: Sequence, n: int, max_candidates: int, seed: int, subset: str) -> dict:
    """W2D and D2W items from ``wdlmpro.human.sample_human`` (the same sheets as on paper)."""
    from lexprobe.benchmarks.wdlmpro.human import TASKS, sample_human

    sample = sample_human(groups, n=n, max_candidates=max_candidates, seed=seed)
    items, digests = [], {}
    for task in TASKS:
        digests[task] = groups_digest(sample[task]["groups"])
        for group, item in zip(sample[task]["groups"], sample[task]["items"]):
            items.append({
                "id": f"{task}/{item['item']}",
                "kind": "choice",
                "task": task,
                "pos": group.pos,
                "prompt": item["prompt"],
                "options": [{"label": o["label"], "text": o["text"], "synset": o["synset"]} for o in item["options"]],
                "answer": item["answer"],
                "target": group.target,
                "word": group.word,
            })
    return _set("wdlmpro", subset, seed, items, digests)


# ------------------------------------------------------------------ CoDA21


def paper_coda_subset(groups: Sequence, n: int = 20, seed: int = 42, pos: str = "n") -> list:
    """CoDA21's S20: shuffle the clean-easy noun groups with ``seed``, skip groups whose
    contexts repeat, take ``n``."""
    pool = [g for g in groups if pos == "both" or g.pos == pos]
    random.Random(seed).shuffle(pool)
    chosen = []
    for g in pool:
        contexts = [c.context for c in g.candidates]
        if len(set(contexts)) != len(contexts):
            continue
        chosen.append(g)
        if len(chosen) == n:
            break
    return chosen


def coda_item_set(groups: Sequence, seed: int, subset: str, source: str = "") -> dict:
    """One ``align`` item per CoDA21 group; definitions shuffled per group (seeded)."""
    from lexprobe.benchmarks.coda21.dataset import replace_target

    items = []
    for g in groups:
        rng = random.Random(stable_hash([seed, g.id, [c.synset for c in g.candidates]]))
        order = list(range(g.k))
        rng.shuffle(order)  # order[j] = candidate shown as definition j
        labels = string.ascii_uppercase[: g.k]
        definitions = [{"label": labels[j], "text": g.candidates[ci].definition} for j, ci in enumerate(order)]
        answer = [labels[order.index(c)] for c in range(g.k)]
        items.append({
            "id": g.id,
            "kind": "align",
            "pos": g.pos,
            "contexts": [replace_target(c.context, c.word, BLANK) for c in g.candidates],
            "definitions": definitions,
            "answer": answer,
            "definition_order": order,
            "synsets": [c.synset for c in g.candidates],
            "ancestor": g.ancestor,
            "relation": g.relation,
        })
    return _set("coda21", subset, seed, items, {"alignment": groups_digest(groups)}, source)


# ------------------------------------------------------------------ shared


def public_items(item_set: dict) -> list[dict[str, Any]]:
    """What the page may see: no answers, no synset names, no definition order."""
    out = []
    for it in item_set["items"]:
        if it["kind"] == "choice":
            out.append({"id": it["id"], "kind": "choice", "task": it["task"], "pos": it["pos"],
                        "prompt": it["prompt"], "options": [{"label": o["label"], "text": o["text"]} for o in it["options"]]})
        else:
            out.append({"id": it["id"], "kind": "align", "pos": it["pos"], "contexts": it["contexts"],
                        "definitions": it["definitions"]})
    return out


class AnswerError(ValueError):
    """An answer the server refuses; the message goes back to the page."""


def check_answer(item: dict, answer: Any) -> Any:
    """The answer in canonical form, or ``AnswerError`` saying what is wrong."""
    if item["kind"] == "choice":
        labels = [o["label"] for o in item["options"]]
        if not isinstance(answer, str) or answer not in labels:
            raise AnswerError(f"answer must be one of the option labels {', '.join(labels)}")
        return answer
    labels = [d["label"] for d in item["definitions"]]
    k = len(item["contexts"])
    if not isinstance(answer, list) or len(answer) != k:
        raise AnswerError(f"alignment must give a definition for each of the {k} contexts")
    if not all(isinstance(a, str) and a in labels for a in answer):
        raise AnswerError(f"alignment may only use the definition labels {', '.join(labels)}")
    if len(set(answer)) != k:
        raise AnswerError("alignment must be one-to-one: each definition used for exactly one context")
    return list(answer)
