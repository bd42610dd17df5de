"""All-words WSD scoring as the unified framework's ``Scorer.java`` does it, its key files, and breakdowns.

Why here (layer 0, pure): the scorer is the definition every WSD figure rests on (a model's, and each
baseline's), so it is one small function over plain mappings — instance id -> sense keys — that knows
nothing of files, WordNet or models; readers (``data/wsd.py``) and benchmarks feed it.

The framework's scorer (Raganato, Camacho-Collados & Navigli, EACL 2017; ``Scorer.java``, a modification
of the SemEval-2015 task 13 scorer), for gold ``G`` (id -> set of keys) and answers ``A`` (id -> set of keys):

* an answered instance of the gold earns ``|A(i) ∩ G(i)| / |A(i)|``: an answer of several keys counts
  fractionally, and any one of several gold keys is right (``credit``);
* ``correct`` is the sum of those credits and ``answered`` the number of answered gold instances
  (each contributes exactly 1 to ``ok + notok`` in the Java code);
* P = correct / answered, R = correct / |G|, F1 = 2PR / (P + R), 0 when P + R = 0;
* answers for ids that are not in the gold are ignored (counted here as ``ignored``); a key given twice
  in one answer counts once (Java keeps the keys in a ``HashSet``).

One deliberate difference: with no answer at all ``Scorer.java`` divides 0 by 0 and prints ``NaN`` for P
and F1; here P = R = F1 = 0 (``Score.precision``), so a table never holds a NaN.

Key files: one line per answered instance, ``<instance id> <sense key> [<sense key> ...]``, fields
separated by single spaces (the Java reader splits on ``" "``); ``parse_key_lines`` is strict where the
Java reader is silent (a line without a key, a tab, an id twice, a field that is not a sense key, a byte-order
mark: one ``DataError`` naming the source and the line), and ``format_key_lines`` writes what it reads.

Systems' answer files (``parse_answer_lines``) come as published: fields separated by tabs or spaces (the
released answers of Maru et al. 2022 are both), read strictly (one ``DataError`` naming the file and line) or,
for a pinned release whose own lines are at fault, with each faulty line skipped and counted by its fault.

Macro F1 (``macro_f1``) is the mean over gold sense keys of each key's F1, as the release of Maru, Conia,
Bevilacqua & Navigli (ACL 2022, "Nibbling at the Hard Core of WSD") defines it in its
``evaluation/evaluate_macro_F1.py`` (lines 23-84 at commit 74ff055).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Collection, Iterable, Mapping, Sequence

from lexprobe.errors import DataError

#: a WordNet sense key: ``lemma%ss_type:lex_filenum:lex_id:head_word:head_id`` (head parts only for satellites)
SENSE_KEY = re.compile(r"[^\s%]+%[1-5]:\d\d:\d\d:[^\s:]*:[^\s:]*")

Answers = Mapping[str, Collection[str]]


@dataclass(frozen=True)
class Score:
    """The framework's figures for one set of instances."""

    correct: float  # the summed credits of the answered instances
    answered: int  # gold instances with an answer
    total: int  # gold instances
    ignored: int = 0  # answers for ids that are not in the gold

    @property
    def precision(self) -> float:
        return self.correct / self.answered if self.answered else 0.0

    @property
    def recall(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1, "correct": self.correct,
                "answered": self.answered, "total": self.total, "ignored": self.ignored}


def credit(gold: Collection[str], answer: Collection[str]) -> float | None:
    """What one instance earns: the share of the answer's (distinct) keys that are gold; None when unanswered."""
    if isinstance(answer, str) or isinstance(gold, str):  # a bare key would be read as a set of characters
        raise TypeError(f"keys must be given as a collection of sense keys, not the string {answer!r}")
    keys = set(answer)
    if not keys:
        return None
    return len(keys & set(gold)) / len(keys)


def score(gold: Answers, answers: Answers) -> Score:
    """P, R and F1 of ``answers`` against ``gold`` (both id -> keys), as ``Scorer.java`` computes them."""
    correct, answered = 0.0, 0
    for instance, keys in gold.items():
        got = credit(keys, answers.get(instance, ()))
        if got is not None:
            correct += got
            answered += 1
    ignored = sum(1 for instance, keys in answers.items() if instance not in gold and keys)
    return Score(correct, answered, len(gold), ignored)


def score_groups(gold: Answers, answers: Answers, group_of: Callable[[str], str] | Mapping[str, str],
                 order: Sequence[str] = ()) -> dict[str, Score]:
    """One ``Score`` per group of gold instances (a set, a part of speech, a bucket): ``group_of(id)``.

    Groups come in ``order`` first (those with instances), then in the order they first appear in ``gold``.
    Answers outside the gold are ignored (as by ``score``); ``ignored`` is 0 per group.
    """
    label = group_of.__getitem__ if isinstance(group_of, Mapping) else group_of
    members: dict[str, dict[str, Collection[str]]] = {}
    for instance, keys in gold.items():
        members.setdefault(label(instance), {})[instance] = keys
    ordered = [g for g in order if g in members] + [g for g in members if g not in order]
    return {g: _without_ignored(score(members[g], answers)) for g in ordered}


