"""WDLMPro's likelihood method: every candidate of every group scored through requests, ranked, recorded.

W2D pairs the target's word with each candidate's definition, D2W the target's definition with each
candidate's word. A pair becomes requests of the first kind the backend serves (docs/wdlmpro.md, "Scoring"):
``RandomScores`` (the random baseline); ``Slot`` (masked LMs: the word in each pattern's slot, W2D summing
its token log-probabilities, D2W averaging them, the recipe combining the patterns); ``Continuation`` (causal
LMs: `` word`` after ``<DEF> is the definition of``, W2D its summed log-probability, D2W its first token's;
D2W asks the whole word, so a pair both tasks share is one request; the authors' batch shift is a ``window``,
``windowed_w2d``); ``Embed`` (sentence encoders, static vectors: the cosine of the two texts' vectors;
``VectorCoverage`` says what the authors' static-vector run drops).

The engine's fits say what a model cannot take: a word that does not fit alone skips its (group, task), a
definition that lost tokens is truncated; ``Fit.tokens`` of the word in the first W2D pattern is its
``word_tokens``. The backend's tokenizer cuts the authors' 48-token definitions. Groups are the resumable
units, scored in chunks of ``--chunk-size`` (sister groups share most pairs), each chunk with its own engine:
a memo over the whole run would grow with the dataset (millions of pairs).
"""

from __future__ import annotations

from functools import lru_cache, partial
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import Continuation, Embed, RandomScores, Request, Slot, VectorCoverage
from lexprobe.benchmarks.wdlmpro.config import TASK_CHOICES
from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup, group_to_dict
from lexprobe.benchmarks.wdlmpro.recipe import PAPER, Recipe, argsort_rank, best_pattern_rank
from lexprobe.benchmarks.wdlmpro.results import LikelihoodRecord
from lexprobe.core.contract import Job, Method, Records
from lexprobe.errors import DataError
from lexprobe.metrics.ranking import gold_rank, predicted_index, rank_score
from lexprobe.tasks import loop
from lexprobe.tasks.loop import Units

#: the definition a word's token count is measured with (any short text: the word sits between spaces)
PROBE_DEFINITION = "a word"
MIN_CANDIDATES = 5  #: the authors' static-vector run drops a group left with fewer candidates
TARGET = "target word or definition has no token with a vector"
TOO_FEW = f"fewer than {MIN_CANDIDATES} candidates have vectors"
DROPS = ("targets_without_vectors", "groups_too_few_candidates", "candidates_without_vectors")


class Likelihood(Method):
    name = "likelihood"
    help = "score every candidate (masked slots, continuations, embedding cosines or random scores) and rank"
    requests: ClassVar[tuple[tuple[type, ...], ...]] = ((RandomScores,), (Slot,), (Continuation,), (Embed,))

    def run(self, job: Job) -> Records | None:
        """One record per group and task (``results.py`` aggregates them), with what was skipped, dropped and cut."""
        groups, tasks, attributes = job.items.groups, TASK_CHOICES[job.config.task], job.items.attributes
        if not groups:
            raise DataError("no WDLMPro groups to evaluate; check --data, --pos and --limit")
        recipe = job.recipe.with_aggregation(job.config.pattern_aggregation)
        kind = job.engine.require(self.requests, "wdlmpro --method likelihood")[0]
        extra = {}
        if job.config.counts:
            from lexprobe.provenance import file_sha256

            extra["counts_sha256"] = file_sha256(job.config.counts)  # bands change with the file's contents
        # keyed by the exact groups, the weights and every score-changing option (never the data path, nor the
        # number of processes: any number may resume)
        units = Units(unit_ids(groups), group_costs(job.engine, groups),
                      {"groups": [group_to_dict(g) for g in groups], "tasks": list(tasks)}, UNIT_RECORD,
                      job.config.chunk_size, bundles=[tuple(sorted(c.synset for c in g.candidates)) for g in groups],
                      key_extra=extra)

        def compute(engine: Engine, indices: list[int]) -> list[list[dict]]:
            chunk = [groups[i] for i in indices]
            attrs = attributes(chunk) if attributes else [{} for _ in chunk]
            return instance_records(engine, kind, chunk, tasks, attrs, recipe)

        per_group = loop.run(job, units, compute, engine_per_chunk=True, unit="group")
        if per_group is None:  # another rank than 0: rank 0 writes the result
            return None
        records = [r for recs in per_group for r in recs]
        too_long = [r for r in records if "skipped" in r]
        records = [r for r in records if "skipped" not in r]
        skipped = [{"unit": f"{r['task']}:{r['target']}", "reason": r["skipped"]} for r in too_long]
        counts = run_counts(job.engine, kind, recipe_groups(groups, recipe), recipe, records, too_long)
        return Records(records, items=groups, counts=counts, skipped=skipped, tasks=list(tasks))


