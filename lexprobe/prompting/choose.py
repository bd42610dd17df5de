"""What every benchmark's choose method shares: asking (requests), summaries, checks of the options.

The answer to a prompt is read as label likelihood (``likelihood``, with ``--debias cyclic`` also
``likelihood_cyclic``) and as greedy generation parsed strictly (``generation``) and leniently
(``generation_lenient``); each reading is a block of that name in every record and metrics slice.
``ask`` turns asked items into requests (``asking.requests``) and reads the answers.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional, Sequence, TypedDict

import numpy as np

from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import Continuation, Generate
from lexprobe.errors import LexprobeError
from lexprobe.prompting.parse import FAILURES, LENIENT_FAILURES
from lexprobe.prompting.readings import READINGS
from lexprobe.prompting.templates import LETTERS_MAX, load_template
from lexprobe.stats.bootstrap import mean_intervals
from lexprobe.validation import Rule

if TYPE_CHECKING:
    from lexprobe.prompting.choose_cli import ChooseOptions

#: the failure modes of the generated readings (every reading, in report order: ``readings.READINGS``)
GENERATION_FAILURES = {"generation": FAILURES, "generation_lenient": LENIENT_FAILURES}


def answer_room(options: ChooseOptions, room: int) -> int:
    """Positions an answer needs after the prompt: ``room`` for the labels, and what generation may write
    (``--max-new-tokens``, else ``room``): generating past the model's positions fails inside the model."""
    return max(room, options.max_new_tokens or room) if "generation" in options.readings else room


def ask(engine: Engine, items: list[dict], options: ChooseOptions, answer_prefix: str,
        labels: Sequence[Sequence[str]], rooms: Sequence[int], rows: Sequence[Sequence[str]] | None = None):
    """(the items asked, their label log-probabilities or None, their generated texts or None).

    An item whose prompt does not fit with room for its answer is not asked (a cut prompt loses its
    question): it gets ``skipped`` with why. Likelihood: per item, the summed log-probability of each label
    after the prompt and ``answer_prefix``, or with ``rows`` a [row, label] matrix (CoDA21's `` 1:``, given,
    not scored). Generation: the greedy answer to each item's first cyclic order only.
    """
    likelihood, matrices = "likelihood" in options.readings, rows is not None
    rows = rows if rows is not None else [[""]] * len(items)
    fits = engine.fit([Generate(it["prompt"], answer_room(options, room), answer_prefix=answer_prefix)
                       for it, room in zip(items, rooms)])
    why = {i: fit.too_long for i, fit in enumerate(fits) if fit.too_long}
    asks = {i: [Continuation(it["prompt"], lab, answer_prefix=answer_prefix, given=row)
                for row in rows[i] for lab in labels[i]] for i, it in enumerate(items) if likelihood and i not in why}
    label_fits = iter(engine.fit([r for requests in asks.values() for r in requests]))
    for i, requests in asks.items():  # a backend that fits only continuations: a prompt cut for its labels
        bad = [f for f in [next(label_fits) for _ in requests] if f.too_long or f.cut]
        if bad:
            why[i] = f"the prompt does not fit the model with its labels ({bad[0].too_long or 'its start would be cut'})"
    for i, reason in why.items():
        items[i]["skipped"] = reason
    runnable = [i for i in range(len(items)) if i not in why]
    logps: list | None = None
    if likelihood:
        answers = iter(engine([r for i in runnable for r in asks[i]]))
        logps = []
        for i in runnable:
            matrix = np.array([[float(np.sum(next(answers))) for _ in labels[i]] for _ in rows[i]])
            logps.append(matrix if matrices else matrix[0])
    texts: list[str | None] | None = None
    if "generation" in options.readings and runnable:
        first = [j for j, i in enumerate(runnable) if items[i].get("rotation", 0) == 0]
        max_new = options.max_new_tokens or max(rooms[i] for i in runnable)
        texts = [None] * len(runnable)
        got = engine([Generate(items[runnable[j]]["prompt"], max_new, answer_prefix=answer_prefix) for j in first])
        for j, text in zip(first, got):
            texts[j] = text
    return [items[i] for i in runnable], logps, texts


