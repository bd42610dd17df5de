"""CoDA21 for people: one ``align`` item per group (definitions in a seeded order) and people's
alignments as results with the models' per-group accuracy."""

from __future__ import annotations

import random
import string
from typing import Any, Sequence

from lexprobe.benchmarks.coda21.dataset import replace_target
from lexprobe.benchmarks.coda21.results import TASK
from lexprobe.cache import stable_hash
from lexprobe.core.human_items import BLANK, groups_digest, make_item_set
from lexprobe.core.human_score import person_result, who
from lexprobe.metrics.alignment import accuracy as alignment_accuracy


def human_item_set(args: Any) -> dict:
    """``lexprobe human``'s CoDA21 items: the groups ``coda sample-human`` draws (the paper's S20 by default)."""
    from lexprobe.benchmarks.coda21.cli import resolve_coda_file
    from lexprobe.benchmarks.coda21.dataset import parse_coda
    from lexprobe.benchmarks.coda21.human import S20_SEED, S20_SIZE, build_sample
    from lexprobe.errors import DataError

    path = resolve_coda_file(args.data or "clean-easy")
    pos = args.pos or "n"
    if pos == "both":
        raise DataError("CoDA21 human subsets are drawn from one part of speech; pass --pos n or --pos v")
    seed = S20_SEED if args.seed is None else args.seed
    n = S20_SIZE if args.subset == "paper" else args.subset
    # the same groups, in the same order and with the same ids, as `coda sample-human` writes for the models
    data = parse_coda(build_sample(path, size=n, seed=seed, pos=pos), source=path.name, pos=(pos,))
    if data.problems:
        raise DataError(f"{path}: the sampled group {data.problems[0]}; repair the file or choose another --seed")
    return coda_item_set(data.groups, seed, str(args.subset), source=path.name)


def coda_item_set(groups: Sequence, seed: int, subset: str, source: str = "") -> dict:
    """One ``align`` item per CoDA21 group; definitions shuffled per group (seeded)."""
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
    return make_item_set("coda21", subset, seed, items, {"alignment": groups_digest(groups)}, source)


def _align_record(item: dict, answer: list[str]) -> dict:
    labels = [d["label"] for d in item["definitions"]]
    order = item["definition_order"]
    assignment = [order[labels.index(a)] for a in answer]  # original definition index of each context
    return {
        "id": item["id"], "pos": item["pos"], "k": len(item["contexts"]), "ancestor": item["ancestor"],
        "relation": item["relation"], "synsets": item["synsets"], "assignment": assignment,
        "predicted_pairs": [[c, d] for c, d in enumerate(assignment)], "accuracy": alignment_accuracy(assignment),
    }


def coda_results(bench: Any, item_set: dict, answers: dict[str, dict[str, Any]]) -> dict[str, dict]:
    """{participant: result} (``@pooled``: all participants together), in schema 2: their groups' records
    aggregated as a model's."""
    return {p: person_result(bench, item_set, answers, p, TASK, _align_record, {"align": "human"},
                             counts={"skipped_groups": 0}) for p in who(answers)}
