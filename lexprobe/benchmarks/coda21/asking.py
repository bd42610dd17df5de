"""CoDA21 by asking: P(Yes) to "Is <nonce> defined as <definition>?" for every context-definition pair.

The authors' third protocol, released in definition_benchmark @54fa97b but in no
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
distinct input; the Yes and No scores of an input share it). It is not a CLI method
yet: it becomes ``--method ask`` with the benchmark contract (issue 16).

W2D and D2W fit the same question without a context ("Is <word> defined as
<definition>?", candidates ranked by P(Yes)); the authors never asked WDLMPro this
way, so it is not offered: ``yes_probabilities`` is the shared core if it is wanted.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from lexprobe.scorers.masked import SlotRequest

#: evaluator.py:66-73, verbatim (the second verb question lacks "be" there too)
PATTERNS = {
    "n": ("<CONTEXT> Is <NONCE> defined as <DEFINITION>?",
          "<CONTEXT> Can <NONCE> be defined as <DEFINITION>?",
          "<CONTEXT> Is <NONCE> <DEFINITION>?"),
    "v": ("<CONTEXT> Is <NONCE> defined as to <DEFINITION>?",
          "<CONTEXT> Can <NONCE> defined as to <DEFINITION>?",
          "<CONTEXT> Is <NONCE> to <DEFINITION>?"),
}
ANSWERS = (" Yes", " No")  # evaluator.py:77: the first token of each
MAX_CONTEXT_WORDS = 72  # evaluator.py:83
REPORTED_PATTERN = 0  # print_results.py:41: result[0], the first question


def cut_context(context: str, target: str, nonce: str, max_words: int = MAX_CONTEXT_WORDS) -> str:
    """``SG_ops.get_first_contexts`` (evaluator.py:13-42): replace, then keep at most ``max_words``
    space-separated words around the nonce. Raises ValueError where theirs did (no word equals
    the nonce in a context that needs cutting)."""
    context = context.replace(target, nonce)
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


def questions(group, nonce: str = "bkatuhla", patterns: Sequence[str] | None = None) -> list[str]:
    """The k * k * P questions of a group, contexts outer, definitions, then patterns inner
    (``_create_batch``, evaluator.py:109-126)."""
    patterns = PATTERNS[group.pos] if patterns is None else patterns
    contexts = [cut_context(c.context, c.word, nonce) for c in group.candidates]
    out = []
    for context in contexts:
        for c in group.candidates:
            for pattern in patterns:
                out.append(pattern.replace("<CONTEXT>", context).replace("<NONCE>", nonce)
                           .replace("<DEFINITION>", " " + c.definition))
    return out


def answer_ids(tokenizer, answers: Sequence[str] = ANSWERS) -> tuple[int, int]:
    """The first token of " Yes" and of " No"."""
    yes, no = (tokenizer.encode(a, add_special_tokens=False)[0] for a in answers)
    return yes, no


def yes_probabilities(scorer: Any, texts: Sequence[str], answers: Sequence[str] = ANSWERS) -> np.ndarray:
    """P(Yes) / (P(Yes) + P(No)) of the next token after each text (causal) or at a mask
    appended to it (masked): the authors' two-way softmax."""
    if scorer.kind not in ("causal", "masked"):
        raise ValueError(f"asking needs a causal or masked LM, not a {scorer.kind} model")
    tok = scorer.tokenizer
    yes, no = answer_ids(tok, answers)
    if scorer.kind == "causal":
        ids = [tuple(tok(t, add_special_tokens=True)["input_ids"]) for t in texts]
        logps = scorer.token_logprobs([(c, (a,)) for c in ids for a in (yes, no)])
    else:
        requests = []
        for t in texts:
            enc = list(tok(f"{t} {tok.mask_token}", add_special_tokens=True)["input_ids"])
            at = len(enc) - 1 - enc[::-1].index(tok.mask_token_id)  # the appended mask
            requests += [SlotRequest(tuple(enc[:at]), (a,), tuple(enc[at + 1:])) for a in (yes, no)]
        logps = scorer.slot_logprobs(requests)
    pairs = np.array([float(lp[0]) for lp in logps]).reshape(len(texts), 2)
    return 1.0 / (1.0 + np.exp(pairs[:, 1] - pairs[:, 0]))


def ask_matrices(scorer: Any, groups, nonce: str = "bkatuhla", answers: Sequence[str] = ANSWERS) -> list[np.ndarray]:
    """One (k, k, 3) array of P(Yes) per group: [context, definition, question]."""
    texts = [questions(g, nonce) for g in groups]
    flat = yes_probabilities(scorer, [t for ts in texts for t in ts], answers)
    out, at = [], 0
    for g, ts in zip(groups, texts):
        out.append(flat[at:at + len(ts)].reshape(g.k, g.k, -1))
        at += len(ts)
    return out


def pattern_scores(matrix: np.ndarray) -> dict[str, np.ndarray]:
    """The k x k matrices the authors align: each question's and their mean ("Ensamble")."""
    out = {f"pattern_{i + 1}": matrix[:, :, i] for i in range(matrix.shape[2])}
    out["ensemble"] = matrix.mean(axis=2)
    return out
