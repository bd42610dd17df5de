"""lexprobe's tasks for lm-evaluation-harness: copied as ``lexprobe_tasks.py`` into a ``lexprobe export lm-eval``
folder, next to the task YAMLs that name its functions (``!function lexprobe_tasks.<name>``).

It stands alone (numpy, scipy, datasets and lm-eval, no lexprobe), so the folder runs wherever lm-eval runs.
What lexprobe decides is copied here, and tests/export/ checks it against lexprobe's own code:

- a tie with the gold answer counts against it (``metrics/ranking.py``): the gold choice is always the first,
  where lm-eval's own ``acc`` (first best choice) would count a tie for the model;
- CoDA21's alignment (``metrics/alignment.py``): the definitions put in a fixed order seeded by the group id,
  then the Hungarian algorithm; simple matching takes each definition's best context in the same order.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

HERE = Path(__file__).resolve().parent


def docs(**kwargs):
    """The docs of one task (``dataset_kwargs: {docs: NAME}``), from ``docs/NAME.parquet`` beside this file."""
    import datasets

    path = HERE / "docs" / f"{kwargs['docs']}.parquet"
    return datasets.DatasetDict({"test": datasets.Dataset.from_parquet(str(path))})


def _gold_rank(scores, gold):
    """1 + the number of other choices scoring at least the gold one (NaN scores count as -inf)."""
    clean = [-math.inf if math.isnan(s) else s for s in scores]
    return 1 + sum(1 for j, s in enumerate(clean) if j != gold and s >= clean[gold])


def rank_results(doc, results):
    """``acc`` (the gold choice ranked first, ties against it) and ``rank_score`` (L - rank) / (L - 1)."""
    scores = [float(ll) for ll, _ in results]
    rank = _gold_rank(scores, doc["gold"])
    return {"acc": float(rank == 1), "rank_score": (len(scores) - rank) / (len(scores) - 1)}


def sense_results(doc, results):
    """``acc``: the first best-scoring choice (lexprobe's ``argmax``, WordNet's order on a tie) is one of ``golds``
    (any gold sense is right, as the WSD framework's scorer counts it)."""
    scores = [-math.inf if math.isnan(float(ll)) else float(ll) for ll, _ in results]
    best = max(range(len(scores)), key=lambda j: (scores[j], -j))
    return {"acc": float(best in set(doc["golds"]))}


def tie_break_order(group_id, k):
    """A fixed pseudo-random permutation of range(k) seeded by the group id (lexprobe's ``tie_break_order``)."""
    import numpy as np

    seed = int.from_bytes(hashlib.sha256(group_id.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).permutation(k)


def align(scores, group_id):
    """(the definition of each context: best summed score, Hungarian; the context each definition picks)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    k = scores.shape[0]
    order = tie_break_order(group_id, k)
    permuted = scores[:, order]
    rows, cols = linear_sum_assignment(permuted, maximize=True)
    assignment = np.empty(k, dtype=np.int64)
    assignment[rows] = order[cols]
    context_of = np.empty(k, dtype=np.int64)
    context_of[order] = np.argmax(permuted, axis=0)
    return assignment, context_of


def alignment_results(doc, results):
    """``acc``: the share of contexts aligned to their own definition; ``simple_acc``: the share of definitions
    whose best context is their own."""
    import numpy as np

    k = len(doc["continuations"])
    scores = np.array([float(ll) for ll, _ in results], dtype=np.float64).reshape(k, k)
    assignment, context_of = align(scores, doc["id"])
    return {"acc": float(np.mean(assignment == np.arange(k))), "simple_acc": float(np.mean(context_of == np.arange(k)))}


try:
    from lm_eval.api.instance import Instance
    from lm_eval.api.task import ConfigurableTask
except ImportError:  # read without lm-eval (the functions above stand alone)
    ConfigurableTask = object  # type: ignore[assignment,misc]


class AlignmentTask(ConfigurableTask):  # type: ignore[misc,valid-type]
    """k contexts x k continuations per doc: the contexts are lm-eval's multiple inputs (so a chat template or a
    system instruction applies to them as to any task), each followed by every continuation; the k x k
    log-likelihoods go to ``process_results`` (``alignment_results``) in row order."""

    def __init__(self, config=None):
        super().__init__(config={k: v for k, v in (config or {}).items() if k != "class"})

    def doc_to_text(self, doc, doc_to_text=None):
        return 0  # an index: lm-eval's multiple-input form (the contexts are doc_to_choice's)

    def construct_requests(self, doc, ctx, **kwargs):
        chat = kwargs.pop("apply_chat_template", False)
        kwargs.pop("chat_template", None)
        delimiter = "" if chat else self.config.target_delimiter
        continuations = doc["continuations"]
        k = len(continuations)
        return [Instance(request_type="loglikelihood", doc=doc, arguments=(context, f"{delimiter}{continuation}"),
                         idx=i * k + j, **kwargs)
                for i, context in enumerate(ctx) for j, continuation in enumerate(continuations)]
