"""CoDA21 by asking: P(Yes) to "Is <nonce> defined as <definition>?" for every context-definition pair.

The authors' third way of asking, released in definition_benchmark @54fa97b but in no
paper table (``CoDA/LM_evaluation/evaluate_by_asking/evaluator.py``, ``evaluate.py``,
``print_results.py``; CoDA-clean-easy nouns only, ``CoDA/results/results_for_asking/``:
gpt2-xl 0.151, roberta-large 0.161, bert-base-uncased 0.140 against 0.145 by chance).
For every context c and definition d of a group and each of three questions
(``evaluator.py:66-73``), the model reads

    "<context with the target replaced by the nonce> Is <nonce> defined as  <definition>?"

(two spaces: the definition is ``" " + definition``, ``:44-45``, put after a pattern
that already has one) and the match score is the probability of " Yes" against
" No": the softmax over just those two next-token logits (``:77,153-154``), i.e.
sigmoid(log P(Yes) - log P(No)). A causal LM predicts after the "?"; a masked LM
fills a mask appended after it (``" " + mask_token``, ``:120-121``). Contexts longer
than 72 words are cut to 72 whitespace words around the nonce (``:24-39``). The k x k
x 3 probabilities are aligned per question and for their mean ("Ensamble",
``evaluate.py:146-155``) with the enumeration (first best permutation); the released
table reports the first question (``print_results.py:41``).

``ask_matrices`` builds those matrices with lexprobe's scorers (one forward pass per
distinct input; the Yes and No scores of an input share it). ``--method ask``
(``run_ask``) asks the questions of ``--questions`` (default 1, the released table's),
averages their P(Yes) per pair (all three: the authors' "Ensamble") and aligns that
matrix as the likelihood method aligns its scores (``--align``, the recipe's tie rule):
the objective is the sum of P(Yes), the authors' — not a sum of log-probabilities. The
recipe also hides the target: ``paper`` as a whole word, ``authors`` with
``str.replace`` (``evaluator.py:22``). Contexts cut to 72 words are counted
(``truncated_contexts``); a group whose long context has no word equal to the nonce
(the authors' run raised there) is skipped.

W2D and D2W fit the same question without a context ("Is <word> defined as
<definition>?", candidates ranked by P(Yes)); the authors never asked WDLMPro this
way, so it is not offered: ``yes_probabilities`` is the shared core if it is wanted.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from lexprobe.benchmarks.base import Records
from lexprobe.scorers.capabilities import SlotLogprobs, Tokenized, TokenLogprobs, strategy
from lexprobe.scorers.masked import SlotRequest

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


def _replace(context: str, target: str, nonce: str) -> str:
    return context.replace(target, nonce)


def cut_context(context: str, target: str, nonce: str, max_words: int = MAX_CONTEXT_WORDS,
                hide: Hide = _replace) -> str:
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
              hide: Hide = _replace) -> list[str]:
    """The k * k * Q questions of a group (Q: ``texts``, default all three), contexts outer, definitions, then
    questions inner (``_create_batch``, evaluator.py:109-126)."""
    texts = QUESTION_TEXTS[group.pos] if texts is None else texts
    contexts = [cut_context(c.context, c.word, nonce, hide=hide) for c in group.candidates]
    out = []
    for context in contexts:
        for c in group.candidates:
            for text in texts:
                out.append(text.replace("<CONTEXT>", context).replace("<NONCE>", nonce)
                           .replace("<DEFINITION>", " " + c.definition))
    return out


def answer_ids(tokenizer, answers: Sequence[str] = ANSWERS, model: str = "the model") -> tuple[int, int]:
    """The first token of " Yes" and of " No".

    The authors read only these two tokens (evaluator.py:77). Where a tokenizer spells both answers
    with the same first token (a byte-level vocabulary without " Yes"/" No": "Ġ" then the letters),
    their P(Yes) is 0.5 for every pair and every alignment a tie-break, so the method is refused in
    one line rather than reported; scoring the whole answers instead would be another recipe.
    """
    from lexprobe.errors import ModelError

    yes, no = (tokenizer.encode(a, add_special_tokens=False)[0] for a in answers)
    if yes == no:
        raise ModelError(f"the tokenizer of {model} spells {answers[0]!r} and {answers[1]!r} with the same first token "
                         f"({tokenizer.convert_ids_to_tokens(yes)!r}), so the authors' P(Yes) (the two-way softmax over "
                         "the answers' first tokens, evaluator.py:77) is 0.5 for every pair and the accuracy a "
                         "tie-break: --method ask cannot score this model; use --method likelihood or choose")
    return yes, no


def _causal_pairs(scorer: Any, texts: Sequence[str], yes: int, no: int) -> list:
    tok = scorer.tokenizer
    ids = [tuple(tok(t, add_special_tokens=True)["input_ids"]) for t in texts]
    return scorer.token_logprobs([(c, (a,)) for c in ids for a in (yes, no)])


def _masked_pairs(scorer: Any, texts: Sequence[str], yes: int, no: int) -> list:
    tok = scorer.tokenizer
    requests = []
    for t in texts:
        enc = list(tok(f"{t} {tok.mask_token}", add_special_tokens=True)["input_ids"])
        at = len(enc) - 1 - enc[::-1].index(tok.mask_token_id)  # the appended mask
        requests += [SlotRequest(tuple(enc[:at]), (a,), tuple(enc[at + 1:])) for a in (yes, no)]
    return scorer.slot_logprobs(requests)


#: where the answer is read, by the first capability a scorer offers: after the text, or at an appended mask
STRATEGIES = {TokenLogprobs: _causal_pairs, SlotLogprobs: _masked_pairs}


def too_long(scorer: Any, texts: Sequence[str]) -> str | None:
    """Why some question does not fit the model's input positions (None: they all do).

    The authors cut contexts to 72 words so that every question fits a 512-token model; a
    model with fewer positions cannot take such a question whole, and cutting its start would
    cut the context or the question itself, so the caller skips the group (and counts it).
    Causal: the question and the answer token; masked: the question and its appended mask.
    """
    from lexprobe.scorers.base import max_input_length

    if not isinstance(scorer, Tokenized):
        return None
    tok = scorer.tokenizer
    if isinstance(scorer, TokenLogprobs):
        limit, lengths = scorer.max_length, [len(tok(t)["input_ids"]) + 1 for t in texts]
    else:
        limit = max_input_length(scorer)
        lengths = [len(tok(f"{t} {tok.mask_token}", add_special_tokens=True)["input_ids"]) for t in texts]
    longest = max(lengths, default=0)
    if limit and longest > limit:
        return f"a question of {longest} tokens does not fit the model's {limit} input positions"
    return None


def yes_probabilities(scorer: Any, texts: Sequence[str], answers: Sequence[str] = ANSWERS) -> np.ndarray:
    """P(Yes) / (P(Yes) + P(No)) of the next token after each text (causal) or at a mask
    appended to it (masked): the authors' two-way softmax."""
    pairs_of = strategy(STRATEGIES, scorer, "CoDA21 --method ask")
    yes, no = answer_ids(scorer.tokenizer, answers, repr(getattr(scorer, "name", "the model")))
    logps = pairs_of(scorer, texts, yes, no)
    pairs = np.array([float(lp[0]) for lp in logps]).reshape(len(texts), 2)
    return 1.0 / (1.0 + np.exp(pairs[:, 1] - pairs[:, 0]))