def _without_ignored(s: Score) -> Score:
    return Score(s.correct, s.answered, s.total)


# --- breakdowns --------------------------------------------------------------------------------

#: the polysemy buckets of ``sense_bucket``: inclusive (low, high) numbers of senses, None = no upper bound
SENSE_BUCKETS: tuple[tuple[int, int | None], ...] = ((1, 1), (2, 3), (4, 6), (7, 10), (11, 20), (21, None))


def bucket_label(low: int, high: int | None) -> str:
    if high is None:
        return f"{low}+"
    return str(low) if low == high else f"{low}-{high}"


def sense_bucket(n_senses: int, buckets: Sequence[tuple[int, int | None]] = SENSE_BUCKETS) -> str:
    """The label of the bucket holding ``n_senses`` ("1", "2-3", ..., "21+"); ValueError outside every bucket."""
    for low, high in buckets:
        if n_senses >= low and (high is None or n_senses <= high):
            return bucket_label(low, high)
    raise ValueError(f"{n_senses} senses fall in no bucket of {list(buckets)}")


def by_sense_count(gold: Answers, answers: Answers, n_senses: Mapping[str, int],
                   buckets: Sequence[tuple[int, int | None]] = SENSE_BUCKETS) -> dict[str, Score]:
    """Scores by the number of candidate senses of each instance, buckets in increasing order."""
    order = [bucket_label(low, high) for low, high in buckets]
    return score_groups(gold, answers, lambda i: sense_bucket(n_senses[i], buckets), order)


#: the two groups of ``by_first_sense``
MFS, LFS = "MFS", "LFS"


def first_sense_group(gold_keys: Collection[str], first_key: str) -> str:
    """``MFS`` when the instance's gold holds the WordNet first sense, else ``LFS`` (a less frequent sense)."""
    return MFS if first_key in set(gold_keys) else LFS


def by_first_sense(gold: Answers, answers: Answers, first_key: Mapping[str, str]) -> dict[str, Score]:
    """Scores on the instances whose gold is the first (most frequent) WordNet sense and on the others."""
    return score_groups(gold, answers, lambda i: first_sense_group(gold[i], first_key[i]), (MFS, LFS))


# --- key files ---------------------------------------------------------------------------------

def parse_key_lines(lines: Iterable[str], source: str) -> dict[str, tuple[str, ...]]:
    """A key file's lines as id -> keys (file order, a repeated key once); one ``DataError`` per problem.

    ``source`` names the file in messages (``<source>:<line>: ...``). Blank lines are skipped, trailing
    spaces and a carriage return ignored (the Java reader drops them too).
    """
    out: dict[str, tuple[str, ...]] = {}
    first_line: dict[str, int] = {}
    for number, raw in enumerate(lines, 1):
        if number == 1 and raw.startswith("\ufeff"):
            raise DataError(f"{source}:1: the file begins with a UTF-8 byte-order mark (BOM), which would become "
                            "part of the first instance id; save it as UTF-8 without a BOM")
        line = raw.rstrip("\r\n").rstrip(" ")
        if not line.strip():
            continue
        where = f"{source}:{number}"
        if "\t" in line or line != line.lstrip():
            raise DataError(f"{where}: fields must be separated by single spaces (`<instance id> <sense key> ...`), "
                            f"not tabs or leading spaces: {_shown(line)}")
        fields = line.split(" ")
        if "" in fields:
            raise DataError(f"{where}: two spaces in a row; separate fields by single spaces: {_shown(line)}")
        if len(fields) < 2:
            raise DataError(f"{where}: instance {_shown(fields[0])} has no sense key; a line is "
                            "`<instance id> <sense key> [<sense key> ...]`")
        instance, keys = fields[0], fields[1:]
        bad = next((k for k in keys if not SENSE_KEY.fullmatch(k)), None)
        if bad is not None:
            raise DataError(f"{where}: {_shown(bad)} is not a WordNet sense key (lemma%1:09:00::); a line is "
                            "`<instance id> <sense key> [<sense key> ...]`")
        if instance in out:
            raise DataError(f"{where}: instance {_shown(instance)} is given twice (first on line "
                            f"{first_line[instance]}); give each instance one line")
        out[instance] = tuple(dict.fromkeys(keys))
        first_line[instance] = number
    return out


#: the faults of an answer file's line (``parse_answer_lines``), by the name ``AnswerFaults`` counts them under
WITHOUT_KEY, TWICE, NOT_A_KEY, OUTSIDE = "without_key", "twice", "not_a_sense_key", "outside_the_set"


@dataclass
class AnswerFaults:
    """The lines of an answer file skipped, by fault (``parse_answer_lines`` with ``strict=False``): what a
    result says was left out of a system's answers, never a silent gap."""

    lines: int = 0  #: non-blank lines read
    without_key: int = 0  #: an id and no sense key
    twice: int = 0  #: an id given again (the first line kept)
    not_a_sense_key: int = 0  #: a field that is not a WordNet sense key
    outside_the_set: int = 0  #: an id that is not an instance of the set

    def as_dict(self) -> dict[str, int]:
        return {"lines": self.lines, WITHOUT_KEY: self.without_key, TWICE: self.twice, NOT_A_KEY: self.not_a_sense_key,
                OUTSIDE: self.outside_the_set}


