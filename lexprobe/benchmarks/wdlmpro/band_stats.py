"""Targets per depth band (Table 6) and per frequency band, beside the published figures.

``lexprobe wdlmpro stats`` prints these so a user sees whether a run's breakdowns compare with the paper's:
the depth bands must equal Table 6 (they do with WordNet 3.0), the frequency bands depend on their source.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Literal, Sequence, TypedDict

from lexprobe.benchmarks.wdlmpro.attributes import FREQUENCY_BANDS, PHRASE_PENALTY, depth_band_order
from lexprobe.reporting import format_table

POS_NAMES = {"n": "Noun", "v": "Verb"}
# Table 6 of the paper (nouns): targets and mean candidates per depth band
PAPER_DEPTH = {"3–5": (2106, 110), "6–8": (25232, 53), "9–11": (18521, 45), "12–14": (4473, 19), "15–19": (928, 13)}
# targets per frequency band in the authors' release (WWC counts)
PAPER_FREQUENCY = {"n": {"rare": 10703, "medium": 12981, "frequent": 27576},
                   "v": {"rare": 799, "medium": 934, "frequent": 6754}}


def band_counts(groups: Sequence, attributes: Sequence[dict], key: str) -> dict[str, dict[str, tuple[int, float]]]:
    """{pos: {band: (number of targets, mean number of candidates)}}."""
    sizes: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for g, a in zip(groups, attributes):
        sizes[g.pos][a[key]].append(g.size)
    return {pos: {band: (len(v), sum(v) / len(v)) for band, v in bands.items()} for pos, bands in sizes.items()}


def format_depth_table(counts: dict) -> str:
    rows = []
    for pos in (p for p in POS_NAMES if p in counts):
        for band in depth_band_order():
            n, mean = counts[pos].get(band, (0, None))
            paper = PAPER_DEPTH.get(band) if pos == "n" else None
            if n == 0 and paper is None:
                continue
            rows.append([POS_NAMES[pos], band, f"{n:,}", f"{paper[0]:,}" if paper else "",
                         f"{mean:.0f}" if mean is not None else "", f"{paper[1]}" if paper else ""])
    headers = ["POS", "depth", "# targets", "paper", "mean # cand.", "paper"]
    return format_table(headers, rows, title="Targets by WordNet depth (Table 6; depth = nodes on the shortest path to the root)")


def format_frequency_table(counts: dict, source: str) -> str:
    rows = []
    for pos in (p for p in POS_NAMES if p in counts):
        for band in FREQUENCY_BANDS:
            n, mean = counts[pos].get(band, (0, None))
            paper = PAPER_FREQUENCY[pos][band]
            rows.append([POS_NAMES[pos], band, f"{n:,}", f"{paper:,}", f"{n - paper:+,}",
                         f"{mean:.0f}" if mean is not None else ""])
    headers = ["POS", "frequency", "# targets", "authors (WWC)", "difference", "mean # cand."]
    return format_table(headers, rows, title=f"Targets by frequency band ({source})")


def frequency_source(counts_file=None) -> str:
    if counts_file is not None:
        return f"counts file {counts_file}: < 10 rare, 10-99 medium, >= 100 frequent"
    return (f"wordfreq Zipf < 1 rare, < 2 medium; a phrase: its rarest word's Zipf - {PHRASE_PENALTY:g} per extra word; "
            "> 3 NLTK tokens rare")


# ---------------------------------------------------------------- cached by content

#: bump when what ``cmd_stats`` computes changes: a new key, the old entries unused
STATS_VERSION = 1


def stats_key(data: str | None, pos: str, keep_duplicates: bool, counts: str | None, breakdowns: bool) -> str:
    """What the figures of ``wdlmpro stats`` depend on, as one digest: WordNet, the builder's version, the options,
    the bytes of the --data and --counts files (or wordfreq's version and the phrase estimate)."""
    from importlib import metadata

    from lexprobe.benchmarks.wdlmpro.dataset import BUILDER_VERSION, dataset_filename, pos_list
    from lexprobe.cache import stable_hash
    from lexprobe.data.wordnet import wordnet_key
    from lexprobe.errors import DataError
    from lexprobe.provenance import file_sha256
    from lexprobe.regular_files import require_regular

    def digest(path: Path) -> str:  # a FIFO is refused, never read; a missing file is the reader's to word
        return file_sha256(path) if require_regular(path).is_file() else f"missing:{path}"

    if counts and not Path(counts).is_file():
        require_regular(counts)
        raise DataError(f"--counts {counts}: no such file; pass a word<TAB>count file")
    if data:
        p = Path(data)
        files = [p] if not p.is_dir() else [p / dataset_filename(x) for x in pos_list(pos)]
        source: Any = [digest(f) for f in files]
    else:
        source = {"wordnet": wordnet_key(), "builder": BUILDER_VERSION, "keep_duplicates": keep_duplicates}
    frequency = digest(Path(counts)) if counts else {"wordfreq": metadata.version("wordfreq"),
                                                   "phrase_penalty": PHRASE_PENALTY}
    return stable_hash({"version": STATS_VERSION, "source": source, "pos": pos, "breakdowns": breakdowns,
                        "frequency": frequency if breakdowns else None,
                        "wordnet": wordnet_key() if breakdowns else None}, 24)  # depths come from WordNet


class CachedStats(TypedDict, total=False):
    """A ``wdlmpro stats`` cache entry as ``cached_stats`` writes it (read back through ``validation``)."""

    format: Literal["wdlmpro-stats/1"]
    table2: dict[str, dict[str, float]]
    depth: dict[str, dict[str, list[float]]]
    frequency: dict[str, dict[str, list[float]]]


def cached_stats(key: str, compute: Callable[[], dict]) -> dict:
    """The figures stored under ``key`` in the cache (``<cache>/wdlmpro/stats-<key>.json``), else ``compute()``'s,
    stored for next time; an entry that does not read back as ``CachedStats`` is computed again."""
    import json

    from lexprobe.cache import cache_dir, read_cache_file, write_cache_file
    from lexprobe.validation import problems

    path = cache_dir() / "wdlmpro" / f"stats-{key}.json"
    raw = read_cache_file(path)
    try:
        if raw is not None and not problems(figures := json.loads(raw), CachedStats):
            return figures
    except ValueError:
        pass
    figures = json.loads(json.dumps(compute()))  # the shape a cached read gives (tuples as lists)
    write_cache_file(path, json.dumps({"format": "wdlmpro-stats/1", **figures}).encode("utf-8"))
    return figures
