"""The three WSD baselines every result carries: random (exact expectation), WordNet first sense, most frequent sense.

Why pure and here (layer 0): a baseline is a rule over each instance's candidate sense keys (WordNet order,
``data/wsd_senses.py``) and, for the most frequent sense, counts of sense keys in a tagged corpus
(``data/wsd_senses.semcor_sense_counts``); nothing here reads a file, so the rules are tested on
hand-made candidates and reused by any benchmark.

* **random** — choosing one candidate uniformly at random. Its expected credit on an instance is
  ``|gold ∩ candidates| / |candidates|`` (the chance of drawing a gold key; several gold keys count each),
  computed exactly, not sampled. It answers every instance that has candidates, so its expected P, R and
  F1 are the expected correct count over those instances, over all instances, and their harmonic mean
  (the F1 of the expectations, which is how the framework's figures are formed from counts).
* **WordNet first sense** — the first candidate (WordNet orders a lemma's senses by their tagged
  frequency, sense number 1 first).
* **most frequent sense** — the candidate whose key is counted most often; ties go to the one WordNet
  lists first, and an instance none of whose keys is counted (a lemma the corpus never tags with this
  part of speech) falls back to the WordNet first sense. ``most_frequent_answers`` says which rule
  answered each instance.
"""

from __future__ import annotations

from collections import Counter
from typing import Collection, Mapping, Sequence

from lexprobe.metrics.wsd import Answers, Score

Candidates = Mapping[str, Sequence[str]]  # instance id -> candidate sense keys in WordNet order

#: how ``most_frequent_answers`` chose an instance's answer
COUNTED, TIE, UNSEEN = "counted", "tie broken by WordNet order", "unseen: WordNet first sense"


def random_expected(gold: Answers, candidates: Candidates) -> Score:
    """The exact expected ``Score`` of a uniform random choice among each instance's candidates.

    Instances of ``gold`` without candidates stay unanswered (they count in R, not in P).
    """
    answered = [instance for instance in gold if candidates.get(instance)]
    correct = sum((random_credit(gold[i], candidates[i]) for i in answered), 0.0)
    return Score(correct, len(answered), len(gold))


def random_credit(gold_keys: Collection[str], candidate_keys: Sequence[str]) -> float:
    """One instance's expected credit under a uniform random choice (0 without candidates)."""
    cands = list(dict.fromkeys(candidate_keys))
    return len(set(gold_keys) & set(cands)) / len(cands) if cands else 0.0


def first_sense_answers(candidates: Candidates) -> dict[str, tuple[str]]:
    """Each instance's first candidate (WordNet's sense 1); instances without candidates get no answer."""
    return {instance: (keys[0],) for instance, keys in candidates.items() if keys}


def most_frequent_answers(candidates: Candidates, counts: Mapping[str, int]
                          ) -> tuple[dict[str, tuple[str]], dict[str, str]]:
    """Each instance's most counted candidate, and how it was chosen (``COUNTED``, ``TIE``, ``UNSEEN``).

    ``counts``: sense key -> how often a corpus tags it (missing keys count 0).
    """
    answers: dict[str, tuple[str]] = {}
    how: dict[str, str] = {}
    for instance, keys in candidates.items():
        if not keys:
            continue
        tally = [counts.get(k, 0) for k in keys]
        best = max(tally)
        if best == 0:
            answers[instance], how[instance] = (keys[0],), UNSEEN
            continue
        answers[instance] = (keys[tally.index(best)],)  # the first of the tied ones in WordNet order
        how[instance] = TIE if tally.count(best) > 1 else COUNTED
    return answers, how


def rule_counts(how: Mapping[str, str]) -> dict[str, int]:
    """How many instances each rule of ``most_frequent_answers`` answered."""
    tally = Counter(how.values())
    return {rule: tally.get(rule, 0) for rule in (COUNTED, TIE, UNSEEN)}
