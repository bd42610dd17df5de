"""CoDA21 by asking (``--method ask``): P(Yes) to "Is <nonce> defined as <definition>?" for every
context-definition pair, the k x k matrix aligned.

The authors' third way of asking, released in definition_benchmark @54fa97b but in no paper table
(``CoDA/LM_evaluation/evaluate_by_asking/evaluator.py``; their results: CoDA-clean-easy nouns only). The model
reads "<context, target hidden by the nonce> Is <nonce> defined as  <definition>?" (two spaces: ``:44-45``) and
the score is the two-way softmax of the " Yes" and " No" first-token logits (``:77``): after the "?" for a causal
LM (``Continuation``), in a mask appended to it for a masked LM (``Slot``). Contexts over 72 words are cut around
the nonce (``:24-39``; counted as ``truncated_contexts``). ``--questions`` picks among the three questions
(``:66-73``); several: their P(Yes) averaged per pair (the authors' "Ensamble"), aligned as the likelihood method
aligns (``--align``, the recipe's ties and hiding). A group whose long context has no word equal to the nonce (the
authors' run raised there), or with a question the model cannot take whole, is skipped. WDLMPro is not asked this
way (the authors never did); ``yes_probabilities`` is the shared core if it is wanted.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from lexprobe.asking.engine import as_engine
from lexprobe.asking.requests import Continuation, Slot
from lexprobe.benchmarks.coda21.dataset import GroupProblem
from lexprobe.benchmarks.coda21.likelihood import (
    chunk_records,
    fits_by_group,
    group_record,
    group_records,
    hide_target,
    run_groups,
    runnable_groups,
)
from lexprobe.benchmarks.coda21.tables import ask_tables, format_ask
from lexprobe.core.contract import Method, Presentation, Records

#: the three questions by POS, evaluator.py:66-73, verbatim (the second verb question lacks "be" there too)
QUESTION_TEXTS = {
    "n": ("<CONTEXT> Is <NONCE> defined as <DEFINITION>?",
          "<CONTEXT> Can <NONCE> be defined as <DEFINITION>?",
          "<CONTEXT> Is <NONCE> <DEFINITION>?"),
    "v": ("<CONTEXT> Is <NONCE> defined as to <DEFINITION>?",
          "<CONTEXT> Can <NONCE> defined as to <DEFINITION>?",
          "<CONTEXT> Is <NONCE> to <DEFINITION>?"),
}
ANSWERS = (" Yes", " No")  # evaluator.py:77: the first token of each
MAX_CONTEXT_WORDS = 72  # evaluator.py:83


#: what ``--method ask`` records besides the chosen questions (``config.ask``)
AGGREGATION = "mean-prob"  # several questions: the mean of their P(Yes) (evaluate.py:146-155, "Ensamble")

Hide = Callable[[str, str, str], str]  #: (context, target, nonce) -> the context with the target hidden


def cut_context(context: str, target: str, nonce: str, max_words: int = MAX_CONTEXT_WORDS,
                hide: Hide = str.replace) -> str:
    """``SG_ops.get_first_contexts`` (evaluator.py:13-42): replace (``hide``; theirs: ``str.replace``),
    then keep at most ``max_words`` space-separated words around the nonce. Raises ValueError where
    theirs did (no word equals the nonce in a context that needs cutting)."""
    context = hide(context, target, nonce)
    words = context.split(" ")
    if len(words) <= max_words:
        return context
    i = words.index(nonce)
    right = len(words) - i - 1
    if min(i, right) >= max_words // 2:
        words = words[i - max_words // 2:i + max_words // 2]
    elif i < right:
        words = words[:max_words]
    else:
        words = words[-max_words:]
    return " ".join(words)


def questions(group, nonce: str = "bkatuhla", texts: Sequence[str] | None = None,
              hide: Hide = str.replace) -> list[str]:
    """The k * k * Q questions of a group (Q: ``texts``, default all three), contexts outer, definitions, then
    questions inner (``_create_batch``, evaluator.py:109-126)."""
    texts = QUESTION_TEXTS[group.pos] if texts is None else texts
    contexts = [cut_context(c.context, c.word, nonce, hide=hide) for c in group.candidates]
    return [text.replace("<CONTEXT>", context).replace("<NONCE>", nonce).replace("<DEFINITION>", " " + c.definition)
            for context in contexts for c in group.candidates for text in texts]


def answer_ids(tokenizer, answers: Sequence[str] = ANSWERS, model: str = "the model") -> tuple[int, int]:
    """The first token of " Yes" and of " No" (the only ones the authors read, evaluator.py:77). Two answers
    with one first token (a byte-level vocabulary: "Ġ" then the letters) give P(Yes) 0.5 for every pair, so the
    method is refused in one line rather than reported as a tie-break."""
    from lexprobe.errors import ModelError

    yes, no = (tokenizer.encode(a, add_special_tokens=False)[0] for a in answers)
    if yes == no:
        raise ModelError(f"the tokenizer of {model} spells {answers[0]!r} and {answers[1]!r} with the same first "
                         f"token ({tokenizer.convert_ids_to_tokens(yes)!r}), so the authors' P(Yes) (the two-way "
                         "softmax over the answers' first tokens, evaluator.py:77) is 0.5 for every pair and the accuracy a "
                         "tie-break: --method ask cannot score this model; use --method likelihood or choose")
    return yes, no


#: the request types a model must serve for --method ask, by alternative
REQUESTS = ((Continuation,), (Slot,))


def answer_requests(kind: type, texts: Sequence[str], answers: Sequence[str]) -> list[Any]:
    """Per question, its requests of the first answer (" Yes"), then the second (" No"): the answer's first
    token after it (causal) or in one mask appended to it (masked)."""
    if kind is Continuation:
        return [Continuation(t, a, max_tokens=1) for t in texts for a in answers]
    return [Slot(t + " ", a.strip(), "", max_tokens=1) for t in texts for a in answers]


def check_answers(backend: Any, answers: Sequence[str]) -> None:
    """Answers the model spells with one first token: refused (where the backend has a tokenizer to ask)."""
    tokenizer = getattr(backend, "tokenizer", None)
    if tokenizer is not None:
        answer_ids(tokenizer, answers, repr(getattr(backend, "name", "the model")))


def yes_probabilities(engine: Any, texts: Sequence[str], answers: Sequence[str] | None = None) -> np.ndarray:
    """P(Yes) / (P(Yes) + P(No)) of the next token after each text (causal) or at a mask appended to it
    (masked): the authors' two-way softmax (``engine``: an ``Engine``, or a backend to make one for)."""
    engine = as_engine(engine)
    kind = engine.require(REQUESTS, "CoDA21 --method ask")[0]
    answers = ANSWERS if answers is None else answers
    check_answers(engine.backend, answers)
    logps = engine(answer_requests(kind, texts, answers))
    pairs = np.array([float(lp[0]) for lp in logps]).reshape(len(texts), 2)
    return 1.0 / (1.0 + np.exp(pairs[:, 1] - pairs[:, 0]))


