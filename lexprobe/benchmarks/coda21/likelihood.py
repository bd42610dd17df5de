"""CoDA21's likelihood method: a k x k match-score matrix per group from requests (``asking.requests``), aligned;
and the per-group loop the ask method shares (groups as resume units, their records, what was counted).

``scores[c, d]`` (context c, definition d) comes from the first request type the model serves: ``RandomScores``
(seeded, keyed ``coda21:<group id>``); ``Continuation`` (causal LMs: log P(" " + definition | prompt), its first
48 tokens, summed or averaged by ``--normalize``; the prompt is the context with the target replaced by the nonce,
then ``--pattern``); ``PseudoLogLikelihood`` (masked LMs, ``--pll``; ``authors`` asks for the released code's
input, ``encoding="released-mlm-input"``); ``Embed`` (the cosine of the context without its target and the
definition; under ``authors`` a group with a text embedded as the zero vector is skipped, as their
``get_mean_emb`` stopped there). A prompt too long for the model loses its start (``truncated_contexts``); a group
with a definition that alone does not fit is skipped (``skipped_too_long``). Hiding and ties follow the recipe
(``recipe.py``); the alignment is ``lexprobe.metrics.alignment``.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Sequence, TypedDict

import numpy as np

from lexprobe.asking.engine import Engine, as_engine
from lexprobe.asking.requests import Continuation, Embed, Fit, PseudoLogLikelihood, RandomScores, Request
from lexprobe.benchmarks.coda21.config import PATTERNS, CodaConfig, parts_of_speech
from lexprobe.benchmarks.coda21.dataset import CodaData, Group, GroupProblem, replace_target
from lexprobe.benchmarks.coda21.recipe import RECIPES
from lexprobe.benchmarks.coda21.results import TASK
from lexprobe.core.contract import Method, Records
from lexprobe.metrics import alignment as al
from lexprobe.tasks import loop
from lexprobe.tasks.loop import Units

log = logging.getLogger(__name__)
#: the request types a model must serve for the likelihood method, by alternative (the first served is asked)
REQUESTS: tuple[tuple[type[Request], ...], ...] = ((RandomScores,), (Continuation,), (PseudoLogLikelihood,),
                                                    (Embed,))
STATIC_SKIP = "has a text without any token with a vector (the authors' get_mean_emb raises here, aligner.py:284-285)"


# --- texts --------------------------------------------------------------------------

def hide_target(context: str, word: str, replacement: str, recipe: str = "paper") -> str:
    """paper: whole-word replacement; authors: ``str.replace`` (also inside longer words)."""
    if RECIPES[recipe].replace_substrings:
        if word not in context:
            raise ValueError(f"target {word!r} not found in context {context[:80]!r}")
        return context.replace(word, replacement)
    return replace_target(context, word, replacement)


def prompt(context: str, word: str, pos: str, nonce: str = "bkatuhla", pattern: str = "definition-of",
           recipe: str = "paper") -> str:
    text = PATTERNS[pattern].format(context=hide_target(context, word, nonce, recipe), nonce=nonce)
    return text + " to" if pos == "v" else text


def context_without_target(context: str, word: str, recipe: str = "paper") -> str:
    return hide_target(context, word, "", recipe)


def embed_texts(group: Group, config: CodaConfig) -> list[str]:
    """The group's k contexts without their target, then its k definitions."""
    return ([context_without_target(c.context, c.word, config.recipe) for c in group.candidates]
            + [c.definition for c in group.candidates])


# --- requests and answers -------------------------------------------------------------

def group_requests(kind: type[Request], group: Group, config: CodaConfig) -> list[Any]:
    """The requests of a group's matrix: (context, definition) row by row, or the texts to embed, or its key."""
    if kind is RandomScores:
        return [RandomScores(f"coda21:{group.id}", group.k * group.k)]
    if kind is Embed:
        return [Embed(t) for t in embed_texts(group, config)]
    prompts = [prompt(c.context, c.word, group.pos, config.nonce, config.pattern, config.recipe)
               for c in group.candidates]
    pairs = [(p, " " + d.definition) for p in prompts for d in group.candidates]
    if kind is Continuation:
        return [Continuation(p, d, config.max_definition_tokens) for p, d in pairs]
    encoding = "released-mlm-input" if RECIPES[config.recipe].authors_pll_input else "text"
    return [PseudoLogLikelihood(p, d, config.max_definition_tokens, config.pll, encoding) for p, d in pairs]


def group_matrix(kind: type[Request], group: Group, answers: Sequence[Any], config: CodaConfig) -> np.ndarray:
    k = group.k
    if kind is RandomScores:
        return np.asarray(answers[0], dtype=np.float64).reshape(k, k)
    if kind is Embed:  # unit vectors: the cosine is their product
        vectors = np.asarray(answers, dtype=np.float64)
        return vectors[:k] @ vectors[k:].T
    reduce = np.mean if config.normalize == "mean" else np.sum
    return np.array([float(reduce(lp)) for lp in answers], dtype=np.float64).reshape(k, k)


