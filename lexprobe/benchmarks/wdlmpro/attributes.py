"""Per-target attributes for result breakdowns: WordNet depth band and frequency band.

Depth (Table 6 of the paper) is the length of the shortest hypernym path from the
target to a root, NLTK's ``Synset.min_depth()`` (entity.n.01 has depth 0). The paper's
bands are 3-5, 6-8, 9-11, 12-14 and 15-19; depths outside them get their own bands
("0-2", "20+") so no target is lost from a breakdown.

Frequency (Table 7) puts a target's string form into rare / medium / frequent. The
paper counts occurrences in the Westbury Wikipedia Corpus (rare < 10, medium 10-99,
frequent >= 100), which we do not have. By default we use the ``wordfreq`` package:
Zipf < 1 rare, 1 <= Zipf < 2 medium, Zipf >= 2 frequent. A user may instead supply a
counts file (TSV ``word<TAB>count``, one per line) and get the paper's thresholds;
keys are matched case-insensitively (counts of case variants are summed). Either way,
as in the paper, a target of more than 3 tokens is rare without a lookup. Tokens are
found without NLTK's tokenizer models: the string form is split on whitespace and
hyphens ("jack-in-the-pulpit" has 4 tokens, "a cappella singing" 3).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Callable, Sequence

from lexprobe.errors import DataError

DEPTH_BANDS = ((0, 2), (3, 5), (6, 8), (9, 11), (12, 14), (15, 19))
PAPER_DEPTH_BANDS = ("3–5", "6–8", "9–11", "12–14", "15–19")
FREQUENCY_BANDS = ("rare", "medium", "frequent")
MAX_COUNTED_TOKENS = 3
ZIPF_MEDIUM, ZIPF_FREQUENT = 1.0, 2.0
COUNT_MEDIUM, COUNT_FREQUENT = 10, 100

_TOKEN_SPLIT = re.compile(r"[\s\-]+")


def depth_band(depth: int) -> str:
    """Band label of a depth: "0–2", "3–5", ..., "15–19", "20+" (en dashes, as in the paper)."""
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    for lo, hi in DEPTH_BANDS:
        if lo <= depth <= hi:
            return f"{lo}–{hi}"
    return f"{DEPTH_BANDS[-1][1] + 1}+"


def depth_band_order() -> list[str]:
    """All band labels in increasing depth, for printing breakdown tables."""
    return [depth_band(lo) for lo, _ in DEPTH_BANDS] + [depth_band(DEPTH_BANDS[-1][1] + 1)]


def synset_depth(synset_name: str, wn=None) -> int:
    """Shortest hypernym-path length from the synset to a root (NLTK ``min_depth``)."""
    if wn is None:
        from lexprobe.data.wordnet import load_wordnet

        wn = load_wordnet()
    return wn.synset(synset_name).min_depth()


def word_tokens(word: str) -> list[str]:
    """Tokens of a string form: split on whitespace and hyphens (NLTK-free)."""
    return [t for t in _TOKEN_SPLIT.split(word) if t]


def zipf_band(zipf: float) -> str:
    if zipf < ZIPF_MEDIUM:
        return "rare"
    return "medium" if zipf < ZIPF_FREQUENT else "frequent"


def count_band(count: int) -> str:
    if count < COUNT_MEDIUM:
        return "rare"
    return "medium" if count < COUNT_FREQUENT else "frequent"


def load_counts(path: str | Path) -> dict[str, int]:
    """Read ``word<TAB>count`` lines (blank lines skipped); keys lowercased, case variants summed."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"counts file {path} not found; give a TSV file of word<TAB>count lines")
    counts: dict[str, int] = defaultdict(int)
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            parts = line.split("\t")
            if len(parts) != 2 or not parts[0].strip() or not re.fullmatch(r"\s*\d+\s*", parts[1]):
                raise DataError(
                    f"{path}:{lineno}: expected word<TAB>count with a non-negative integer count, got {line[:60]!r}; "
                    "fix the line"
                )
            counts[parts[0].strip().lower()] += int(parts[1])
    if not counts:
        raise DataError(f"counts file {path} is empty; give a TSV file of word<TAB>count lines")
    return dict(counts)


def frequency_bander(counts_file: str | Path | None = None) -> Callable[[str], str]:
    """A function word -> band: from a counts file if given, else from wordfreq's Zipf values."""
    if counts_file is not None:
        counts = load_counts(counts_file)
        lookup = lambda w: count_band(counts.get(w.lower(), 0))  # noqa: E731
    else:
        from wordfreq import zipf_frequency

        lookup = lambda w: zipf_band(zipf_frequency(w, "en"))  # noqa: E731

    def band(word: str) -> str:
        if len(word_tokens(word)) > MAX_COUNTED_TOKENS:
            return "rare"
        return lookup(word)

    return band


def attributes_fn(counts_file: str | Path | None = None, wn=None) -> Callable[[Sequence], list[dict]]:
    """A function groups -> [attributes of each group's target] (same order), for chunked runs.

    The counts file (or wordfreq) and WordNet are loaded once, not once per chunk.
    """
    if wn is None:
        from lexprobe.data.wordnet import load_wordnet

        wn = load_wordnet()
    band = frequency_bander(counts_file)

    def attributes_of(groups: Sequence) -> list[dict]:
        out = []
        for g in groups:
            depth = synset_depth(g.target, wn)
            out.append(
                {
                    "depth": depth,
                    "depth_band": depth_band(depth),
                    "frequency_band": band(g.word),
                    "n_words": len(word_tokens(g.word)),
                }
            )
        return out

    return attributes_of


def target_attributes(groups: Sequence, counts_file: str | Path | None = None, wn=None) -> dict[str, dict]:
    """{target synset: {depth, depth_band, frequency_band, n_words}} for breakdowns."""
    return {g.target: a for g, a in zip(groups, attributes_fn(counts_file, wn)(groups))}