def ask_matrices(engine: Any, groups, nonce: str = "bkatuhla", answers: Sequence[str] | None = None,
                 which: Sequence[int] | None = None, hide: Hide = str.replace) -> list[np.ndarray]:
    """One (k, k, Q) array of P(Yes) per group: [context, definition, question]; ``which``: the
    questions asked (0-based; default all three)."""
    texts = [questions(g, nonce, _question_texts(g.pos, which), hide) for g in groups]
    flat = yes_probabilities(engine, [t for ts in texts for t in ts], answers)
    ends = np.cumsum([len(ts) for ts in texts])[:-1]
    return [m.reshape(g.k, g.k, -1) for g, m in zip(groups, np.split(flat, ends))]


def _question_texts(pos: str, which: Sequence[int] | None) -> tuple[str, ...]:
    return QUESTION_TEXTS[pos] if which is None else tuple(QUESTION_TEXTS[pos][i] for i in which)


def pattern_scores(matrix: np.ndarray) -> dict[str, np.ndarray]:
    """The k x k matrices the authors align: each question's and their mean ("Ensamble")."""
    out = {f"pattern_{i + 1}": matrix[:, :, i] for i in range(matrix.shape[2])}
    out["ensemble"] = matrix.mean(axis=2)
    return out


# --- the method --------------------------------------------------------------------------