def match_matrices(groups: Sequence[Group], engine: Any, config: CodaConfig = CodaConfig(),
                   kind: type[Request] | None = None) -> list[np.ndarray]:
    """One k x k matrix per group, rows = contexts, columns = definitions, the groups' requests asked together
    (``engine``: an ``Engine``, or a backend to make one for)."""
    engine = as_engine(engine)
    kind = kind or engine.require(REQUESTS, "coda21 --method likelihood")[0]
    per_group = [group_requests(kind, g, config) for g in groups]
    flat = [r for rs in per_group for r in rs]
    if kind is Embed:  # every context, then every definition: one encoding order, whatever the chunk
        flat = [r for g, rs in zip(groups, per_group) for r in rs[:g.k]] + [
            r for g, rs in zip(groups, per_group) for r in rs[g.k:]]
    answer = dict(zip(flat, engine(flat))) if flat else {}
    return [group_matrix(kind, g, [answer[r] for r in rs], config) for g, rs in zip(groups, per_group)]


def fits_by_group(groups: Sequence[Group], requests: Sequence[Sequence[Any]], engine: Engine,
                  whole: bool = False) -> list[tuple[str | None, int]]:
    """Per group, (why it cannot be scored, how many of its prompts lose their start to fit: request i is
    prompt i // k's); ``whole``: a cut request makes the group unscorable too (a question is asked whole)."""
    fits: list[Fit] = engine.fit([r for rs in requests for r in rs])
    out, at = [], 0
    for g, rs in zip(groups, requests):
        mine, at = fits[at:at + len(rs)], at + len(rs)
        why = next((f.too_long for f in mine if f.too_long), None)
        if why is None and whole and any(f.cut for f in mine):
            why = "a question does not fit the model's input positions without cutting its start"
        out.append((why, len({i // g.k for i, f in enumerate(mine) if f.cut})))
    return out


# --- one group -------------------------------------------------------------------------

def group_record(group: Group, scores: np.ndarray, config: CodaConfig) -> dict[str, Any]:
    method = config.align
    if RECIPES[config.recipe].file_order_ties:  # file order, first best permutation (the released enumeration)
        order = np.arange(group.k)
        method = "first-best" if config.align == "optimal" else config.align
    else:
        order = al.tie_break_order(group.id, group.k)
    assignment = al.align(scores, method, order, max_k=config.exhaustive_max_k)
    simple = assignment if config.align == "none" else al.align(scores, "none", order)
    return {
        "id": group.id, "pos": group.pos, "k": group.k, "ancestor": group.ancestor, "relation": group.relation,
        "synsets": [c.synset for c in group.candidates], "words": [c.word for c in group.candidates],
        "definitions": [c.definition for c in group.candidates], "contexts": [c.context for c in group.candidates],
        "scores": np.round(scores, 6).tolist(),
        # optimal/exhaustive: the definition of each context; none: the context of each definition
        "assignment": assignment.tolist(),
        "predicted_pairs": ([[int(c), d] for d, c in enumerate(assignment)] if config.align == "none"
                            else [[c, int(d)] for c, d in enumerate(assignment)]),  # [context, definition]
        "accuracy": al.accuracy(assignment),
        "simple_accuracy": al.accuracy(simple),
    }


class _GroupUnit(TypedDict):
    id: str
    pos: str
    k: int


class GroupRecord(_GroupUnit, total=False):
    """A group's record as the resume log keeps it (scored: ``group_record``; left out: ``chunk_records``)."""

    skipped: str
    scores: list[list[float]]
    assignment: list[int]
    accuracy: float
    simple_accuracy: float
    truncated_contexts: int
    per_question: list[dict[str, Any]]


def chunk_records(chunk: Sequence[Group], fits: Sequence[tuple[str | None, int]],
                  matrices: Callable[[list[Group]], Sequence[np.ndarray]],
                  record: Callable[[Group, np.ndarray, int], dict], note: str) -> list[dict]:
    """A chunk's unit-log records (the likelihood and ask methods'): a group that does not fit (``fits``) is left
    unscored with its reason and ``note``, so that a resumed run skips it again without scoring it; the others'
    ``matrices`` are asked together and each made a ``record(group, matrix, prompts cut)``."""
    found = iter(matrices([g for g, (why, _) in zip(chunk, fits) if why is None]))
    return [{"id": g.id, "pos": g.pos, "k": g.k, "skipped": f"{why} {note}"} if why is not None
            else record(g, next(found), cut) for g, (why, cut) in zip(chunk, fits)]


# --- the run ---------------------------------------------------------------------------

def select_groups(data: CodaData, config: CodaConfig) -> list[Group]:
    return [g for p in parts_of_speech(config.pos) for g in data.by_pos(p)[:config.limit]]


def runnable_groups(data: CodaData, config: CodaConfig,
                    skip: Callable[[Group], str | None] = lambda g: None) -> tuple[list[Group], list[GroupProblem]]:
    """The groups of the run, and the problems of those left out (``skip``: a method's own reason)."""
    problems = [p for p in data.problems if p.group_id.split("/")[0] in parts_of_speech(config.pos)]
    runnable = []
    for g in select_groups(data, config):
        reason = _check_group(g, config) or skip(g)
        if reason:
            problems.append(GroupProblem(g.id, reason))
        else:
            runnable.append(g)
    for p in problems:
        log.warning("skipping %s", p)
    return runnable, problems


def _check_group(group: Group, config: CodaConfig) -> str | None:
    if config.align == "exhaustive" and group.k > config.exhaustive_max_k:
        return (f"has k={group.k} > {config.exhaustive_max_k}, too many for --align exhaustive "
                f"(use --align optimal)")
    try:
        for c in group.candidates:
            hide_target(c.context, c.word, config.nonce, config.recipe)
    except ValueError as err:
        return str(err)
    return None


def run_groups(job, engine: Engine, groups: Sequence[Group], compute: Any, step: int) -> list[dict] | None:
    """The groups as resume units through the one loop (``tasks.loop``: keyed by the job's one resume key; under
    ``torchrun`` split across ranks by their tokens: k prompts, each followed by the k definitions), asked through
    ``engine``; their records on rank 0, None on the others."""
    texts = sorted({t for g in groups for c in g.candidates for t in (c.context, c.definition)})
    count = dict(zip(texts, engine.costs(texts)))
    costs = [g.k * sum(count[c.context] + count[c.definition] for c in g.candidates) for g in groups]
    units = Units([g.id for g in groups], costs,
                  [[g.id, g.pos, [(c.synset, c.definition, c.context, c.word) for c in g.candidates]] for g in groups],
                  GroupRecord, step)
    return loop.run(job, units, lambda _engine, indices: compute(indices), unit="group")


def group_records(records: Sequence[dict], problems: Sequence[GroupProblem], runnable: Sequence[Group],
                  counts: dict[str, int], **more: Any) -> Records:
    """A run's ``Records``: the scored groups, those left out (``skipped``: the problems first, then the
    groups ``chunk_records`` left out), what was counted."""
    skipped = [{"unit": p.group_id, "reason": p.reason} for p in problems]
    skipped += [{"unit": r["id"], "reason": r["skipped"]} for r in records if "skipped" in r]
    return Records([r for r in records if "skipped" not in r], items=list(runnable),
                   counts={"skipped_groups": len(skipped), **counts}, skipped=skipped, tasks=[TASK], **more)


class Likelihood(Method):
    name = "likelihood"
    requests = REQUESTS

    def run(self, job) -> Records | None:
        """Every group's match-score matrix, aligned; groups are resume units."""
        data, config = job.items, job.config
        engine = job.engine
        kind = engine.require(self.requests, "coda21 --method likelihood")[0]
        lm = kind in (Continuation, PseudoLogLikelihood)

        def zero_vector(g: Group) -> str | None:  # authors: a group static vectors cannot embed is skipped
            embeds = [Embed(t) for t in embed_texts(g, config)]
            return STATIC_SKIP if engine.counts(embeds).get("zero_vector_texts") else None

        static_skip = kind is Embed and RECIPES[config.recipe].static_skip
        runnable, problems = runnable_groups(data, config, zero_vector if static_skip else lambda g: None)

        def compute(indices: list[int]) -> list[dict]:
            chunk = [runnable[i] for i in indices]
            fits = (fits_by_group(chunk, [group_requests(kind, g, config) for g in chunk], engine) if lm
                    else [(None, 0)] * len(chunk))
            return chunk_records(chunk, fits, lambda fitting: match_matrices(fitting, engine, config, kind), record,
                                 "(skipped: cutting the definition would change what is scored)")

        def record(g: Group, scores: np.ndarray, cut: int) -> dict:
            return {**group_record(g, scores, config), **({"truncated_contexts": cut} if cut else {})}

        step = config.groups_per_chunk or (16 if lm else 256)
        records = run_groups(job, engine, runnable, compute, step)
        if records is None:  # another rank than 0: rank 0 writes the result
            return None
        counts: dict[str, int] = {}
        if lm:  # what did not fit the model
            counts = {"skipped_too_long": sum("skipped" in r for r in records),
                      "truncated_contexts": sum(r.get("truncated_contexts", 0) for r in records)}
        elif kind is Embed:  # what the backend counted of the texts (static vectors' coverage, texts cut)
            counts = engine.counts([Embed(t) for t in sorted({t for g in runnable for t in embed_texts(g, config)})])
            if "zero_vector_texts" in counts:
                counts["skipped_groups_without_vectors"] = sum(p.reason == STATIC_SKIP for p in problems)
        return group_records(records, problems, runnable, counts)

