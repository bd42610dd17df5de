"""WDLMPro's likelihood method: rank every group's candidates and record every (group, task) instance.

Groups are scored in chunks; each finished chunk's instance records go to a resume
log next to the output file, so an interrupted run restarts where it stopped. The
records are the method's output (``Records``): ``evaluate`` aggregates them into
metrics, the random baseline and the breakdowns (``results.py``).
"""

from __future__ import annotations

from typing import Sequence

from tqdm.auto import tqdm

from lexprobe.benchmarks.base import Records
from lexprobe.benchmarks.wdlmpro import static_drop
from lexprobe.benchmarks.wdlmpro.config import TASK_CHOICES
from lexprobe.benchmarks.wdlmpro.dataset import group_to_dict
from lexprobe.benchmarks.wdlmpro.recipe import PAPER, Recipe, argsort_rank, best_pattern_rank, get_recipe
from lexprobe.benchmarks.wdlmpro.results import LikelihoodRecord
from lexprobe.benchmarks.wdlmpro.scoring import fit_report, recipe_groups, score_groups, word_token_count
from lexprobe.distributed import is_main, run_units, token_counts
from lexprobe.errors import DataError
from lexprobe.metrics.ranking import gold_rank, predicted_index, rank_score
from lexprobe.scorers.capabilities import CountsTruncation, WordVectors


def rank_of_gold(scores, recipe: Recipe = PAPER) -> tuple[int, int]:
    """(gold rank k, predicted index) for a group whose gold item is candidate 0."""
    if recipe.ties == "argsort":
        return argsort_rank(scores, gold=0)
    return gold_rank(scores, gold=0), predicted_index(scores, gold=0)


def is_static_vectors(scorer) -> bool:
    """Static word vectors (``StaticVectorsScorer``): a text is the mean of its tokens' vectors, where they have one."""
    return isinstance(scorer, WordVectors)


def _scored_views(scorer, groups, tasks, recipe: Recipe, progress: bool, fits: dict):
    """{(task, i): (group as scored or None, scores, per-pattern scores, candidates skipped, why dropped)}.

    A (task, group) a language model cannot take (``scoring.fit_report``) has no view; the
    caller records it as skipped."""
    shown = recipe_groups(groups, recipe)
    patterns: dict = {}
    if not (recipe.static_drop and is_static_vectors(scorer)):
        if all(why is None for why, _ in fits.values()):
            scores = score_groups(scorer, groups, tasks, progress=progress, recipe=recipe, pattern_scores=patterns)
            return {(t, i): (g, scores[(t, i)], patterns.get((t, i)), 0, None) for i, g in enumerate(shown) for t in tasks}
        by_task_group: dict = {}
        for task in tasks:  # some groups skipped for some task: each task scores the groups it can
            kept = [i for i in range(len(groups)) if fits[(task, i)][0] is None]
            patterns.clear()
            scores = score_groups(scorer, [groups[i] for i in kept], (task,), progress=progress, recipe=recipe,
                                  pattern_scores=patterns) if kept else {}
            for j, i in enumerate(kept):
                by_task_group[(task, i)] = (shown[i], scores[(task, j)], patterns.get((task, j)), 0, None)
        return by_task_group
    out: dict = {}
    for task in tasks:  # the authors' filter differs per task (D2W embeds no candidate definition)
        views = [static_drop.task_view(scorer, g, task) for g in shown]
        kept = [i for i, v in enumerate(views) if v[0] is not None]
        scores = score_groups(scorer, [views[i][0] for i in kept], (task,), progress=progress, recipe=recipe)
        for j, i in enumerate(kept):
            out[(task, i)] = (views[i][0], scores[(task, j)], None, views[i][1], None)
        for i, (view, skipped, why) in enumerate(views):
            if view is None:
                out[(task, i)] = (None, None, None, skipped, why)
    return out


#: a unit of the likelihood method (a group): its records, one per task
UNIT_RECORD = list[LikelihoodRecord]


def instance_records(scorer, groups, tasks, attributes: Sequence[dict], progress=False,
                     recipe: Recipe | str = PAPER) -> list[dict]:
    """One record per (group, task), in that order. Masked LMs add each pattern's gold rank
    (``patterns``); a group the recipe skips gets a record with ``dropped`` (the reason)."""
    recipe = get_recipe(recipe)
    fits = fit_report(scorer, recipe_groups(groups, recipe), tasks, recipe)
    views = _scored_views(scorer, groups, tasks, recipe, progress, fits)
    records = []
    for i, g in enumerate(groups):
        n_tokens = word_token_count(scorer, recipe.word_of(g.target, g.word), g.pos, recipe)
        for task in tasks:
            base = {"task": task, "target": g.target, "pos": g.pos, "word": g.word}
            too_long, cut = fits[(task, i)]
            if too_long is not None:  # logged like a scored one: a resumed run skips it again, unscored
                records.append({**base, "skipped": too_long, "word_tokens": n_tokens, **attributes[i]})
                continue
            shown, s, per_pattern, skipped, why = views[(task, i)]
            if cut:
                base["truncated_definitions"] = cut
            if shown is None:
                records.append({**base, "dropped": why, "candidates_dropped": skipped, **attributes[i]})
                continue
            k, best = rank_of_gold(s, recipe)
            extra = {"candidates_dropped": skipped} if skipped else {}
            if per_pattern is not None:
                rank = lambda row: rank_of_gold(row, recipe)  # noqa: E731
                extra["patterns"] = [
                    {"pattern": text, "gold_rank": kp, "rank_score": rank_score(len(row), kp),
                     "gold_score": round(float(row[0]), 6)}
                    for text, row, (kp, _) in zip(recipe.masked_patterns[(task, g.pos)], per_pattern,
                                                   map(rank, per_pattern))]
                if recipe.pattern_aggregation == "best":
                    k, best, _ = best_pattern_rank(per_pattern, rank)
            pred = shown.candidates[best]
            records.append({
                **base, "n_candidates": len(shown.candidates), "gold_rank": k,
                "rank_score": rank_score(len(shown.candidates), k), "predicted": pred.synset,
                "gold_definition": g.definition, "predicted_word": pred.word, "predicted_definition": pred.definition,
                "word_tokens": n_tokens, **extra, **attributes[i],
            })
    return records


