"""Two readings of generated answers, as lm-eval reports strict-match and flexible-extract.

**Strict**: the first non-empty line must be one label (``3``, ``(3)``, ``3.``, ``B)``) or, for matching
(CoDA21), ``1: A, 2: B, ...`` naming every context and definition once; what does not parse is wrong, never
repaired. Failures: ``unparseable``, ``out_of_range``, ``not_one_to_one``, ``incomplete``.

**Lenient** also reads an answer that names its option plainly and never guesses: a leading label with a
separator and optionally that option's own text (maybe cut short), or the exact text of exactly one option.
A letter label needs a bracket or punctuation after it (``A limitation`` is prose). A label whose text names
another option is ``names_other_option``; a text equal to several options is ``ambiguous``. Matching pairs
may also be ``1 = A``, ``1 -> A``, ``(1) [A]``, ``1. a``, one per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

FAILURES = ("unparseable", "out_of_range", "not_one_to_one", "incomplete")
LENIENT_FAILURES = FAILURES + ("names_other_option", "ambiguous")

_SINGLE = {
    "numbers": re.compile(r"^[(\[]?(\d+)[)\]]?\.?$"),
    "letters": re.compile(r"^[(\[]?([A-Z])[)\]]?\.?$"),
}
_PAIR = re.compile(r"^(\d+)\s*[:\-]\s*([A-Z])$")


@dataclass(frozen=True)
class Parsed:
    answer: object | None  # an option index (0-based), or a list: definition index per context
    failure: str | None  # one of FAILURES (LENIENT_FAILURES), or None when the answer is valid
    pairs: tuple = ()  # matching: the (context, definition) pairs read, also from an invalid answer

    @property
    def ok(self) -> bool:
        return self.failure is None


def answer_line(text: str) -> str | None:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return None


def label_index(label: str, style: str) -> int:
    return int(label) - 1 if style == "numbers" else ord(label) - ord("A")


def parse_choice(text: str, n: int, style: str = "numbers") -> Parsed:
    """One of n options labelled in ``style`` (numbers from 1, or capital letters from A)."""
    line = answer_line(text)
    m = _SINGLE[style].match(line) if line is not None else None
    if not m:
        return Parsed(None, "unparseable")
    index = label_index(m.group(1), style)
    if not 0 <= index < n:
        return Parsed(None, "out_of_range")
    return Parsed(index, None)


def parse_matching(text: str, k: int) -> Parsed:
    """Contexts 1..k each matched to one of definitions A..; returns definition index per context."""
    line = answer_line(text)
    if line is None:
        return Parsed(None, "unparseable")
    pairs = _line_pairs(line, _PAIR)
    return _assignment(pairs, k) if pairs is not None else Parsed(None, "unparseable")


def _line_pairs(line: str, pattern: re.Pattern) -> list[tuple[int, int]] | None:
    line = line[:-1] if line.endswith(".") else line
    pairs = []
    for piece in re.split(r"[,;]", line):
        m = pattern.match(piece.strip())
        if not m:
            return None
        pairs.append((int(m.group(1)) - 1, label_index(m.group(2).upper(), "letters")))
    return pairs


def _assignment(pairs: list[tuple[int, int]], k: int) -> Parsed:
    read = tuple(pairs)
    if any(not (0 <= c < k and 0 <= d < k) for c, d in pairs):
        return Parsed(None, "out_of_range", read)
    contexts = [c for c, _ in pairs]
    definitions = [d for _, d in pairs]
    if len(set(contexts)) < len(contexts) or len(set(definitions)) < len(definitions):
        return Parsed(None, "not_one_to_one", read)
    if len(pairs) < k:
        return Parsed(None, "incomplete", read)
    assignment = [0] * k
    for c, d in pairs:
        assignment[c] = d
    return Parsed(assignment, None, read)


# ---------------------------------------------------------------- the lenient reading

_LEADING = {"numbers": re.compile(r"^[(\[]?(\d+)([)\]]?)(.*)$"), "letters": re.compile(r"^[(\[]?([A-Z])([)\]]?)(.*)$")}
_SEPARATOR = re.compile(r"^\s*[.:;,)\-\u2013]+\s*(.*)$")
_PAIR_LENIENT = re.compile(r"^[(\[]?(\d+)[)\]]?\s*(?:->|=>|\u2192|[:=\-.)])\s*[(\[]?([A-Za-z])[)\]]?$")


def normalise(text: str) -> str:
    """An option text as compared: case-folded, spaces collapsed, outer quotes and final punctuation dropped."""
    text = " ".join(text.split()).casefold()
    text = text.strip("\"'`\u201c\u201d\u2018\u2019 ")
    return text.rstrip(".;,!").strip()


def parse_choice_lenient(text: str, options: Sequence[str], style: str = "numbers") -> Parsed:
    """One of ``options`` (in presented order): a leading label with nothing or its own text after it,
    or the exact text of exactly one option."""
    line = answer_line(text)
    if line is None:
        return Parsed(None, "unparseable")
    texts = [normalise(o) for o in options]
    said = normalise(line)
    same = [i for i, t in enumerate(texts) if t == said]
    if len(same) == 1:
        return Parsed(same[0], None)
    if len(same) > 1:
        return Parsed(None, "ambiguous")
    m = _LEADING[style].match(line)
    if not m:
        return Parsed(None, "unparseable")
    label, closed, rest = m.groups()
    if rest.strip():
        sep = _SEPARATOR.match(rest)
        if sep:
            rest = sep.group(1)
        elif rest[0].isspace() and (closed or style == "numbers"):
            rest = rest.strip()
        else:  # "10x", "Apple", "A limitation": not a label
            return Parsed(None, "unparseable")
    index = label_index(label, style)
    if not 0 <= index < len(options):
        return Parsed(None, "out_of_range")
    said = normalise(rest)
    if not said or said == texts[index]:
        return Parsed(index, None)
    if any(t == said for t in texts):
        return Parsed(None, "names_other_option")
    if texts[index].startswith(said):  # its own text, cut short (a generation stopped at its token limit)
        return Parsed(index, None)
    if any(t.startswith(said) for t in texts):
        return Parsed(None, "names_other_option")
    return Parsed(None, "unparseable")


def parse_matching_lenient(text: str, k: int) -> Parsed:
    """Like ``parse_matching``, with more pair forms, and pairs one per line until k are read."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    pairs: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        got = _line_pairs(line, _PAIR_LENIENT)
        if got is None:
            if i == 0:
                return Parsed(None, "unparseable")
            break
        pairs.extend(got)
        if len(pairs) >= k:
            break
    return _assignment(pairs, k) if pairs else Parsed(None, "unparseable")
