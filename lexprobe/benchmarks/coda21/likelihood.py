"""CoDA21's likelihood method: a match-score matrix per group, aligned; the per-group records (``Records``)
that ``evaluate`` aggregates into accuracy per POS (``results.py`` names the slices, baseline, breakdown).

For every group the k x k matrix ``scores[c, d]`` (context c, definition d) is
computed with whatever scorer the model gives:

- causal LM: log P(" " + definition | prompt), definition cut to 48 tokens, summed
  (``normalize="mean"``: averaged); prompt = context with the target replaced by the
  nonce word, then ``Definition of <nonce> is`` (verbs: ``... is to``). The k
  definitions of a context share its prompt, which the causal engine encodes once.
- masked LM: pseudo-log-likelihood of the definition after the same prompt
  (``lexprobe.scorers.pll``), one token masked at a time or word-level l2r.
- sentence embeddings / static vectors: cosine of the context with the target
  removed and the definition; each text is encoded once.
- random: seeded scores per group.

The target is replaced as a whole word, everywhere it occurs; the ``authors`` recipe
replaces substrings (``str.replace``) as the released code did. Groups are solved
with ``lexprobe.metrics.alignment``: ties never favour the gold alignment (the
definitions are put in a fixed pseudo-random order first); the ``authors`` recipe
keeps the file order and the first best permutation in enumeration order, as the
released code did. Finished groups go to a ResumeLog so an interrupted run resumes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Sequence, TypedDict

import numpy as np
from tqdm.auto import tqdm

from lexprobe.benchmarks.base import Records
from lexprobe.benchmarks.coda21.config import PATTERNS, CodaConfig, parts_of_speech
from lexprobe.benchmarks.coda21.dataset import CodaData, Group, GroupProblem, replace_target
from lexprobe.benchmarks.coda21.recipe import RECIPES
from lexprobe.benchmarks.coda21.results import TASK
from lexprobe.distributed import context, run_units, token_counts
from lexprobe.metrics import alignment as al
from lexprobe.scorers.capabilities import (
    CountsTruncation,
    PairTokenizer,
    RandomScores,
    SentenceEmbeddings,
    SlotLogprobs,
    Tokenized,
    TokenLogprobs,
    WordVectors,
    strategy,
)

log = logging.getLogger(__name__)

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


# --- match scores -------------------------------------------------------------------

def _lm_requests(groups: Sequence[Group], config: CodaConfig) -> list[tuple[str, str]]:
    requests = []
    for g in groups:
        prompts = [prompt(c.context, c.word, g.pos, config.nonce, config.pattern, config.recipe)
                   for c in g.candidates]
        for p in prompts:
            for d in g.candidates:
                requests.append((p, " " + d.definition))
    return requests


def _split_matrices(groups: Sequence[Group], flat: Sequence[float] | np.ndarray) -> list[np.ndarray]:
    out, pos = [], 0
    for g in groups:
        n = g.k * g.k
        out.append(np.asarray(flat[pos:pos + n], dtype=np.float64).reshape(g.k, g.k))
        pos += n
    return out


def _pll_encoder(config: CodaConfig):
    """authors: the released code's input, a lone byte-level space token scored too (``authors_pll``)."""
    if not RECIPES[config.recipe].authors_pll_input:
        return None
    from lexprobe.benchmarks.coda21.authors_pll import authors_pll_encoding

    return authors_pll_encoding


def _causal_matrices(groups: Sequence[Group], scorer: Any, config: CodaConfig) -> list[np.ndarray]:
    reduce = np.mean if config.normalize == "mean" else np.sum
    fitted = isinstance(scorer, PairTokenizer)
    if fitted:  # fitted to the model as ``group_fits`` counted them
        per_token = scorer.token_logprobs([pair for g in groups for pair in _causal_pairs(g, scorer, config)[0]])
    else:  # a scorer that takes texts only
        per_token = scorer.continuation_logprobs(_lm_requests(groups, config))
    flat = [float(reduce(lp[: config.max_definition_tokens])) for lp in per_token]
    return _split_matrices(groups, flat)