#: a unit of the likelihood method (a group): its records, one per task
UNIT_RECORD = list[LikelihoodRecord]


def fill(pattern: str, definition: str) -> tuple[str, str]:
    """(text before the blank, text after the blank) of a pattern with the definition in."""
    left, right = pattern.split("_")  # split first: a definition may itself contain "_"
    return left.replace("<DEF>", definition), right.replace("<DEF>", definition)


def recipe_groups(groups: Sequence[SynsetGroup], recipe: Recipe) -> list[SynsetGroup]:
    """The groups with every word as the recipe shows it (``Recipe.word_of``)."""
    if recipe.string_form == "paper":
        return list(groups)
    out = []
    for g in groups:
        cands = tuple(Candidate(c.synset, recipe.word_of(c.synset, c.word), c.definition) for c in g.candidates)
        out.append(SynsetGroup(g.target, g.pos, cands[0].word, cands))
    return out


def pair(task: str, group: SynsetGroup, candidate: Candidate) -> tuple[str, str]:
    """(word, definition) of a candidate: W2D the target's word, D2W the target's definition."""
    return (group.word, candidate.definition) if task == "w2d" else (candidate.word, group.definition)


class Asker:
    """The requests of (word, definition) pairs for one kind of backend, as the recipe shows them."""

    def __init__(self, kind: type[Request], recipe: Recipe = PAPER, tokenizer: Any = None):
        self.kind, self.recipe = kind, recipe
        #: the definition as shown in a pattern: capitalised where it starts the input, cut (``authors``)
        self.shown: Callable[[bool, str], str] = lru_cache(maxsize=None)(
            lambda starts, definition: recipe.show_definition(definition, starts, tokenizer))

    def slot(self, pattern: str, word: str, definition: str) -> Slot:
        left, right = fill(pattern, self.shown(pattern.startswith("<DEF>"), definition))
        return Slot(left, self.recipe.show_word(word, left == ""), right)

    def continuation(self, pattern: str, word: str, definition: str, window: int | None = None) -> Continuation:
        left, _ = fill(pattern, self.shown(pattern.startswith("<DEF>"), definition))
        return Continuation(left.rstrip(), " " + word, window=window)

    def of(self, task: str, pos: str, word: str, definition: str) -> list[Request]:
        """What one pair asks: a ``Slot`` per pattern, one ``Continuation``, or the two texts' ``Embed``."""
        if self.kind is Slot:
            return [self.slot(p, word, definition) for p in self.recipe.masked_patterns[(task, pos)]]
        if self.kind is Continuation:
            return [self.continuation(self.recipe.causal_patterns[(task, pos)], word, definition)]
        return [Embed(word), Embed(definition)]

    def probe(self, pos: str, word: str) -> Request:
        """The word in the first W2D pattern: its ``Fit.tokens`` are the word's tokens as scored (the authors'
        breakdown counts the same, ``tokenized_word`` of the first pattern, W2D ``evaluate.py:148``); a sentence
        encoder's are the word's mid-text tokens."""
        if self.kind is Slot:
            left, right = fill(self.recipe.masked_patterns[("w2d", pos)][0], PROBE_DEFINITION)
            return Slot(left, self.recipe.show_word(word, left == ""), right)
        if self.kind is Continuation:
            left, _ = fill(self.recipe.causal_patterns[("w2d", pos)], PROBE_DEFINITION)
            return Continuation(left.rstrip(), " " + word)
        return Embed(" " + word)


