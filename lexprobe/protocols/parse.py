"""Strict reading of generated answers: what does not parse is wrong, never repaired.

The answer is the first non-empty line of the generated text (a base model goes on
to write the next question; that is ignored). Single choice: the line must be one
label, optionally in brackets or followed by a full stop (``3``, ``(3)``, ``3.``,
``B)``). Matching (CoDA21): the line must be ``1: A, 2: B, ...`` (``,`` or ``;``
between pairs, ``:`` or ``-`` inside a pair, an optional final full stop), naming
every context once and every definition once. Labels are case-sensitive (letters
are capitals). Failure modes, each counted: ``unparseable`` (no line, or a line of
another shape), ``out_of_range`` (a label-shaped answer naming no shown option),
``not_one_to_one`` (a context answered twice or a definition used twice) and
``incomplete`` (some context not answered).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FAILURES = ("unparseable", "out_of_range", "not_one_to_one", "incomplete")

_SINGLE = {
    "numbers": re.compile(r"^[(\[]?(\d+)[)\]]?\.?$"),
    "letters": re.compile(r"^[(\[]?([A-Z])[)\]]?\.?$"),
}
_PAIR = re.compile(r"^(\d+)\s*[:\-]\s*([A-Z])$")


@dataclass(frozen=True)
class Parsed:
    answer: object | None  # an option index (0-based), or a list: definition index per context
    failure: str | None  # one of FAILURES, or None when the answer is valid

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
    line = line[:-1] if line.endswith(".") else line
    pairs = []
    for piece in re.split(r"[,;]", line):
        m = _PAIR.match(piece.strip())
        if not m:
            return Parsed(None, "unparseable")
        pairs.append((int(m.group(1)) - 1, label_index(m.group(2), "letters")))
    if any(not (0 <= c < k and 0 <= d < k) for c, d in pairs):
        return Parsed(None, "out_of_range")
    contexts = [c for c, _ in pairs]
    definitions = [d for _, d in pairs]
    if len(set(contexts)) < len(contexts) or len(set(definitions)) < len(definitions):
        return Parsed(None, "not_one_to_one")
    if len(pairs) < k:
        return Parsed(None, "incomplete")
    assignment = [0] * k
    for c, d in pairs:
        assignment[c] = d
    return Parsed(assignment, None)