def _causal_pairs(group: Group, scorer: Any, config: CodaConfig) -> tuple[list[tuple[tuple, tuple]], int]:
    """The group's k x k (prompt, definition) token pairs, each prompt's start cut where a pair does not fit
    the model, and how many of its k prompts were cut; ``TooLong`` where a definition alone does not fit."""
    from lexprobe.scorers.causal import fit_context

    pairs, cut = [], set()
    for i, (ctx, cont) in enumerate(scorer.tokenize_pair(p, x) for p, x in _lm_requests([group], config)):
        fitted, was_cut = fit_context(ctx, cont, scorer.max_length)
        if was_cut:
            cut.add(i // group.k)
        pairs.append((fitted, cont))
    return pairs, len(cut)


def _masked_cut(group: Group, scorer: Any, config: CodaConfig) -> int:
    """How many of the group's k prompts lose tokens for a definition to fit (``TooLong``: one cannot)."""
    from lexprobe.scorers.pll import prefix_cut

    requests = _lm_requests([group], config)
    return len({i // group.k for i, (p, x) in enumerate(requests)
                if prefix_cut(scorer, p, x, config.max_definition_tokens, _pll_encoder(config))})


@dataclass(frozen=True)
class GroupFit:
    """How a group's prompts fit the model: why it cannot be scored, or how many prompts lose their start."""

    skipped: str | None = None
    truncated_contexts: int = 0


def group_fits(groups: Sequence[Group], scorer: Any, config: CodaConfig) -> list[GroupFit]:
    """Per group, before scoring: a language model's input has room for every prompt with every definition,
    cutting a prompt's start if need be (counted), or the group is skipped (a definition alone is too long)."""
    from lexprobe.scorers.base import TooLong

    if isinstance(scorer, RandomScores) or not isinstance(scorer, (TokenLogprobs, SlotLogprobs)):
        return [GroupFit() for _ in groups]
    if isinstance(scorer, TokenLogprobs):
        if not isinstance(scorer, PairTokenizer):
            return [GroupFit() for _ in groups]
        count = lambda g: _causal_pairs(g, scorer, config)[1]  # noqa: E731
    else:
        if not isinstance(scorer, Tokenized):
            return [GroupFit() for _ in groups]
        count = lambda g: _masked_cut(g, scorer, config)  # noqa: E731
    out = []
    for g in groups:
        try:
            out.append(GroupFit(truncated_contexts=count(g)))
        except TooLong as err:
            out.append(GroupFit(skipped=f"{err} (skipped: cutting the definition would change what is scored)"))
    return out


class _GroupUnit(TypedDict):
    id: str
    pos: str
    k: int


class GroupRecord(_GroupUnit, total=False):
    """A group's record as the resume log keeps it (scored: ``group_record``; left out: ``skip_record``)."""

    skipped: str
    scores: list[list[float]]
    assignment: list[int]
    accuracy: float
    simple_accuracy: float
    truncated_contexts: int
    per_question: list[dict[str, Any]]


def skip_record(group: Group, reason: str) -> dict[str, Any]:
    """A unit-log record of a group left unscored: a resumed run skips it again without scoring it."""
    return {"id": group.id, "pos": group.pos, "k": group.k, "skipped": reason}


def split_skipped(records: Sequence[dict]) -> tuple[list[dict], list[GroupProblem]]:
    """(the scored groups' records, the problems of the groups ``skip_record`` left out)."""
    return ([r for r in records if "skipped" not in r],
            [GroupProblem(r["id"], r["skipped"]) for r in records if "skipped" in r])


def _masked_matrices(groups: Sequence[Group], scorer: Any, config: CodaConfig) -> list[np.ndarray]:
    from lexprobe.scorers.pll import pll_scores

    # CoDA21's 48-token cut of definitions is made here; the PLL API scores whole texts
    flat = pll_scores(scorer, _lm_requests(groups, config), variant=config.pll,
                      max_tokens=config.max_definition_tokens, normalize=config.normalize,
                      encoder=_pll_encoder(config))
    return _split_matrices(groups, flat)


def _embedding_matrices(groups: Sequence[Group], scorer: Any, config: CodaConfig) -> list[np.ndarray]:
    contexts = [context_without_target(c.context, c.word, config.recipe) for g in groups for c in g.candidates]
    definitions = [c.definition for g in groups for c in g.candidates]
    texts = list(dict.fromkeys(contexts + definitions))  # each distinct text encoded once
    index = {t: i for i, t in enumerate(texts)}
    vectors = np.asarray(scorer.encode(texts), dtype=np.float64)
    out, start = [], 0
    for g in groups:
        ctx = vectors[[index[t] for t in contexts[start:start + g.k]]]
        dfn = vectors[[index[t] for t in definitions[start:start + g.k]]]
        out.append(ctx @ dfn.T)
        start += g.k
    return out


def _random_matrices(groups: Sequence[Group], scorer: Any, config: CodaConfig) -> list[np.ndarray]:
    return [np.asarray(scorer.scores(f"coda21:{g.id}", g.k * g.k), dtype=np.float64).reshape(g.k, g.k)
            for g in groups]


#: how a scorer fills the match-score matrices, by the first capability it offers (in this order)
STRATEGIES = {RandomScores: _random_matrices, TokenLogprobs: _causal_matrices, SlotLogprobs: _masked_matrices,
              SentenceEmbeddings: _embedding_matrices}


def match_matrices(groups: Sequence[Group], scorer: Any, config: CodaConfig = CodaConfig()) -> list[np.ndarray]:
    """One k x k matrix per group, rows = contexts, columns = definitions."""
    if not groups:
        return []
    return strategy(STRATEGIES, scorer, "CoDA21")(groups, scorer, config)


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
        "id": group.id,
        "pos": group.pos,
        "k": group.k,
        "ancestor": group.ancestor,
        "relation": group.relation,
        "synsets": [c.synset for c in group.candidates],
        "words": [c.word for c in group.candidates], "definitions": [c.definition for c in group.candidates],
        "contexts": [c.context for c in group.candidates],
        "scores": np.round(scores, 6).tolist(),
        # optimal/exhaustive: the definition of each context; none: the context of each definition
        "assignment": assignment.tolist(),
        "predicted_pairs": _pairs(assignment, config.align),  # [context, definition]
        "accuracy": al.accuracy(assignment),
        "simple_accuracy": al.accuracy(simple),
    }