def ask_matrices(scorer: Any, groups, nonce: str = "bkatuhla", answers: Sequence[str] = ANSWERS,
                 which: Sequence[int] | None = None, hide: Hide = _replace) -> list[np.ndarray]:
    """One (k, k, Q) array of P(Yes) per group: [context, definition, question]; ``which``: the
    questions asked (0-based; default all three)."""
    texts = [questions(g, nonce, _question_texts(g.pos, which), hide) for g in groups]
    flat = yes_probabilities(scorer, [t for ts in texts for t in ts], answers)
    out, at = [], 0
    for g, ts in zip(groups, texts):
        out.append(flat[at:at + len(ts)].reshape(g.k, g.k, -1))
        at += len(ts)
    return out


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


def run_ask(job) -> Records | None:
    """``--method ask``: every group's P(Yes) matrix (mean over the chosen questions), aligned; groups are
    resume units (under ``torchrun`` split across ranks by token count)."""
    from lexprobe.benchmarks.coda21.dataset import GroupProblem
    from lexprobe.benchmarks.coda21.likelihood import (
        group_record,
        group_records,
        hide_target,
        run_groups,
        runnable_groups,
        skip_record,
        split_skipped,
    )

    data, scorer, config = job.items, job.scorer, job.config
    which = [q - 1 for q in config.ask.questions]
    strategy(STRATEGIES, scorer, "CoDA21 --method ask")  # a model without the capability: one line
    answers = ANSWERS
    answer_ids(scorer.tokenizer, answers, repr(scorer.name))  # answers it cannot tell apart: refused before any work

    def hide(text: str, target: str, nonce: str) -> str:
        return hide_target(text, target, nonce, config.recipe)

    groups, problems = runnable_groups(data, config)
    runnable, truncated = [], 0
    for g in groups:
        try:
            questions(g, config.nonce, _question_texts(g.pos, which[:1]), hide)
        except ValueError:
            problems.append(GroupProblem(g.id, f"has a context over {MAX_CONTEXT_WORDS} words without the nonce as "
                                               "a word of its own, so it cannot be cut around it (the authors' run "
                                               "raised here, evaluator.py:30)"))
            continue
        runnable.append(g)
        truncated += sum(len(hide(c.context, c.word, config.nonce).split(" ")) > MAX_CONTEXT_WORDS
                         for c in g.candidates)

    def compute(indices: list[int]) -> list[dict]:
        chunk = [runnable[i] for i in indices]
        why = {g.id: too_long(scorer, questions(g, config.nonce, _question_texts(g.pos, which), hide)) for g in chunk}
        fitting = [g for g in chunk if why[g.id] is None]
        matrices = dict(zip([g.id for g in fitting], ask_matrices(scorer, fitting, config.nonce, answers, which=which,
                                                                   hide=hide) if fitting else []))
        records = []
        for g in chunk:
            if why[g.id] is not None:
                records.append(skip_record(g, f"{why[g.id]} (skipped)"))
                continue
            m = matrices[g.id]
            record = group_record(g, m.mean(axis=2), config)
            if len(which) > 1:  # each question aligned on its own too (the authors' per-question rows)
                record["per_question"] = [
                    {"question": q + 1, "accuracy": one["accuracy"], "simple_accuracy": one["simple_accuracy"]}
                    for q, one in zip(which, (group_record(g, m[:, :, j], config) for j in range(len(which))))]
            records.append(record)
        return records

    records = run_groups(job, runnable, compute, config.groups_per_chunk or 16, "CoDA21 groups (ask)")
    if records is None:  # another rank than 0: rank 0 writes the result
        return None
    records, skipped = split_skipped(records)
    asked = [g for g in runnable if g.id not in {p.group_id for p in skipped}]
    counts = {"truncated_contexts": truncated, "skipped_too_long": len(skipped),
              "questions_asked": len(which) * sum(g.k * g.k for g in asked)}
    return group_records(records, problems + skipped, runnable, counts, resolved={"ask": resolved(config.ask)})