def instance_records(engine: Engine, kind: type[Request], groups: Sequence[SynsetGroup], tasks: Sequence[str],
                     attributes: Sequence[dict], recipe: Recipe = PAPER) -> list[list[dict]]:
    """Per group, one record per task (``Chunk.record``)."""
    chunk = Chunk(engine, groups, tasks, recipe, kind)
    return [[chunk.record(i, task, attributes[i]) for task in tasks] for i in range(len(groups))]


class Chunk:
    """Groups scored together for their tasks, by (task, group index) ``u``: ``views[u]`` (the group as scored or
    None, candidates dropped, why), ``fit[u]`` (each candidate's requests' fits), ``too_long[u]``, ``scores[u]``
    (the candidates'), ``per_pattern[u]`` (masked LMs: patterns x candidates); ``tokens[i]``: group i's word's."""

    def __init__(self, engine: Engine, groups: Sequence[SynsetGroup], tasks: Sequence[str], recipe: Recipe = PAPER,
                 kind: type[Request] | None = None):
        self.engine, self.recipe = engine, recipe
        kind = kind or engine.require(Likelihood.requests, "wdlmpro --method likelihood")[0]
        lm = kind in (Slot, Continuation)
        self.ask = ask = Asker(kind, recipe, getattr(engine.backend, "tokenizer", None) if lm else None)
        self.groups = groups
        self.shown = shown = recipe_groups(groups, recipe)
        units = [(task, i) for i in range(len(groups)) for task in tasks]
        self.views = {u: (shown[u[1]], 0, None) for u in units}
        if kind is Embed and recipe.static_drop and engine.serves(VectorCoverage):
            self.views = static_views(engine, shown, units)
        self.pairs = {u: [pair(u[0], g, c) for c in g.candidates] if (g := self.views[u][0]) else [] for u in units}
        self.pos = {u: groups[u[1]].pos for u in units}
        self.asked = {u: [ask.of(u[0], self.pos[u], w, d) for w, d in self.pairs[u]] if lm else [] for u in units}
        probes = [ask.probe(g.pos, g.word) for g in shown] if kind is not RandomScores else []
        fits = iter(engine.fit([r for u in units for per in self.asked[u] for r in per] + probes))
        self.fit = {u: [[next(fits) for _ in per] for per in self.asked[u]] for u in units}
        self.tokens = [next(fits).tokens for _ in probes] or [None] * len(groups)
        self.too_long = {u: next((f.too_long for per in self.fit[u] for f in per if f.too_long), None) for u in units}
        self.scores: dict = {}
        self.per_pattern: dict = {}
        scored = [u for u in units if self.views[u][0] is not None and self.too_long[u] is None]
        self.score(scored, every=len(scored) == len(units))

    def score(self, units: list, every: bool) -> None:
        """The scores of ``units``, asked in the calls and order that keep the batches as they were: the tasks
        together unless a task skips a group (then one call per task), a task's distinct pairs sorted, the
        authors' windowed W2D first, embeddings' words before their definitions."""
        engine, ask, kind, recipe = self.engine, self.ask, self.ask.kind, self.recipe
        if kind is RandomScores:
            for u in units:
                g = self.views[u][0]
                self.scores[u] = np.asarray(engine([RandomScores(f"wdlmpro:{u[0]}:{g.target}", len(g.candidates))])[0])
            return
        tasks = list(dict.fromkeys(u[0] for u in units))
        for together in ([tasks] if every or kind is Embed else [[t] for t in tasks]):
            mine = [u for u in units if u[0] in together]
            if kind is Embed:
                words, definitions = (sorted({p[k] for u in mine for p in self.pairs[u]}) for k in (0, 1))
                vectors = dict(zip(words + definitions, engine([Embed(t) for t in words])
                                   + engine([Embed(t) for t in definitions])))
                self.scores.update({u: np.array([float(np.dot(vectors[w], vectors[d])) for w, d in self.pairs[u]])
                                    for u in mine})
                continue
            if kind is Continuation and recipe.causal_batch_shift and "w2d" in together:
                self.windowed_w2d([u for u in mine if u[0] == "w2d"], recipe.causal_batch_shift)
                mine = [u for u in mine if u[0] != "w2d"]
            engine([r for t in together
                    for pos, w, d in sorted({(self.pos[u], *p) for u in mine if u[0] == t for p in self.pairs[u]})
                    for r in ask.of(t, pos, w, d)])
            for u in mine:  # the answers from the engine's memo
                logps = [engine(per) for per in self.asked[u]]
                if kind is Slot:
                    rows = np.array([[float(lp.sum()) if u[0] == "w2d" else float(lp.mean()) for lp in per]
                                     for per in logps]).T
                    self.per_pattern[u] = rows
                    self.scores[u] = np.array([recipe.average_patterns(u[0], list(col)) for col in rows.T])
                else:
                    self.scores[u] = np.array([float(per[0].sum()) if u[0] == "w2d" else float(per[0][0])
                                               for per in logps])

    def windowed_w2d(self, units: list, shift: int) -> None:
        """W2D scores as the authors' batched loop computes them: per batch of ``shift`` of a group's definitions,
        each word token predicted from the last ``window`` tokens, the batch's longest fitted context (a backend
        that counts no tokens: no window)."""
        asked: dict[tuple, list[Continuation]] = {}
        for u in units:
            g = self.views[u][0]
            assert g is not None
            pattern, n = self.recipe.causal_patterns[("w2d", g.pos)], len(g.candidates)
            asked[u] = []
            for batch in np.array_split(np.arange(n), int(np.ceil(n / shift))):
                widths = [self.fit[u][int(c)][0].context_tokens for c in batch]
                window = None if None in widths else max(w for w in widths if w is not None)
                asked[u] += [self.ask.continuation(pattern, g.word, g.candidates[int(c)].definition, window)
                             for c in batch]
        answers = iter(self.engine([r for u in units for r in asked[u]]))
        self.scores.update({u: np.array([float(next(answers).sum()) for _ in asked[u]]) for u in units})

    def record(self, i: int, task: str, attributes: dict) -> dict:
        """Group ``i``'s record in ``task``: ranked, skipped (too long) or dropped (no vectors)."""
        g, u, recipe = self.groups[i], (task, i), self.recipe
        n_tokens = self.tokens[i]
        if n_tokens is None:  # a backend that counts no tokens: whitespace words
            n_tokens = len(self.shown[i].word.split())
        base: dict[str, Any] = {"task": task, "target": g.target, "pos": g.pos, "word": g.word}
        if self.too_long[u] is not None:  # logged like a scored one: a resumed run skips it again, unscored
            return {**base, "skipped": f"{self.too_long[u]} (skipped: cutting the word would change what is scored)",
                    "word_tokens": n_tokens, **attributes}
        cut = sum(any(f.cut for f in per) for per in self.fit[u])
        if cut:
            base["truncated_definitions"] = cut
        shown, dropped, why = self.views[u]
        if shown is None:
            return {**base, "dropped": why, "candidates_dropped": dropped, **attributes}
        k, best = rank_of_gold(self.scores[u], recipe)
        extra: dict[str, Any] = {"candidates_dropped": dropped} if dropped else {}
        if u in self.per_pattern:
            rank = partial(rank_of_gold, recipe=recipe)
            extra["patterns"] = [{"pattern": text, "gold_rank": kp, "rank_score": rank_score(len(row), kp),
                                  "gold_score": round(float(row[0]), 6)}
                                 for text, row, (kp, _) in zip(recipe.masked_patterns[(task, g.pos)],
                                                                self.per_pattern[u], map(rank, self.per_pattern[u]))]
            if recipe.pattern_aggregation == "best":
                k, best, _ = best_pattern_rank(self.per_pattern[u], rank)
        pred = shown.candidates[best]
        return {**base, "n_candidates": len(shown.candidates), "gold_rank": k,
                "rank_score": rank_score(len(shown.candidates), k), "predicted": pred.synset,
                "gold_definition": g.definition, "predicted_word": pred.word, "predicted_definition": pred.definition,
                "word_tokens": n_tokens, **extra, **attributes}