def _pairs(assignment: np.ndarray, method: str) -> list[list[int]]:
    if method == "none":
        return [[int(c), d] for d, c in enumerate(assignment)]
    return [[c, int(d)] for c, d in enumerate(assignment)]


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


STATIC_SKIP = "has a text without any token with a vector (the authors' get_mean_emb raises here, aligner.py:284-285)"


def _static_texts(group: Group, config: CodaConfig) -> list[str]:
    return ([context_without_target(c.context, c.word, config.recipe) for c in group.candidates]
            + [c.definition for c in group.candidates])


def is_static_vectors(scorer: Any) -> bool:
    """Static word vectors (``StaticVectorsScorer``): texts averaged from token vectors, some tokens without one."""
    return isinstance(scorer, WordVectors)


def _static_check(group: Group, scorer: Any, config: CodaConfig) -> str | None:
    """authors: a group with a context or definition static vectors cannot embed is skipped (their run
    stopped with ValueError); paper: such a text is the zero vector (cosine 0 with everything)."""
    if not (RECIPES[config.recipe].static_skip and is_static_vectors(scorer)):
        return None
    return None if all(scorer.can_embed(t) for t in _static_texts(group, config)) else STATIC_SKIP


def static_counts(scorer: Any, groups: Sequence[Group], problems: Sequence[GroupProblem],
                  config: CodaConfig) -> dict[str, int]:
    """The result's ``counts`` of a static-vector run: tokens of the distinct texts embedded and how many had
    no vector (left out of the average), texts with none at all (the zero vector), groups skipped for it."""
    from lexprobe.scorers.embedding import vector_counts

    texts = sorted({t for g in groups for t in _static_texts(g, config)})
    return {**vector_counts(scorer, texts), "skipped_groups_without_vectors": sum(p.reason == STATIC_SKIP
                                                                                 for p in problems)}


# --- the run ---------------------------------------------------------------------------

def select_groups(data: CodaData, config: CodaConfig) -> list[Group]:
    chosen = []
    for p in parts_of_speech(config.pos):
        groups = data.by_pos(p)
        chosen.extend(groups[: config.limit] if config.limit is not None else groups)
    return chosen


