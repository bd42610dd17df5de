"""Score matrices for WDLMPro groups, one strategy per kind of model.

Both tasks are built from (word, definition) pairs: W2D pairs the target word with
each candidate's definition, D2W the target's definition with each candidate word.
Sister groups overlap heavily and W2D/D2W ask for largely the same pairs, so the
pairs are de-duplicated across groups and tasks and each is scored once:

- masked LM: a query depends only on (pattern, definition, number of masks), so
  the engine runs each distinct query once and reads off every word of that token
  length (``MaskedLMScorer.slot_logprobs``); W2D sums the word's token
  log-probabilities, D2W averages them; both are averaged over the patterns.
- causal LM: context ``<DEF> is the definition of`` (verbs ``to <DEF> ...``),
  continuation `` word``; W2D uses the summed log-probability of all tokens, D2W the
  first token's; each context is encoded once for all its words.
- embeddings: cosine of word and definition vectors; random: seeded per instance.

Tokenisation is done per piece (definition context, word) and memoised; the pieces
are exactly what tokenising the whole filled-in pattern gives, because the word
always sits between spaces (tests check this against whole-sentence tokenisation).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from lexprobe.scorers.masked import SlotRequest, fit_query

TASKS = ("w2d", "d2w")
MASKED_PATTERNS = {
    "n": ("_ is <DEF>", "_ means <DEF>", "_ is defined as <DEF>"),
    "v": ("definition of _ is to <DEF>", "to <DEF> is the definition of _"),
}
CAUSAL_PATTERNS = {"n": "<DEF> is the definition of _", "v": "to <DEF> is the definition of _"}
_PROBE_DEFINITION = "a word"


def fill(pattern: str, definition: str) -> tuple[str, str]:
    """(text before the blank, text after the blank) of a pattern with the definition in."""
    left, right = pattern.split("_")  # split first: a definition may itself contain "_"
    return left.replace("<DEF>", definition), right.replace("<DEF>", definition)


def display_word(word: str, left: str, case_sensitive: bool) -> str:
    """Capitalise the word where it starts the input (for case-sensitive models)."""
    if case_sensitive and left == "" and word:
        return word[0].upper() + word[1:]
    return word


def pairs_for(groups, tasks: Sequence[str]) -> set[tuple[str, str, str]]:
    """Distinct (pos, word, definition) pairs the tasks need."""
    pairs = set()
    for g in groups:
        for c in g.candidates:
            if "w2d" in tasks:
                pairs.add((g.pos, g.word, c.definition))
            if "d2w" in tasks:
                pairs.add((g.pos, c.word, g.definition))
    return pairs


def group_score_vectors(groups, tasks, pair_value) -> dict[tuple[str, int], np.ndarray]:
    """Assemble per-group candidate scores from a pair -> (w2d score, d2w score) table."""
    out = {}
    for i, g in enumerate(groups):
        if "w2d" in tasks:
            out[("w2d", i)] = np.array([pair_value[(g.pos, g.word, c.definition)][0] for c in g.candidates])
        if "d2w" in tasks:
            out[("d2w", i)] = np.array([pair_value[(g.pos, c.word, g.definition)][1] for c in g.candidates])
    return out


# ---------------------------------------------------------------- masked LM


class MaskedRequests:
    """Builds slot requests for (pattern, word, definition) with memoised tokenisation."""

    def __init__(self, scorer):
        self.scorer = scorer
        self._context: dict[tuple[str, str], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        self._word: dict[tuple[str, str], tuple[int, ...]] = {}

    def request(self, pattern: str, word: str, definition: str) -> SlotRequest:
        key = (pattern, definition)
        if key not in self._context:
            left, right = fill(pattern, definition)
            probe = self.scorer.slot_request(left, display_word("x", left, False), right)
            self._context[key] = (probe.prefix, probe.suffix)
        wkey = (pattern, word)
        if wkey not in self._word:
            left, right = fill(pattern, _PROBE_DEFINITION)
            shown = display_word(word, left, self.scorer.case_sensitive)
            self._word[wkey] = self.scorer.slot_request(left, shown, right).word
        prefix, suffix = self._context[key]
        word = self._word[wkey]
        prefix, suffix = fit_query(prefix, len(word), suffix, self.scorer.max_length)
        return SlotRequest(prefix, word, suffix)


def masked_pair_values(scorer, pairs: Iterable[tuple[str, str, str]], progress=False) -> dict:
    builder = MaskedRequests(scorer)
    pairs = sorted(pairs)
    requests, index = [], []
    for p, (pos, word, definition) in enumerate(pairs):
        for pattern in MASKED_PATTERNS[pos]:
            requests.append(builder.request(pattern, word, definition))
            index.append(p)
    logps = scorer.slot_logprobs(requests, progress=progress)
    sums = np.zeros(len(pairs))
    means = np.zeros(len(pairs))
    counts = np.zeros(len(pairs))
    for p, lp in zip(index, logps):
        sums[p] += lp.sum()
        means[p] += lp.mean()
        counts[p] += 1
    return {pair: (sums[i] / counts[i], means[i] / counts[i]) for i, pair in enumerate(pairs)}


# ---------------------------------------------------------------- causal LM


class CausalRequests:
    """(context ids, continuation ids) with memoised tokenisation per definition and per word."""

    def __init__(self, scorer):
        self.scorer = scorer
        self._context: dict[tuple[str, str], tuple[int, ...]] = {}
        self._word: dict[tuple[str, str], tuple[int, ...]] = {}

    def request(self, pos: str, word: str, definition: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        pattern = CAUSAL_PATTERNS[pos]
        left, _ = fill(pattern, definition)
        if (pos, definition) not in self._context:
            self._context[(pos, definition)] = self.scorer.split(left.rstrip(), " x")[0]
        if (pos, word) not in self._word:
            probe_left, _ = fill(pattern, _PROBE_DEFINITION)
            self._word[(pos, word)] = self.scorer.split(probe_left.rstrip(), " " + word)[1]
        ctx, cont = self._context[(pos, definition)], self._word[(pos, word)]
        limit = self.scorer.max_length
        if limit and len(ctx) + len(cont) > limit:  # as CausalLMScorer.split: keep the context's end
            ctx = ctx[len(ctx) + len(cont) - limit :]
        return ctx, cont


def causal_pair_values(scorer, pairs, tasks, progress=False) -> dict:
    builder = CausalRequests(scorer)
    pairs = sorted(pairs)
    requests = [builder.request(*pair) for pair in pairs]
    if "w2d" not in tasks:  # D2W needs only the first token: skip the second forward pass
        requests = [(ctx, cont[:1]) for ctx, cont in requests]
    logps = scorer.token_logprobs(requests, progress=progress)
    return {pair: (float(lp.sum()), float(lp[0])) for pair, lp in zip(pairs, logps)}


# ---------------------------------------------------------------- embeddings


def embedding_pair_values(scorer, pairs, progress=False) -> dict:
    pairs = sorted(pairs)
    words = sorted({w for _, w, _ in pairs})
    defs = sorted({d for _, _, d in pairs})
    wv = dict(zip(words, scorer.encode(words, progress=progress)))
    dv = dict(zip(defs, scorer.encode(defs, progress=progress)))
    out = {}
    for pair in pairs:
        cos = float(np.dot(wv[pair[1]], dv[pair[2]]))
        out[pair] = (cos, cos)
    return out


# ---------------------------------------------------------------- dispatch


def score_groups(scorer, groups, tasks: Sequence[str], progress: bool = False) -> dict[tuple[str, int], np.ndarray]:
    """Candidate scores of every group for every task: {(task, group index): scores}."""
    if scorer.kind == "random":
        return {
            (task, i): scorer.scores(f"wdlmpro:{task}:{g.target}", len(g.candidates))
            for i, g in enumerate(groups) for task in tasks
        }
    pairs = pairs_for(groups, tasks)
    if scorer.kind == "masked":
        values = masked_pair_values(scorer, pairs, progress)
    elif scorer.kind == "causal":
        values = causal_pair_values(scorer, pairs, tasks, progress)
    elif scorer.kind in ("embedding", "static"):
        values = embedding_pair_values(scorer, pairs, progress)
    else:  # pragma: no cover
        raise ValueError(f"no WDLMPro scoring for kind {scorer.kind!r}")
    return group_score_vectors(groups, tasks, values)


def word_token_count(scorer, word: str) -> int:
    """Tokens of the word as the model sees it mid-sentence (whitespace words for other kinds)."""
    tok = getattr(scorer, "tokenizer", None)
    if tok is None or not hasattr(tok, "tokenize"):
        return len(word.split())
    return len(tok.tokenize(" " + word))