def rank_of_gold(scores: Any, recipe: Recipe = PAPER) -> tuple[int, int]:
    """(gold rank k, predicted index) for a group whose gold item is candidate 0."""
    if recipe.ties == "argsort":
        return argsort_rank(scores, gold=0)
    return gold_rank(scores, gold=0), predicted_index(scores, gold=0)


def static_views(engine: Engine, shown: Sequence[SynsetGroup], units: list) -> dict:
    """{unit: (the group as the authors' static-vector run scores it or None, candidates dropped, why)}.

    ``evaluate_with_word_embeddings.py`` (W2D ``:86-88,131,142,147``, D2W ``:122,135``) drops a target whose word
    or definition has no token with a vector, a candidate whose word (D2W) or word or definition (W2D) has none,
    then a group left with fewer than five candidates. The authors filtered while de-duplicating; lexprobe
    filters its de-duplicated groups."""
    texts = sorted({t for g in shown for t in (g.word, g.definition, *(x for c in g.candidates
                                                                       for x in (c.word, c.definition)))})
    covered = {t: found > 0 for t, (_, found) in zip(texts, engine([VectorCoverage(t) for t in texts]))}
    out: dict[tuple, tuple[SynsetGroup | None, int, str | None]] = {}
    for task, i in units:
        g = shown[i]
        if not (covered[g.word] and covered[g.definition]):
            out[(task, i)] = (None, 0, TARGET)
            continue
        keep = [g.candidates[0]] + [c for c in g.candidates[1:]
                                    if covered[c.word] and (task == "d2w" or covered[c.definition])]
        dropped = len(g.candidates) - len(keep)
        view = g if not dropped else SynsetGroup(g.target, g.pos, g.word, tuple(keep))
        out[(task, i)] = (None, dropped, TOO_FEW) if len(keep) < MIN_CANDIDATES else (view, dropped, None)
    return out


