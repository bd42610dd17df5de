"""The strict answer parser on hand-written outputs: good ones read, every failure mode counted."""

import pytest

from lexprobe.protocols.choose import generation_summary
from lexprobe.protocols.parse import parse_choice, parse_matching


@pytest.mark.parametrize("text, n, style, answer", [
    ("3", 4, "numbers", 2),
    (" 3\n\nQuestion: which word ...", 4, "numbers", 2),  # a base model goes on: only the first line counts
    ("\n  (1)  ", 4, "numbers", 0),
    ("2.", 4, "numbers", 1),
    ("10", 10, "numbers", 9),
    ("B", 4, "letters", 1),
    ("[D]", 4, "letters", 3),
    ("A)", 2, "letters", 0),
])
def test_good_single_answers(text, n, style, answer):
    p = parse_choice(text, n, style)
    assert p.ok and p.answer == answer


@pytest.mark.parametrize("text, n, style, failure", [
    ("", 4, "numbers", "unparseable"),
    ("   \n\n", 4, "numbers", "unparseable"),
    ("The answer is 3.", 4, "numbers", "unparseable"),
    ("3. signal with the hands", 4, "numbers", "unparseable"),  # echoing the option is not the format
    ("3 or 4", 4, "numbers", "unparseable"),
    ("b", 4, "letters", "unparseable"),  # letters are capitals
    ("3", 4, "letters", "unparseable"),
    ("5", 4, "numbers", "out_of_range"),
    ("0", 4, "numbers", "out_of_range"),
    ("E", 4, "letters", "out_of_range"),
])
def test_bad_single_answers(text, n, style, failure):
    p = parse_choice(text, n, style)
    assert not p.ok and p.answer is None and p.failure == failure


@pytest.mark.parametrize("text, k, answer", [
    ("1: B, 2: A, 3: C", 3, [1, 0, 2]),
    (" 2: A; 1: C; 3: B.\nExplanation: ...", 3, [2, 0, 1]),
    ("1-B,2-A", 2, [1, 0]),
    ("3 : A , 1 : C , 2 : B", 3, [2, 1, 0]),
])
def test_good_matchings(text, k, answer):
    p = parse_matching(text, k)
    assert p.ok and p.answer == answer


@pytest.mark.parametrize("text, k, failure", [
    ("", 3, "unparseable"),
    ("1 is B, 2 is A", 2, "unparseable"),
    ("1: B 2: A", 2, "unparseable"),
    ("1: b, 2: a", 2, "unparseable"),
    ("1: B, 2: A,", 2, "unparseable"),
    ("1: B, 4: A, 2: C", 3, "out_of_range"),
    ("1: B, 2: D, 3: A", 3, "out_of_range"),
    ("1: B, 2: B, 3: A", 3, "not_one_to_one"),
    ("1: B, 1: A, 2: C", 3, "not_one_to_one"),
    ("1: B, 2: A", 3, "incomplete"),
])
def test_bad_matchings(text, k, failure):
    p = parse_matching(text, k)
    assert not p.ok and p.answer is None and p.failure == failure


def test_failures_are_counted_and_scored_wrong():
    outputs = ["1: A, 2: B", "1: A", "1: A, 1: B", "1: C, 2: A", "yes", "2: A, 1: B"]
    records = []
    for i, text in enumerate(outputs):
        p = parse_matching(text, 2)
        acc = sum(d == c for c, d in enumerate(p.answer)) / 2 if p.ok else 0.0
        records.append({"item": str(i), "generation": {"failure": p.failure, "accuracy": acc}})
    s = generation_summary(records, "accuracy")
    assert s["failures"] == {"unparseable": 1, "out_of_range": 1, "not_one_to_one": 1, "incomplete": 1}
    assert s["valid"] == pytest.approx(2 / 6)
    assert s["accuracy"] == pytest.approx((1.0 + 0.0) / 6)
    assert s["n"] == 6