def group_costs(scorer: Any, groups: Sequence[Group]) -> list[float]:
    """Tokens a group costs: k prompts, each followed by the k definitions."""
    texts = sorted({t for g in groups for c in g.candidates for t in (c.context, c.definition)})
    count = dict(zip(texts, token_counts(scorer, texts)))
    return [g.k * sum(count[c.context] + count[c.definition] for c in g.candidates) for g in groups]


def runnable_groups(data: CodaData, config: CodaConfig, scorer: Any = None) -> tuple[list[Group], list[GroupProblem]]:
    """The groups of the run, and the problems of those left out."""
    groups = select_groups(data, config)
    problems = [p for p in data.problems if p.group_id.split("/")[0] in parts_of_speech(config.pos)]
    runnable = []
    for g in groups:
        reason = _check_group(g, config) or _static_check(g, scorer, config)
        if reason:
            problems.append(GroupProblem(g.id, reason))
        else:
            runnable.append(g)
    for p in problems:
        log.warning("skipping %s", p)
    return runnable, problems


def run_groups(job, groups: Sequence[Group], compute: Any, step: int, desc: str) -> list[dict] | None:
    """The groups as resume units through ``distributed.run_units`` (keyed by the job's one resume key; under
    ``torchrun`` split across ranks by token count); their records on rank 0, None on the others."""
    key = job.key([[g.id, g.pos, [(c.synset, c.definition, c.context, c.word) for c in g.candidates]]
                   for g in groups])
    return run_units([g.id for g in groups], compute, group_costs(job.scorer, groups), step=step,
                     log_base=job.log_base, log_key=key, record=GroupRecord,
                     make_bar=lambda: tqdm(total=len(groups), desc=desc, unit="group",
                                           disable=not (job.progress and context().is_main)))


def group_records(records: Sequence[dict], problems: Sequence[GroupProblem], runnable: Sequence[Group],
                  counts: dict[str, int], **more: Any) -> Records:
    """A run's ``Records``: the scored groups, those left out (``skipped``, counted first), what was counted."""
    skipped = [{"unit": p.group_id, "reason": p.reason} for p in problems]
    return Records(list(records), items=list(runnable), counts={"skipped_groups": len(skipped), **counts},
                   skipped=skipped, tasks=[TASK], **more)


def run_likelihood(job) -> Records | None:
    """The likelihood method: every group's match-score matrix, aligned; groups are resume units
    (under ``torchrun`` split across ranks by token count)."""
    data, scorer, config = job.items, job.scorer, job.config
    runnable, problems = runnable_groups(data, config, scorer)
    cheap = not isinstance(scorer, (TokenLogprobs, SlotLogprobs))
    step = config.groups_per_chunk or (256 if cheap else 16)

    def compute(indices: list[int]) -> list[dict]:
        chunk = [runnable[i] for i in indices]
        fits = group_fits(chunk, scorer, config)
        fitting = [g for g, f in zip(chunk, fits) if f.skipped is None]
        matrices = iter(match_matrices(fitting, scorer, config))
        out = []
        for g, fit in zip(chunk, fits):
            if fit.skipped is not None:
                out.append(skip_record(g, fit.skipped))
                continue
            record = group_record(g, next(matrices), config)
            if fit.truncated_contexts:
                record["truncated_contexts"] = fit.truncated_contexts
            out.append(record)
        return out

    records = run_groups(job, runnable, compute, step, "CoDA21 groups")
    if records is None:  # another rank than 0: rank 0 writes the result
        return None
    records, too_long = split_skipped(records)
    counts: dict[str, int] = {}
    if is_static_vectors(scorer):  # what the static vectors could not embed or the recipe skipped: counts
        counts = static_counts(scorer, runnable, problems, config)
    elif isinstance(scorer, (TokenLogprobs, SlotLogprobs)):  # what did not fit the model: counts
        counts = {"skipped_too_long": len(too_long),
                  "truncated_contexts": sum(r.get("truncated_contexts", 0) for r in records)}
    elif isinstance(scorer, CountsTruncation):  # a sentence encoder cuts long texts: counted
        texts = sorted({t for g in runnable for t in _static_texts(g, config)})
        counts = {"truncated_texts": scorer.truncated(texts)}
    return group_records(records, problems + too_long, runnable, counts)