def run_counts(engine: Engine, kind: type[Request], shown: Sequence[SynsetGroup], recipe: Recipe,
               records: list[dict], too_long: list[dict]) -> dict[str, int]:
    """What the model could not take: language models what did not fit, sentence encoders the texts they cut,
    static vectors their coverage of the distinct texts (a text with no token vector is the zero vector) and
    what the recipe dropped, per task."""
    if kind in (Slot, Continuation):
        return {"skipped_too_long": len(too_long),
                "truncated_definitions": sum(r.get("truncated_definitions", 0) for r in records)}
    if kind is not Embed:
        return {}
    texts = sorted({t for g in shown for c in g.candidates for t in (c.word, c.definition)})
    if not engine.serves(VectorCoverage):
        return {"truncated_texts": sum(f.cut for f in engine.fit([Embed(t) for t in texts]))}
    coverage = engine([VectorCoverage(t) for t in texts])
    out = {"static_texts": len(texts), "zero_vector_texts": sum(found == 0 for _, found in coverage),
           "static_tokens": sum(n for n, _ in coverage), "skipped_oov_tokens": sum(n - found for n, found in coverage)}
    if recipe.static_drop:  # counted where none was dropped, too
        out.update({f"dropped_{task}_{which}": 0 for task in sorted({r["task"] for r in records}) for which in DROPS})
    for r in records:
        if r.get("dropped"):
            key = f"dropped_{r['task']}_{DROPS[0] if r['dropped'] == TARGET else DROPS[1]}"
            out[key] = out.get(key, 0) + 1
        elif r.get("candidates_dropped"):
            key = f"dropped_{r['task']}_{DROPS[2]}"
            out[key] = out.get(key, 0) + r["candidates_dropped"]
    return out


def unit_ids(groups: Sequence[SynsetGroup]) -> list[str]:
    """Resume keys: the target synset, made unique if a dataset repeats one."""
    seen: dict[str, int] = {}
    out = []
    for g in groups:
        n = seen.get(g.target, 0)
        seen[g.target] = n + 1
        out.append(g.target if n == 0 else f"{g.target}#{n}")
    return out


def group_costs(engine: Engine, groups: Sequence[SynsetGroup]) -> list[float]:
    """Tokens a group's pairs cost: both tasks pair every candidate with the target's word/definition."""
    texts = sorted({t for g in groups for c in g.candidates for t in (c.word, c.definition)})
    count = dict(zip(texts, engine.costs(texts)))
    return [sum(count[c.word] + count[c.definition] + count[g.word] + count[g.definition] for c in g.candidates)
            for g in groups]
