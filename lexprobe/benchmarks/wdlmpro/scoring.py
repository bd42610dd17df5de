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

The recipe (``recipe.py``: ``paper`` or ``authors``) decides the patterns per task
and POS, how the word and definition are shown, and how patterns are averaged; a
request shared by both tasks still runs once. Masked LMs also report every pattern's
own scores (``score_groups(..., pattern_scores=...)``). Under ``authors`` a causal
W2D score depends on the batch the definition was scored in (the context shift of
``definition_processor.py:258-259``), so those are scored per group
(``causal_w2d_batch_shift``).

Tokenisation is done per piece (definition context, word) and memoised; the pieces
are exactly what tokenising the whole filled-in pattern gives, because the word
always sits between spaces (tests check this against whole-sentence tokenisation).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup
from lexprobe.benchmarks.wdlmpro.recipe import PAPER, Recipe, get_recipe
from lexprobe.scorers.base import TooLong
from lexprobe.scorers.capabilities import (
    PairTokenizer,
    RandomScores,
    SentenceEmbeddings,
    SlotLogprobs,
    SlotRequests,
    Tokenized,
    TokenLogprobs,
    strategy,
)
from lexprobe.scorers.causal import fit_context
from lexprobe.scorers.masked import SlotRequest, fit_query

MASKED_PATTERNS = {pos: PAPER.masked_patterns[("w2d", pos)] for pos in ("n", "v")}
CAUSAL_PATTERNS = {pos: PAPER.causal_patterns[("w2d", pos)] for pos in ("n", "v")}
_PROBE_DEFINITION = "a word"


def fill(pattern: str, definition: str) -> tuple[str, str]:
    """(text before the blank, text after the blank) of a pattern with the definition in."""
    left, right = pattern.split("_")  # split first: a definition may itself contain "_"
    return left.replace("<DEF>", definition), right.replace("<DEF>", definition)


def display_word(word: str, left: str, case_sensitive: bool, recipe: Recipe = PAPER) -> str:
    """Capitalise the word where it starts the input (paper: for case-sensitive models)."""
    return recipe.show_word(word, left == "", case_sensitive)


def pairs_for(groups, tasks: Sequence[str]) -> dict[str, set[tuple[str, str, str]]]:
    """Distinct (pos, word, definition) pairs each task needs."""
    pairs: dict[str, set] = {task: set() for task in tasks}
    for g in groups:
        for c in g.candidates:
            if "w2d" in tasks:
                pairs["w2d"].add((g.pos, g.word, c.definition))
            if "d2w" in tasks:
                pairs["d2w"].add((g.pos, c.word, g.definition))
    return pairs


def group_score_vectors(groups, tasks, task_values) -> dict[tuple[str, int], np.ndarray]:
    """Assemble per-group candidate scores from {task: {pair: score}}."""
    out = {}
    for i, g in enumerate(groups):
        if "w2d" in tasks:
            out[("w2d", i)] = np.array([task_values["w2d"][(g.pos, g.word, c.definition)] for c in g.candidates])
        if "d2w" in tasks:
            out[("d2w", i)] = np.array([task_values["d2w"][(g.pos, c.word, g.definition)] for c in g.candidates])
    return out


class _DefinitionText:
    """The definition as the recipe shows it in a pattern (capitalised at the start, cut), memoised."""

    def __init__(self, recipe: Recipe, tokenizer):
        self.recipe, self.tokenizer = recipe, tokenizer
        self._memo: dict[tuple[bool, str], str] = {}

    def __call__(self, pattern: str, definition: str) -> str:
        key = (pattern.startswith("<DEF>"), definition)
        if key not in self._memo:
            self._memo[key] = self.recipe.show_definition(definition, key[0], self.tokenizer)
        return self._memo[key]


# ---------------------------------------------------------------- masked LM