def parse_answer_lines(lines: Iterable[str], source: str, known: Collection[str] | None = None,
                       strict: bool = True) -> tuple[dict[str, tuple[str, ...]], AnswerFaults]:
    """A system's answer file as id -> keys: ``<instance id><tab or spaces><sense key> [...]`` per line (blank lines
    and a trailing carriage return ignored). ``known``: the set's instance ids (None: any id). ``strict``: a line
    without a key, an id twice, a field that is not a sense key or an id not in ``known`` is one ``DataError``
    naming ``source:line``; otherwise each such line is skipped and counted (``AnswerFaults``)."""
    out: dict[str, tuple[str, ...]] = {}
    first_line: dict[str, int] = {}
    faults = AnswerFaults()
    fix = "a line is `<instance id> <sense key> [<sense key> ...]`, separated by a tab or spaces"
    for number, raw in enumerate(lines, 1):
        if number == 1 and raw.startswith("\ufeff"):
            raise DataError(f"{source}:1: the file begins with a UTF-8 byte-order mark (BOM), which would become "
                            "part of the first instance id; save it as UTF-8 without a BOM")
        fields = raw.split()
        if not fields:
            continue
        faults.lines += 1
        where = f"{source}:{number}"
        instance, keys = fields[0], fields[1:]
        if not keys:
            fault, message = WITHOUT_KEY, f"instance {_shown(instance)} has no sense key; {fix}"
        elif any(not SENSE_KEY.fullmatch(k) for k in keys):
            bad = next(k for k in keys if not SENSE_KEY.fullmatch(k))
            fault, message = NOT_A_KEY, f"{_shown(bad)} is not a WordNet sense key (lemma%1:09:00::); {fix}"
        elif instance in out:
            fault, message = TWICE, (f"instance {_shown(instance)} is given twice (first on line "
                                     f"{first_line[instance]}); give each instance one line")
        elif known is not None and instance not in known:
            fault, message = OUTSIDE, (f"instance {_shown(instance)} is not an instance of the set evaluated; give "
                                       "the answers of this set")
        else:
            out[instance] = tuple(dict.fromkeys(keys))
            first_line[instance] = number
            continue
        if strict:
            raise DataError(f"{where}: {message}")
        setattr(faults, fault, getattr(faults, fault) + 1)
    return out, faults


def macro_f1(gold: Answers, answers: Answers) -> float | None:
    """The release's macro F1 of ``answers`` on ``gold`` (both id -> keys; only ``gold``'s instances count), as
    ``evaluate_macro_F1.py`` computes it without ``--strict`` (lines 23-59): an instance answered with k distinct
    keys has tp = 1/k when one of them is gold and fp = 1/k when one of them is not (both, for a partly right
    answer); every answer key gets its fp, every gold key its tp, and fn = 1/k when tp is 0 (an unanswered
    instance: k = 1, fn = 1). Then per gold key P = tp / (tp + fp), R = tp / (tp + fn), F1 = 2PR / (P + R), and
    the figure is their mean over the gold keys (lines 61-84). None when ``gold`` is empty (the script divides by
    zero there)."""
    from collections import defaultdict

    tp: dict[str, float] = defaultdict(float)
    fp: dict[str, float] = defaultdict(float)
    fn: dict[str, float] = defaultdict(float)
    keys: set[str] = set()
    for instance, gold_keys in gold.items():
        given, wanted = set(answers.get(instance, ())), set(gold_keys)
        k = len(given) or 1
        hit = 1 / k if given & wanted else 0.0
        miss = 1 / k if given - wanted else 0.0
        for key in given:
            fp[key] += miss
        for key in wanted:
            keys.add(key)
            tp[key] += hit
            if hit == 0.0:
                fn[key] += 1 / k
    total, summed = 0, 0.0
    for key in keys:
        t, f, n = tp.get(key, 0.0), fp.get(key, 0.0), fn.get(key, 0.0)
        if t == 0 and f == 0 and n == 0:
            continue
        p = t / (t + f) if t + f else 0.0
        r = t / (t + n) if t + n else 0.0
        summed += 2 * p * r / (p + r) if p + r else 0.0
        total += 1
    return summed / total if total else None


def format_key_lines(answers: Answers) -> str:
    """The key file of ``answers`` (id -> keys, in their order); unanswered instances get no line."""
    lines = []
    for instance, given in answers.items():
        if isinstance(given, str):
            raise TypeError(f"the keys of {instance!r} must be a collection of sense keys, not the string {given!r}")
        keys = list(dict.fromkeys(given))
        if not keys:
            continue
        for field in (instance, *keys):
            if not field or any(c.isspace() for c in field):
                raise ValueError(f"{field!r} cannot be written in a key file (empty or holding whitespace)")
        lines.append(" ".join((instance, *keys)))
    return "".join(line + "\n" for line in lines)


def _shown(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")