def scored_by_language_model(scorer) -> bool:
    """Masked and causal LMs, whose inputs have a length limit (``scoring.fit_report``)."""
    from lexprobe.scorers.capabilities import RandomScores, SlotLogprobs, TokenLogprobs

    return isinstance(scorer, (SlotLogprobs, TokenLogprobs)) and not isinstance(scorer, RandomScores)


def unit_ids(groups) -> list[str]:
    """Resume keys: the target synset, made unique if a dataset repeats one."""
    seen: dict[str, int] = {}
    out = []
    for g in groups:
        n = seen.get(g.target, 0)
        seen[g.target] = n + 1
        out.append(g.target if n == 0 else f"{g.target}#{n}")
    return out


def sister_bundle(group) -> tuple[str, ...]:
    """Sister groups have the same members; W2D of one and D2W of another ask for the same pairs."""
    return tuple(sorted(c.synset for c in group.candidates))


def group_costs(scorer, groups) -> list[float]:
    """Tokens a group's pairs cost: both tasks pair every candidate with the target's word/definition."""
    texts = sorted({t for g in groups for c in g.candidates for t in (c.word, c.definition)})
    count = dict(zip(texts, token_counts(scorer, texts)))
    return [sum(count[c.word] + count[c.definition] + count[g.word] + count[g.definition] for c in g.candidates)
            for g in groups]


def run_likelihood(job) -> Records | None:
    """The likelihood method: every group's candidates scored, in resumable chunks of groups; one record per
    group and task (``evaluate`` aggregates them: ``results.py``), with what the run skipped, dropped and cut."""
    groups, tasks, attributes_fn = job.items.groups, TASK_CHOICES[job.config.task], job.items.attributes
    scorer = job.scorer
    recipe = job.recipe.with_aggregation(job.config.pattern_aggregation)
    if not groups:
        raise DataError("no WDLMPro groups to evaluate; check --data, --pos and --limit")
    extra = {}
    if job.config.counts:
        from lexprobe.provenance import file_sha256

        extra["counts_sha256"] = file_sha256(job.config.counts)  # bands change with the file's contents
    # keyed by the exact groups, the weights and every score-changing option (never the data
    # path, nor the number of processes: any number may resume)
    key = job.key({"groups": [group_to_dict(g) for g in groups], "tasks": list(tasks)}, **extra)

    def compute(indices: list[int]) -> list[list[dict]]:
        chunk = [groups[i] for i in indices]
        attrs = attributes_fn(chunk) if attributes_fn else [{} for _ in chunk]
        flat = instance_records(scorer, chunk, tasks, attrs, recipe=recipe)
        return [flat[j * len(tasks):(j + 1) * len(tasks)] for j in range(len(chunk))]

    per_group = run_units(unit_ids(groups), compute, group_costs(scorer, groups), step=job.config.chunk_size,
                          log_base=job.log_base, log_key=key, record=UNIT_RECORD,
                          bundles=[sister_bundle(g) for g in groups],
                          make_bar=lambda: tqdm(total=len(groups), desc=f"WDLMPro {scorer.name}", unit="group",
                                                disable=not (job.progress and is_main())))
    if per_group is None:  # another rank than 0: rank 0 writes the result
        return None
    records = [r for recs in per_group for r in recs]
    too_long = [r for r in records if "skipped" in r]
    records = [r for r in records if "skipped" not in r]
    skipped = [{"unit": f"{r['task']}:{r['target']}", "reason": r["skipped"]} for r in too_long]
    return Records(records, items=groups, counts=_counts(scorer, groups, recipe, records, too_long),
                   skipped=skipped, tasks=list(tasks))


def _counts(scorer, groups, recipe: Recipe, records: list[dict], too_long: list[dict]) -> dict[str, int]:
    """What the scorer could not take, by kind of scorer: static vectors what they could not embed (and the
    recipe dropped), language models what did not fit their input, sentence encoders the texts they cut."""
    if is_static_vectors(scorer):
        return static_drop.counts(scorer, recipe_groups(groups, recipe), records, recipe.static_drop)
    if scored_by_language_model(scorer):
        return {"skipped_too_long": len(too_long),
                "truncated_definitions": sum(r.get("truncated_definitions", 0) for r in records)}
    if isinstance(scorer, CountsTruncation):
        shown = recipe_groups(groups, recipe)
        return {"truncated_texts": scorer.truncated(
            sorted({t for g in shown for c in g.candidates for t in (c.word, c.definition)}))}
    return {}