def batch_prompts(scorer) -> int:
    """Prompts per batch of units: the scorer's batch on a GPU, a few on the CPU (progress and Ctrl-C stay cheap)."""
    size = getattr(scorer, "batch_size", None)
    size = size if isinstance(size, int) else 32
    return size if getattr(getattr(scorer, "device", None), "type", "cpu") != "cpu" else min(size, 8)


class _Item(TypedDict):
    item: str


class ChooseItem(_Item, total=False):
    """One asked item (a prompt in one option order) as the resume log keeps it."""

    skipped: str
    likelihood: dict[str, Any]
    likelihood_cyclic: dict[str, Any]
    generation: dict[str, Any]
    generation_lenient: dict[str, Any]


class ReadingBlock(TypedDict, total=False):
    """A reading's answer in an asked item (what ``readings`` and the report's pages read)."""

    choice: Optional[int]
    correct: bool
    failure: Optional[str]
    positions: list[Optional[int]]
    gold_rank: int
    rank_score: float
    label_logprobs: list[float]


def _choices_shown(item: dict) -> bool:
    """Every reading's choice is one of the options shown (``order``), or none."""
    order = item.get("order")
    return not isinstance(order, list) or all(
        not isinstance(item.get(r), dict) or item[r].get("choice") is None or item[r]["choice"] in order
        for r in READINGS)


class _ShownItem(_Item):
    task: str
    target: str
    pos: str
    order: list[int]
    gold_position: int


class ShownItem(_ShownItem, total=False):
    """A WDLMPro choose item as ``report`` reads it (its options in the order shown, each reading's answer)."""

    word: str
    definition: str
    options: list[str]
    skipped: str
    likelihood: ReadingBlock
    likelihood_cyclic: dict[str, Any]
    generation: ReadingBlock
    generation_lenient: ReadingBlock


#: a choose item of a result file: typed, and each reading's choice among the options shown
SHOWN_ITEM = Annotated[ShownItem, Rule(_choices_shown, "answered by an option shown (its choice is not in its order)")]

#: a unit of a choose run: its items
UNIT_RECORD = list[ChooseItem]


def reading_summary(asked: Sequence[dict], scores: Callable[[str], dict[str, Callable[[dict], float]]],
                    answer_key: str) -> dict:
    """``{"n", reading: {score..., "valid", "failures", "n", "agreement", "ci"}}`` of the asked records of a slice.

    ``scores(reading)``: each score of a reading's answer block, averaged over the records it answered; a
    generated reading adds the share of parsed answers and each failure mode's count (failures count as wrong).
    """
    out: dict = {"n": len(asked)}
    for reading in readings_present(asked):
        blocks = [r[reading] for r in asked if reading in r]
        measures = dict(scores(reading))
        block: dict = {name: float(np.mean([f(b) for b in blocks])) for name, f in measures.items()}
        if reading in GENERATION_FAILURES:
            measures["valid"] = parsed
            failures = Counter(b["failure"] for b in blocks if b["failure"])
            block.update(valid=float(np.mean([b["failure"] is None for b in blocks])),
                         failures={mode: failures.get(mode, 0) for mode in GENERATION_FAILURES[reading]})
        block.update(n=len(blocks), agreement=agreement(asked, reading, answer_key),
                     ci=reading_intervals(asked, reading, measures))
        out[reading] = block
    return out


def parsed(block: dict) -> float:
    """1 where a generated answer parsed (the ``valid`` share of a generated reading), else 0."""
    return float(block["failure"] is None)