class MaskedRequests:
    """Builds slot requests for (pattern, word, definition) with memoised tokenisation."""

    def __init__(self, scorer, recipe: Recipe | str = PAPER):
        self.scorer = scorer
        self.recipe = get_recipe(recipe)
        self._definition = _DefinitionText(self.recipe, scorer.tokenizer if isinstance(scorer, Tokenized) else None)
        self._context: dict[tuple[str, str], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        self._word: dict[tuple[str, str], tuple[int, ...]] = {}

    def pieces(self, pattern: str, word: str, definition: str) -> SlotRequest:
        """The query's tokens, whatever their length (``fitted`` fits them to the model)."""
        key = (pattern, definition)
        if key not in self._context:
            left, right = fill(pattern, self._definition(pattern, definition))
            probe = self.scorer.slot_request(left, "x", right, fit=False)
            self._context[key] = (probe.prefix, probe.suffix)
        wkey = (pattern, word)
        if wkey not in self._word:
            left, right = fill(pattern, _PROBE_DEFINITION)
            shown = display_word(word, left, self.scorer.case_sensitive, self.recipe)
            self._word[wkey] = self.scorer.slot_request(left, shown, right, fit=False).word
        prefix, suffix = self._context[key]
        return SlotRequest(prefix, self._word[wkey], suffix)

    def fitted(self, pattern: str, word: str, definition: str) -> tuple[SlotRequest, bool]:
        """(the request fitted to the model, whether the definition's text lost tokens for it); ``TooLong``
        where the word's masks alone do not fit."""
        whole = self.pieces(pattern, word, definition)
        prefix, suffix = fit_query(whole.prefix, len(whole.word), whole.suffix, self.scorer.max_length)
        return SlotRequest(prefix, whole.word, suffix), len(prefix) + len(suffix) < len(whole.prefix) + len(whole.suffix)

    def request(self, pattern: str, word: str, definition: str) -> SlotRequest:
        return self.fitted(pattern, word, definition)[0]


def masked_task_values(scorer, task_pairs: dict, recipe: Recipe = PAPER, progress=False,
                       per_pattern: dict | None = None) -> dict:
    """{task: {pair: score}}: W2D sums the word's token log-probabilities, D2W averages them;
    the recipe averages over its patterns. A query shared by both tasks runs once.
    ``per_pattern`` (a dict) receives {task: {pair: [score of each pattern]}}."""
    builder = MaskedRequests(scorer, recipe)
    requests: list[SlotRequest] = []
    request_index: dict[tuple[str, str, str], int] = {}
    plan: list[tuple[str, tuple, list[int]]] = []  # (task, pair, [request indices])
    for task, pairs in task_pairs.items():
        for pair in sorted(pairs):
            pos, word, definition = pair
            idx = []
            for pattern in recipe.masked_patterns[(task, pos)]:
                key = (pattern, word, definition)
                if key not in request_index:
                    request_index[key] = len(requests)
                    requests.append(builder.request(pattern, word, definition))
                idx.append(request_index[key])
            plan.append((task, pair, idx))
    logps = scorer.slot_logprobs(requests, progress=progress)
    values: dict[str, dict] = {task: {} for task in task_pairs}
    for task, pair, idx in plan:
        scores = [float(logps[i].sum()) if task == "w2d" else float(logps[i].mean()) for i in idx]
        values[task][pair] = recipe.average_patterns(task, scores)
        if per_pattern is not None:
            per_pattern.setdefault(task, {})[pair] = scores
    return values


# ---------------------------------------------------------------- causal LM


class CausalRequests:
    """(context ids, continuation ids) with memoised tokenisation per definition and per word."""

    def __init__(self, scorer, recipe: Recipe | str = PAPER):
        self.scorer = scorer
        self.recipe = get_recipe(recipe)
        self._definition = _DefinitionText(self.recipe, scorer.tokenizer if isinstance(scorer, Tokenized) else None)
        self._context: dict[tuple[str, str], tuple[int, ...]] = {}
        self._word: dict[tuple[str, str], tuple[int, ...]] = {}

    def pieces(self, pos: str, word: str, definition: str, task: str = "w2d") -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(context ids, word ids), whatever their length (``fitted`` fits them to the model)."""
        pattern = self.recipe.causal_patterns[(task, pos)]
        if (pattern, definition) not in self._context:
            left, _ = fill(pattern, self._definition(pattern, definition))
            self._context[(pattern, definition)] = tuple(self.scorer.tokenize_pair(left.rstrip(), " x")[0])
        if (pattern, word) not in self._word:
            probe_left, _ = fill(pattern, _PROBE_DEFINITION)
            self._word[(pattern, word)] = tuple(self.scorer.tokenize_pair(probe_left.rstrip(), " " + word)[1])
        return self._context[(pattern, definition)], self._word[(pattern, word)]

    def fitted(self, pos: str, word: str, definition: str, task: str = "w2d") -> tuple[tuple[int, ...], tuple[int, ...], bool]:
        """(context, word, whether the context lost its start to fit the model), as ``CausalLMScorer.split``
        fits; ``TooLong`` where the word alone does not fit."""
        ctx, cont = self.pieces(pos, word, definition, task)
        fitted, cut = fit_context(ctx, cont, self.scorer.max_length)
        return fitted, cont, cut

    def request(self, pos: str, word: str, definition: str, task: str = "w2d") -> tuple[tuple[int, ...], tuple[int, ...]]:
        return self.fitted(pos, word, definition, task)[:2]


def causal_task_values(scorer, task_pairs: dict, recipe: Recipe = PAPER, progress=False) -> dict:
    """{task: {pair: score}}: W2D the word's summed log-probability, D2W its first token's.

    A (context, word) request shared by both tasks runs once; D2W alone needs only the
    first token, so without W2D the second pass is skipped.
    """
    builder = CausalRequests(scorer, recipe)
    first_only = "w2d" not in task_pairs
    requests: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    request_index: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    plan: list[tuple[str, tuple, int]] = []
    for task, pairs in task_pairs.items():
        for pos, word, definition in sorted(pairs):
            pair = (pos, word, definition)
            ctx, cont = builder.request(pos, word, definition, task=task)
            if first_only:
                cont = cont[:1]
            key = (ctx, cont)
            if key not in request_index:
                request_index[key] = len(requests)
                requests.append(key)
            plan.append((task, pair, request_index[key]))
    logps = scorer.token_logprobs(requests, progress=progress)
    values: dict[str, dict] = {task: {} for task in task_pairs}
    for task, pair, i in plan:
        values[task][pair] = float(logps[i].sum()) if task == "w2d" else float(logps[i][0])
    return values


def causal_w2d_batch_shift(scorer, groups, recipe: Recipe) -> dict[int, np.ndarray]:
    """W2D scores of a causal LM as the authors' batched loop computes them: {group index: scores}.

    ``definition_processor.py:244-262``: the definitions of a group are scored in
    batches (``np.array_split`` into ceil(n / 48) parts, ``evaluate.py:143-144``),
    right-padded to the batch's longest context, W tokens; after each word token the
    token is written after every context, and a context that already fills the W
    columns is shifted left instead (its first token dropped). So word token j is
    predicted from the last W tokens of ``context + word[:j]``. Tokens whose prefix
    still fits are scored in one request; each shifted token is its own request.
    """
    builder = CausalRequests(scorer, recipe)
    shift = recipe.causal_batch_shift
    if not shift:
        raise ValueError(f"recipe {recipe.name!r} scores W2D without the authors' batch shift")
    requests: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    index: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    plan: list[tuple[int, int, list[int]]] = []  # (group, candidate, [request indices])

    def add(ctx, cont):
        key = (tuple(ctx), tuple(cont))
        if key not in index:
            index[key] = len(requests)
            requests.append(key)
        return index[key]

    for gi, g in enumerate(groups):
        n = len(g.candidates)
        for chunk in np.array_split(np.arange(n), int(np.ceil(n / shift))):
            pairs = {int(ci): builder.request(g.pos, g.word, g.candidates[ci].definition, task="w2d") for ci in chunk}
            width = max(len(ctx) for ctx, _ in pairs.values())
            for ci, (ctx, cont) in pairs.items():
                fits = min(len(cont), width - len(ctx) + 1)  # tokens whose context + prefix is <= width
                idx = [add(ctx, cont[:fits])]
                for j in range(fits, len(cont)):
                    idx.append(add((tuple(ctx) + tuple(cont[:j]))[-width:], cont[j:j + 1]))
                plan.append((gi, ci, idx))
    logps = scorer.token_logprobs(requests)
    out = {gi: np.zeros(len(g.candidates)) for gi, g in enumerate(groups)}
    for gi, ci, idx in plan:
        out[gi][ci] = float(sum(logps[i].sum() for i in idx))
    return out


# ---------------------------------------------------------------- fitting the model's input


def fit_report(scorer, groups, tasks: Sequence[str], recipe: Recipe | str = PAPER) -> dict[tuple[str, int], tuple[str | None, int]]:
    """{(task, group index): (why the group cannot be scored for the task, or None; how many of its candidates'
    queries lose definition tokens to fit the model)}, for groups as the recipe shows them.

    A query over the model's input length loses definition text far from the word (masked
    LMs: ``fit_query``; causal LMs: the context's start); a word whose tokens alone do not fit
    cannot be scored without cutting the word itself, so its (task, group) is skipped. W2D
    puts the target's word in the slot, D2W every candidate's. Other scorers fit everything.
    """
    recipe = get_recipe(recipe)
    if isinstance(scorer, RandomScores):
        check = None
    elif isinstance(scorer, SlotLogprobs) and isinstance(scorer, SlotRequests):
        masked = MaskedRequests(scorer, recipe)
        check = lambda task, pos, word, definition: any([  # noqa: E731  (a list: every pattern is fitted)
            masked.fitted(pattern, word, definition)[1] for pattern in recipe.masked_patterns[(task, pos)]])
    elif isinstance(scorer, TokenLogprobs) and isinstance(scorer, PairTokenizer):
        causal = CausalRequests(scorer, recipe)
        check = lambda task, pos, word, definition: causal.fitted(pos, word, definition, task)[2]  # noqa: E731
    else:
        check = None
    out: dict[tuple[str, int], tuple[str | None, int]] = {}
    for i, g in enumerate(groups):
        for task in tasks:
            if check is None:
                out[(task, i)] = (None, 0)
                continue
            pairs = ([(g.word, c.definition) for c in g.candidates] if task == "w2d"
                     else [(c.word, g.definition) for c in g.candidates])
            try:
                out[(task, i)] = (None, sum(bool(check(task, g.pos, w, d)) for w, d in pairs))
            except TooLong as err:
                out[(task, i)] = (f"{err} (skipped: cutting the word would change what is scored)", 0)
    return out


# ---------------------------------------------------------------- embeddings


def embedding_task_values(scorer, task_pairs: dict, progress=False) -> dict:
    """{task: {pair: cosine of word and definition vectors}}; each text is encoded once."""
    pairs = sorted(set().union(*task_pairs.values()))
    words = sorted({w for _, w, _ in pairs})
    defs = sorted({d for _, _, d in pairs})
    wv = dict(zip(words, scorer.encode(words, progress=progress)))
    dv = dict(zip(defs, scorer.encode(defs, progress=progress)))
    return {task: {pair: float(np.dot(wv[pair[1]], dv[pair[2]])) for pair in ps} for task, ps in task_pairs.items()}


# ---------------------------------------------------------------- dispatch


def recipe_groups(groups, recipe: Recipe) -> list:
    """The groups with every word as the recipe shows it (``Recipe.word_of``)."""
    if recipe.string_form == "paper":
        return list(groups)
    out = []
    for g in groups:
        cands = tuple(Candidate(c.synset, recipe.word_of(c.synset, c.word), c.definition) for c in g.candidates)
        out.append(SynsetGroup(g.target, g.pos, cands[0].word, cands))
    return out


def _random_scores(scorer, groups, tasks, recipe, progress, pattern_scores):
    return {
        (task, i): scorer.scores(f"wdlmpro:{task}:{g.target}", len(g.candidates))
        for i, g in enumerate(groups) for task in tasks
    }


def _masked_scores(scorer, groups, tasks, recipe, progress, pattern_scores):
    per_pattern: dict = {}
    values = masked_task_values(scorer, pairs_for(groups, tasks), recipe, progress, per_pattern=per_pattern)
    if pattern_scores is not None:
        for task, pairs_of in _task_pair_lists(groups, tasks).items():
            for i, keys in enumerate(pairs_of):
                pattern_scores[(task, i)] = np.array([per_pattern[task][k] for k in keys]).T
    return group_score_vectors(groups, tasks, values)


def _causal_scores(scorer, groups, tasks, recipe, progress, pattern_scores):
    pairs = pairs_for(groups, tasks)
    shifted = None
    if recipe.causal_batch_shift and "w2d" in tasks:  # authors: W2D scored per batch of definitions
        shifted = causal_w2d_batch_shift(scorer, groups, recipe)
        pairs = {t: p for t, p in pairs.items() if t != "w2d"}
    values = causal_task_values(scorer, pairs, recipe, progress) if pairs else {}
    out = group_score_vectors(groups, [t for t in tasks if t in values], values)
    if shifted is not None:
        out.update({("w2d", i): v for i, v in shifted.items()})
    return out


def _embedding_scores(scorer, groups, tasks, recipe, progress, pattern_scores):
    return group_score_vectors(groups, tasks, embedding_task_values(scorer, pairs_for(groups, tasks), progress))


#: how a scorer's candidate scores are made, by the first capability it offers (in this order)
STRATEGIES = {RandomScores: _random_scores, SlotLogprobs: _masked_scores, TokenLogprobs: _causal_scores,
              SentenceEmbeddings: _embedding_scores}


def score_groups(
    scorer, groups, tasks: Sequence[str], progress: bool = False, recipe: Recipe | str = PAPER,
    pattern_scores: dict | None = None,
) -> dict[tuple[str, int], np.ndarray]:
    """Candidate scores of every group for every task: {(task, group index): scores}.

    ``pattern_scores`` (a dict, masked LMs) receives {(task, group index): array of
    shape (patterns, candidates)}, each pattern's own scores.
    """
    recipe = get_recipe(recipe)
    groups = recipe_groups(groups, recipe)
    return strategy(STRATEGIES, scorer, "WDLMPro")(scorer, groups, tasks, recipe, progress, pattern_scores)


def _task_pair_lists(groups, tasks) -> dict[str, list[list[tuple[str, str, str]]]]:
    """Per task, per group, the pair of each candidate (the keys of ``group_score_vectors``)."""
    out = {}
    if "w2d" in tasks:
        out["w2d"] = [[(g.pos, g.word, c.definition) for c in g.candidates] for g in groups]
    if "d2w" in tasks:
        out["d2w"] = [[(g.pos, c.word, g.definition) for c in g.candidates] for g in groups]
    return out


def word_token_count(scorer, word: str, pos: str = "n", recipe: Recipe | str = PAPER) -> int:
    """Tokens of the word as it appears in the (first) W2D pattern, i.e. as it is scored.

    Masked LMs: the slot of the first pattern (noun patterns start with the word, so
    it is capitalised and has no leading space there: RoBERTa's "Dog" and " dog" are
    tokenised differently); causal LMs: the continuation after the pattern. The
    authors' tokenisation breakdown counts the same tokens (``tokenized_word`` of the
    first pattern, W2D ``evaluate.py:148``). Sentence-embedding models: the tokenizer's tokens of
    the word as it is encoded (mid-text form); static vectors and the random scorer: whitespace words.
    """
    recipe = get_recipe(recipe)
    if isinstance(scorer, SlotLogprobs) and isinstance(scorer, SlotRequests):
        pattern = recipe.masked_patterns[("w2d", pos)][0]
        return len(MaskedRequests(scorer, recipe).pieces(pattern, word, _PROBE_DEFINITION).word)
    if isinstance(scorer, TokenLogprobs) and isinstance(scorer, PairTokenizer):
        return len(CausalRequests(scorer, recipe).pieces(pos, word, _PROBE_DEFINITION)[1])
    tok = scorer.tokenizer if isinstance(scorer, Tokenized) else None
    if tok is not None and hasattr(tok, "tokenize"):
        return len(tok.tokenize(" " + word))
    return len(word.split())
