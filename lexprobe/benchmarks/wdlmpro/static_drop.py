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


def summary(records: Sequence[dict]) -> dict:
    """What the recipe skipped, per task: groups (by reason) and candidates of the groups kept."""
    out: dict = {}
    for r in records:
        t = out.setdefault(r["task"], {"groups_dropped": 0, "groups_dropped_target": 0, "groups_dropped_too_few": 0,
                                      "candidates_dropped": 0, "groups": 0})
        t["groups"] += 1
        if not r.get("dropped"):
            t["candidates_dropped"] += r.get("candidates_dropped", 0)
        else:
            t["groups_dropped"] += 1
            t["groups_dropped_target" if r["dropped"] == TARGET else "groups_dropped_too_few"] += 1
    return out


def coverage(scorer, groups) -> dict[str, int]:
    """Tokens of the distinct words and definitions of ``groups`` and how many have no vector."""
    texts = sorted({t for g in groups for c in g.candidates for t in (c.word, c.definition)})
    tokens = [tok for t in texts for tok in scorer.tokens(t)]
    return {"texts": len(texts), "texts_without_vectors": sum(not scorer.can_embed(t) for t in texts),
            "tokens": len(tokens), "oov_tokens": sum(tok not in scorer.vectors for tok in tokens)}


def format_dropped(dropped: dict) -> str:
    """One printed block: what the static-vector run skipped."""
    cov = dropped["coverage"]
    lines = [f"Static vectors: {cov['oov_tokens']:,} of {cov['tokens']:,} tokens have no vector (skipped); "
             f"{cov['texts_without_vectors']:,} of {cov['texts']:,} distinct words and definitions have none at all"]
    for task, t in dropped.get("by_task", {}).items():
        lines.append(f"{task.upper()}: {t['groups_dropped']:,} of {t['groups']:,} groups dropped "
                     f"({t['groups_dropped_target']:,} target without vectors, {t['groups_dropped_too_few']:,} "
                     f"with < {MIN_CANDIDATES} candidates left), {t['candidates_dropped']:,} candidates dropped "
                     "from the groups kept")
    if not dropped.get("by_task"):
        lines.append(f"(recipe {dropped['recipe']}: nothing dropped; a text without vectors scores cosine 0)")
    return "\n".join(lines)
