"""Item sets for people: the paper's human subsets (or a seeded sample) as web-page items.

An item set is a plain dict (``make_item_set``: set_id, benchmark, subset, seed, source, digests, items),
stored whole in the answer database so scoring never rebuilds it. An item's ``kind`` is its benchmark's
``HumanItems.kind``: ``choice`` (WDLMPro: lettered ``options``, an ``answer`` label) or ``align`` (CoDA21:
numbered ``contexts``, lettered ``definitions``, ``answer`` the gold label of each context); ``public_items``
strips the answers. A benchmark builds its item set (``HumanItems.item_set``) with ``make_item_set``.
"""

from __future__ import annotations

from typing import Any, Sequence

from lexprobe.cache import stable_hash
from lexprobe.provenance import items_digest

BLANK = "_____"


def groups_digest(groups: Sequence) -> str:
    """The run record's ``items_digest`` of a model evaluated on exactly these groups."""
    from lexprobe.run_record import _plain

    return items_digest(_plain(list(groups)))


def make_item_set(benchmark: str, subset: str, seed: int, items: list[dict], digests: dict[str, str], source: str = "") -> dict:
    body = {"benchmark": benchmark, "subset": subset, "seed": seed, "source": source, "digests": digests,
            "items": items}
    return {"set_id": stable_hash(body, length=12), **body}


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