def position_bias(records: Sequence[dict], gold: Callable[[dict], list[int]]) -> dict:
    """Per reading: how often each presented position (1 = first listed) was chosen, beside how often it was
    gold (``gold(record)``, in the order of the block's ``positions``); ``most_chosen_share`` against
    ``gold_share_there`` and the total variation distance (valid answers only) show crowding onto one position.
    """
    out: dict = {}
    for reading in READINGS:
        chosen: Counter = Counter()
        golds: Counter = Counter()
        pairs = [(c, g) for r in records if "positions" in r.get(reading, {})
                 for c, g in zip(r[reading]["positions"], gold(r))]
        if not pairs:
            continue
        for c, g in pairs:
            chosen["none" if c is None else str(c + 1)] += 1
            golds[str(g + 1)] += 1
        valid = [(c, g) for c, g in pairs if c is not None]
        block: dict = {"n": len(pairs), "chosen": _by_position(chosen), "gold": _by_position(golds)}
        if valid:
            top, count = max(((k, v) for k, v in chosen.items() if k != "none"), key=lambda kv: (kv[1], -int(kv[0])))
            share = {k: v / len(valid) for k, v in Counter(str(c + 1) for c, _ in valid).items()}
            gold_share = {k: v / len(valid) for k, v in Counter(str(g + 1) for _, g in valid).items()}
            block.update(most_chosen=top, most_chosen_share=count / len(valid),
                         gold_share_there=gold_share.get(top, 0.0),
                         tv_distance=0.5 * sum(abs(share.get(k, 0.0) - gold_share.get(k, 0.0))
                                               for k in sorted(set(share) | set(gold_share), key=int)))
        out[reading] = block
    return out


def _by_position(counts: Counter) -> dict:
    keys = sorted((k for k in counts if k != "none"), key=int) + (["none"] if "none" in counts else [])
    return {k: counts[k] for k in keys}


def readings_present(records: Sequence[dict]) -> list[str]:
    return [r for r in READINGS if any(r in rec for rec in records)]


def item_means(records: Sequence[dict], value: Callable[[dict], float | None]) -> list[float | None]:
    """Per-item mean of ``value`` over the item's option orders (the bootstrap's unit is the item)."""
    by_item: dict[str, list] = {}
    for r in records:
        by_item.setdefault(r["item"], []).append(value(r))
    return [None if any(v is None for v in vs) else float(np.mean(vs)) for vs in by_item.values()]


def reading_intervals(records: Sequence[dict], reading: str, keys: dict[str, Callable[[dict], float]]) -> dict:
    """Bootstrap intervals over items of a reading's metrics (items answered in that reading)."""
    answered = [r for r in records if reading in r]

    def of(f: Callable[[dict], float]) -> Callable[[dict], float]:
        return lambda r: f(r[reading])

    return mean_intervals({name: item_means(answered, of(f)) for name, f in keys.items()})


def agreement(records: Sequence[dict], reading: str, answer_key: str) -> float | None:
    """Share of items answered the same (in original candidate indices) under every option order."""
    by_item: dict[str, list] = {}
    for r in records:
        if reading in r:
            by_item.setdefault(r["item"], []).append(repr(r[reading][answer_key]))
    multi = [v for v in by_item.values() if len(v) > 1]
    if not multi:
        return None
    return float(np.mean([len(set(v)) == 1 for v in multi]))


def check_labels(template: str, largest: int, max_candidates: int | None, lettered: bool = False) -> None:
    """Refuse options that cannot be lettered A-Z (``--template letters``, or ``lettered``), before the model
    loads (#26 D30: it was found only when the first such item was asked)."""
    shown = min(largest, max_candidates or largest)
    if shown > LETTERS_MAX and (lettered or load_template(template).labels == "letters"):
        raise LexprobeError(f"the largest item shows {shown} options, which cannot be lettered A-Z (--template "
                            f"{template}); give --max-candidates {LETTERS_MAX} or fewer")


def check_permutations(permutations: int, largest: int, max_candidates: int | None, squared: bool = False) -> None:
    """Refuse more ``--permutations`` than the largest item has distinct option orders (beyond n! the run only
    repeats orders); ``squared``: two lists are ordered (CoDA21), so (n!)^2 orders."""
    shown = min(largest, max_candidates or largest)
    orders = math.factorial(shown) ** (2 if squared else 1)
    if permutations > orders:
        raise LexprobeError(f"--permutations {permutations} exceeds the {orders} distinct option orders of the "
                            f"largest item ({shown} options shown); give --permutations {orders} or fewer")
