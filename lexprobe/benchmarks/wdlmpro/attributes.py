"""Per-target attributes for result breakdowns (docs/wdlmpro.md, "Breakdown attributes"), and the targets per
band beside the published figures (``lexprobe wdlmpro stats``).

Depth (Table 6): nodes on the shortest hypernym path to a root, as the authors' code counts them; verbs get
bands of their own ("0–2", "20+"). Frequency (Table 7): the paper's Westbury Wikipedia counts are not
available, so ``wordfreq`` Zipf values stand in with the paper's thresholds (a phrase: ``PHRASE_PENALTY``),
unless a ``word<TAB>count`` file gives counts. A target of more than 3 NLTK tokens is rare either way.
``stats`` prints the targets per band so a user sees whether a run's breakdowns compare with the paper's: the
depth bands must equal Table 6 (they do with WordNet 3.0), the frequency bands depend on their source.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Literal, Sequence, TypedDict

from lexprobe.errors import DataError
from lexprobe.reporting import format_table

DEPTH_BANDS = ((0, 2), (3, 5), (6, 8), (9, 11), (12, 14), (15, 19))
PAPER_DEPTH_BANDS = ("3–5", "6–8", "9–11", "12–14", "15–19")
FREQUENCY_BANDS = ("rare", "medium", "frequent")
MAX_COUNTED_TOKENS = 3
ZIPF_MEDIUM, ZIPF_FREQUENT = 1.0, 2.0
COUNT_MEDIUM, COUNT_FREQUENT = 10, 100
# Zipf points taken off a phrase's rarest word per extra word (log10 of the share of the rarest word's
# occurrences inside the phrase), calibrated on the authors' band sizes (docs/wdlmpro.md). With 0 a phrase
# gets its rarest word's Zipf, a little above wordfreq's own phrase estimate.
PHRASE_PENALTY = 1.75
POS_NAMES = {"n": "Noun", "v": "Verb"}
# Table 6 of the paper (nouns): targets and mean candidates per depth band
PAPER_DEPTH = {"3–5": (2106, 110), "6–8": (25232, 53), "9–11": (18521, 45), "12–14": (4473, 19), "15–19": (928, 13)}
# targets per frequency band in the authors' release (WWC counts)
PAPER_FREQUENCY = {"n": {"rare": 10703, "medium": 12981, "frequent": 27576},
                   "v": {"rare": 799, "medium": 934, "frequent": 6754}}


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
    """Nodes on the shortest hypernym path to a root, the synset included (the authors' depth):
    ``min(len(p) for p in synset.hypernym_paths())``, i.e. the far cheaper ``min_depth()`` (edges) + 1."""
    if wn is None:
        from lexprobe.data.wordnet import load_wordnet

        wn = load_wordnet()
    try:
        synset = wn.synset(synset_name)
    except Exception as err:  # NLTK raises WordNetError / ValueError for unknown names
        raise DataError(
            f"target {synset_name!r} is not a WordNet synset ({err}); depth bands need the targets of "
            "`lexprobe wdlmpro build` (`wdlmpro stats` takes --no-breakdowns; `eval` needs WordNet targets)"
        ) from None
    return synset.min_depth() + 1


@lru_cache(maxsize=1)
def _nltk_tokenizer():
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


#: a form of letters and single spaces: NLTK's tokenizer splits it at the spaces, unless a contraction rule applies
_PLAIN = re.compile(r"[A-Za-z]+(?: [A-Za-z]+)*")


@lru_cache(maxsize=1)
def _contractions() -> tuple:
    from nltk.tokenize import NLTKWordTokenizer

    # NLTK's own rules, compiled by ``re`` without NLTK's guard (fixed patterns on a short form: nothing to guard)
    return tuple(re.compile(rule.pattern) for rule in (*NLTKWordTokenizer.CONTRACTIONS2, *NLTKWordTokenizer.CONTRACTIONS3))


def word_tokens(word: str) -> list[str]:
    """NLTK word tokens of a string form (``NLTKWordTokenizer``; no tokenizer models needed).

    Why the shortcut: NLTK runs every rule through its ReDoS guard, ~0.4 ms a word, and ``wdlmpro stats`` tokenizes
    59,747 targets (most of its minute). A form of letters and single spaces that no contraction rule of NLTK's
    own (``cannot``, ``gonna``, ...) touches is split at its spaces, which is what the tokenizer gives it: every
    lemma of WordNet is checked against the tokenizer in ``tests/benchmarks/wdlmpro/test_attributes.py``."""
    if _PLAIN.fullmatch(word) and not any(rule.search(f" {word} ") for rule in _contractions()):
        return word.split(" ")
    return _nltk_tokenizer().tokenize(word)


def phrase_zipf(word: str, penalty: float = PHRASE_PENALTY) -> float:
    """wordfreq Zipf of a word; of a phrase (wordfreq's tokens), its rarest word's Zipf minus ``penalty`` per
    extra word. An unknown word has Zipf 0, so a phrase containing one is rare."""
    from wordfreq import tokenize, zipf_frequency

    parts = tokenize(word, "en")
    if len(parts) <= 1:
        return zipf_frequency(word, "en")
    return min(zipf_frequency(p, "en") for p in parts) - penalty * (len(parts) - 1)


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
    from lexprobe.data.files import require_regular

    path = require_regular(Path(path), "give a TSV file of word<TAB>count lines")
    if not path.is_file():
        raise DataError(f"counts file {path} not found; give a TSV file of word<TAB>count lines")
    counts: dict[str, int] = defaultdict(int)
    try:
        text = path.read_text(encoding="utf-8")  # universal newlines, as iterating the file did
    except UnicodeDecodeError as err:
        raise DataError(f"counts file {path} is not UTF-8 text ({err.reason} at byte {err.start}); save it as "
                        "UTF-8 word<TAB>count lines") from None
    except OSError as err:
        raise DataError(f"cannot read counts file {path} ({err.strerror or err})") from None
    for lineno, line in enumerate(text.split("\n"), 1):
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


def frequency_bander(counts_file: str | Path | None = None, phrase_penalty: float = PHRASE_PENALTY) -> Callable[[str], str]:
    """A function word -> band: from a counts file if given, else from wordfreq (``phrase_zipf``)."""
    if counts_file is not None:
        counts = load_counts(counts_file)

        def lookup(word: str, tokens: list[str]) -> str:
            key = word.lower()
            if key not in counts:  # the authors key their WWC counts by NLTK tokens joined by spaces
                key = " ".join(tokens).lower()
            return count_band(counts.get(key, 0))
    else:
        def lookup(word: str, tokens: list[str]) -> str:
            return zipf_band(phrase_zipf(word, phrase_penalty))

    def band(word: str) -> str:
        tokens = word_tokens(word)
        return "rare" if len(tokens) > MAX_COUNTED_TOKENS else lookup(word, tokens)

    return band


def attributes_fn(counts_file: str | Path | None = None, wn=None) -> Callable[[Sequence], list[dict]]:
    """A function groups -> [attributes of each group's target] (same order), for chunked runs; the counts file
    (or wordfreq) and WordNet are loaded once, not once per chunk."""
    if wn is None:
        from lexprobe.data.wordnet import load_wordnet

        wn = load_wordnet()
    band = frequency_bander(counts_file)

    def attributes_of(groups: Sequence) -> list[dict]:
        out = []
        for g in groups:
            depth = synset_depth(g.target, wn)
            out.append({"depth": depth, "depth_band": depth_band(depth), "frequency_band": band(g.word),
                        "n_words": len(word_tokens(g.word))})
        return out

    return attributes_of


# ---------------------------------------------------------------- wdlmpro stats


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
    from lexprobe.cache import cache_dir, cached_json

    def computed() -> dict:
        return json.loads(json.dumps(compute()))  # the shape a cached read gives (tuples as lists)

    return cached_json(cache_dir() / "wdlmpro" / f"stats-{key}.json", CachedStats, computed,
                       inputs={"cache": "wdlmpro-stats", "key": key},
                       stored=lambda figures: {"format": "wdlmpro-stats/1", **figures})
