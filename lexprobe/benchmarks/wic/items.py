"""Word-in-context's items: MCL-WiC's pairs (or a file of one's own in its format, or an export) as the pair task
type's items, with the sets their thresholds are fitted on.

``--data``: ``mcl-wic:<pair>`` (``en-en`` ... ``zh-zh``, ``en-ar`` ... ``en-zh``), ``mcl-wic:multilingual`` (the five
same-language pairs), ``mcl-wic:crosslingual`` (English with each other), ``mcl-wic:all`` (the nine), a ``.data``
file with its ``.gold`` beside it, or a folder ``lexprobe export hf wic`` wrote. ``--split``: dev or test (dev exists
for the multilingual pairs only). ``--fit-on``: ``training`` (the en-en training set, the default: the task's one
training set, used for every pair as its participants did) or ``dev`` (each pair's own dev set; the cross-lingual
pairs, which have none, en-en's). A threshold is never fitted on the split scored: ``--split dev --fit-on dev`` is
refused. ``--limit N``: a seeded sample of N pairs of each pair's set; ``--fit-limit N``: of each set fitted on.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from lexprobe.data import mcl_wic
from lexprobe.errors import DataError
from lexprobe.tasks import pair

#: ``--data`` names of several language pairs
GROUPS = {"multilingual": mcl_wic.MULTILINGUAL, "crosslingual": mcl_wic.CROSSLINGUAL,
          "all": mcl_wic.MULTILINGUAL + mcl_wic.CROSSLINGUAL}
DATA_NAMES = tuple(f"{mcl_wic.NAME}:{n}" for n in (*GROUPS["all"], *GROUPS))


def language_pairs(data: str) -> tuple[str, ...] | None:
    """The language pairs ``--data`` names (None: a file or folder of one's own)."""
    prefix = f"{mcl_wic.NAME}:"
    if not data.startswith(prefix):
        return None
    name = data[len(prefix):]
    if name in GROUPS:
        return GROUPS[name]
    if name in GROUPS["all"]:
        return (name,)
    raise DataError(f"--data {data}: MCL-WiC has no language pair {name!r}; use one of {', '.join(DATA_NAMES)}, or "
                    "a .data file of your own (its .gold beside it)")


def _items(raw: list[mcl_wic.RawPair], group: str) -> list[pair.PairItem]:
    def target(text: str, ranges: tuple[tuple[int, int], ...]) -> pair.Target:
        return pair.Target(text, ranges[0][0], ranges[0][1], tuple(ranges[1:]))

    return [pair.PairItem(r.id, target(r.sentence1, r.ranges1), target(r.sentence2, r.ranges2), r.same, r.lemma,
                          r.pos, group) for r in raw]


def _sample(items: list, n: int | None, seed: int, what: str) -> list:
    """A seeded sample of ``n`` items in file order (all when ``n`` is None or covers them)."""
    if n is None or n >= len(items):
        return items
    keep = set(random.Random(f"{seed}:{what}").sample(range(len(items)), n))
    return [x for i, x in enumerate(items) if i in keep]


def _official(split: str, language_pair: str) -> list[pair.PairItem]:
    data, gold = mcl_wic.official(split, language_pair)
    return _items(mcl_wic.read_pairs(data, gold, strict_spans=False), language_pair)


def _own(path: Path) -> list[pair.PairItem]:
    gold = path.with_suffix(".gold")
    if path.suffix != ".data" or not gold.is_file():
        raise DataError(f"--data {path}: give an MCL-WiC-format .data file with its .gold file beside it "
                        f"({gold.name}), an export folder, or one of {', '.join(DATA_NAMES)}")
    return _items(mcl_wic.read_pairs(path, gold, strict_spans=True), path.stem)


def load(config: Any) -> pair.PairItems:
    """The pairs ``config`` names, and the sets their thresholds are fitted on."""
    exported = pair.read_export(config.data, "wic")
    if exported is not None:
        return exported
    pairs = language_pairs(config.data)
    if pairs is not None:
        missing = [p for p in pairs if p not in mcl_wic.SPLITS[config.split]]
        if missing:
            raise DataError(f"MCL-WiC has no {config.split} set for {', '.join(missing)} (dev: the multilingual pairs "
                            "only); use --split test")
        scored = [x for p in pairs for x in _sample(_official(config.split, p), config.limit, config.seed, p)]
    else:
        own = _own(Path(config.data))
        scored = _sample(own, config.limit, config.seed, own[0].group)
        pairs = (own[0].group,)
    if config.fit_on == config.split:
        raise DataError(f"--fit-on {config.fit_on} is the split scored: a threshold is never fitted on the pairs it "
                        "decides; fit on training (or on dev when scoring test)")
    fit: dict[str, list[pair.PairItem]] = {}
    fit_for: dict[str, str] = {}
    for p in pairs:
        source = ("training", "en-en") if config.fit_on == "training" else (
            "dev", p if p in mcl_wic.SPLITS["dev"] else "en-en")
        name = f"{source[0]}.{source[1]}"  # as the release names its files: training.en-en
        if name not in fit:
            fit[name] = _sample(_official(*source), config.fit_limit, config.seed, name)
        fit_for[p] = name
    return pair.PairItems(scored, fit, fit_for)


def dataset(config: Any) -> dict | None:
    """What the run read (the result's ``dataset``)."""
    pairs = language_pairs(config.data)
    if pairs is None:
        return None
    return {"name": mcl_wic.NAME, "sample": False,
            "what": f"MCL-WiC {config.split}: {', '.join(pairs)}"
                    + (f" (a seeded sample of {config.limit} pairs each)" if config.limit else ""),
            "get": f"lexprobe data fetch {mcl_wic.NAME}"}
