"""The authors' static-vector baseline skips what it cannot embed; lexprobe counts what it skipped.

definition_benchmark @54fa97b, ``W2D/evaluate_with_word_embeddings.py`` and
``D2W/evaluate_with_word_embeddings.py`` build each group from WordNet afresh and:

- skip a target whose word or definition has no token with a vector (W2D ``:131``,
  D2W ``:122``; ``can_embed`` is ``any(token in embs for token in word_tokenize(text))``,
  ``:86-88``);
- skip a candidate whose word or definition (W2D ``:142``) or whose word (D2W ``:135``,
  the only text D2W embeds) has none;
- drop a group left with fewer than five candidates (``min_option_count = 5``, ``:147``).

The paper's text says none of this, so ``paper`` keeps every item (a text without a
known token is the zero vector: cosine 0 with everything). Under ``authors`` the
groups are filtered here, per task. One difference remains: the authors filtered
while de-duplicating, so a later duplicate could stand in for a skipped one; lexprobe
filters its de-duplicated groups (a skipped candidate's duplicate is already gone).
"""

from __future__ import annotations

from typing import Sequence

from lexprobe.benchmarks.wdlmpro.dataset import SynsetGroup

MIN_CANDIDATES = 5
TARGET = "target word or definition has no token with a vector"
TOO_FEW = f"fewer than {MIN_CANDIDATES} candidates have vectors"


def task_view(scorer, group: SynsetGroup, task: str) -> tuple[SynsetGroup | None, int, str | None]:
    """(the group as the authors score it or None, candidates skipped, why the group was dropped)."""
    if not (scorer.can_embed(group.word) and scorer.can_embed(group.definition)):
        return None, 0, TARGET
    keep = [group.candidates[0]] + [
        c for c in group.candidates[1:]
        if scorer.can_embed(c.word) and (task == "d2w" or scorer.can_embed(c.definition))
    ]
    skipped = len(group.candidates) - len(keep)
    if len(keep) < MIN_CANDIDATES:
        return None, skipped, TOO_FEW
    if not skipped:
        return group, 0, None
    return SynsetGroup(group.target, group.pos, group.word, tuple(keep)), skipped, None


def counts(scorer, groups, records: Sequence[dict], drops: bool = False) -> dict[str, int]:
    """The result's ``counts`` of a static-vector run: the vectors' coverage of the groups' distinct words and
    definitions (``scorers.embedding.vector_counts``) and, per task, what the recipe dropped: targets without
    vectors, groups left with too few candidates, candidates dropped from the groups kept (``drops``: the
    recipe drops, so these are counted even where none was)."""
    from lexprobe.scorers.embedding import vector_counts

    out = vector_counts(scorer, [t for g in groups for c in g.candidates for t in (c.word, c.definition)])
    if drops:
        for task in sorted({r["task"] for r in records}):
            for which in ("targets_without_vectors", "groups_too_few_candidates", "candidates_without_vectors"):
                out[f"dropped_{task}_{which}"] = 0
    for r in records:
        task = r["task"]
        if r.get("dropped"):
            which = "targets_without_vectors" if r["dropped"] == TARGET else "groups_too_few_candidates"
            out[f"dropped_{task}_{which}"] = out.get(f"dropped_{task}_{which}", 0) + 1
        elif r.get("candidates_dropped"):
            key = f"dropped_{task}_candidates_without_vectors"
            out[key] = out.get(key, 0) + r["candidates_dropped"]
    return out