def resolved(options) -> dict:
    """What ``config.ask`` records besides the options: the questions' text, answers, cut, aggregation."""
    which = [q - 1 for q in options.questions]
    return {"question_text": {pos: list(_question_texts(pos, which)) for pos in QUESTION_TEXTS},
            "answers": list(ANSWERS), "max_context_words": MAX_CONTEXT_WORDS, "aggregation": AGGREGATION}


class Ask(Method):
    """``--method ask``: every group's P(Yes) matrix (mean over the chosen questions), aligned; groups are
    resume units."""

    name = "ask"
    requests = REQUESTS
    presentation = Presentation(tables=ask_tables, format_result=format_ask)

    def check_backend(self, engine: Any, config: Any, what: str) -> None:
        """The request types, then answers the model cannot tell apart: refused before any work."""
        super().check_backend(engine, config, what)
        check_answers(engine.backend, ANSWERS)

    def run(self, job) -> Records | None:
        config, engine = job.config, job.engine
        kind = engine.require(self.requests, "coda21 --method ask")[0]
        which, answers = [q - 1 for q in config.ask.questions], ANSWERS
        hide = partial(hide_target, recipe=config.recipe)

        def uncuttable(g) -> str | None:
            try:
                questions(g, config.nonce, _question_texts(g.pos, which[:1]), hide)
            except ValueError:
                return (f"has a context over {MAX_CONTEXT_WORDS} words without the nonce as a word of its own, so "
                        "it cannot be cut around it (the authors' run raised here, evaluator.py:30)")
            return None

        groups, problems = runnable_groups(job.items, config)
        why = {g.id: uncuttable(g) for g in groups}
        problems += [GroupProblem(g.id, reason) for g in groups if (reason := why[g.id])]
        runnable = [g for g in groups if not why[g.id]]
        truncated = sum(len(hide(c.context, c.word, config.nonce).split(" ")) > MAX_CONTEXT_WORDS
                        for g in runnable for c in g.candidates)

        def compute(indices: list[int]) -> list[dict]:
            chunk = [runnable[i] for i in indices]
            requests = [answer_requests(kind, questions(g, config.nonce, _question_texts(g.pos, which), hide),
                                        answers) for g in chunk]
            return chunk_records(chunk, fits_by_group(chunk, requests, engine, whole=True),
                                 lambda fitting: ask_matrices(engine, fitting, config.nonce, answers, which, hide)
                                 if fitting else [], record, "(skipped)")

        def record(g, m: np.ndarray, _cut: int) -> dict:
            out = group_record(g, m.mean(axis=2), config)
            if len(which) > 1:  # each question aligned on its own too (the authors' per-question rows)
                out["per_question"] = [
                    {"question": q + 1, "accuracy": one["accuracy"], "simple_accuracy": one["simple_accuracy"]}
                    for q, one in zip(which, (group_record(g, m[:, :, j], config) for j in range(len(which))))]
            return out

        records = run_groups(job, engine, runnable, compute, config.groups_per_chunk or 16)
        if records is None:  # another rank than 0: rank 0 writes the result
            return None
        asked = [g for g, r in zip(runnable, records) if "skipped" not in r]
        counts = {"truncated_contexts": truncated, "skipped_too_long": len(runnable) - len(asked),
                  "questions_asked": len(which) * sum(g.k * g.k for g in asked)}
        return group_records(records, problems, runnable, counts, resolved={"ask": resolved(config.ask)})
