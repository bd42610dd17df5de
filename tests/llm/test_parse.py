"""The strict answer parser on hand-written outputs: good ones read, every failure mode counted."""

import pytest

from lexprobe.prompting.choose import reading_summary
from lexprobe.prompting.parse import parse_choice, parse_matching


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
    s = reading_summary(records, lambda reading: {"accuracy": lambda b: b["accuracy"]}, "failure")["generation"]
    assert s["failures"] == {"unparseable": 1, "out_of_range": 1, "not_one_to_one": 1, "incomplete": 1}
    assert s["valid"] == pytest.approx(2 / 6)
    assert s["accuracy"] == pytest.approx((1.0 + 0.0) / 6)
    assert s["n"] == 6


# ---------------------------------------------------------------- the lenient reading

#: W2D options as SmolLM2 saw them (issue #17): answers that echo the option after its label
OPTIONS = ["an atom of hydrogen", "a limitation or constraint", "a sea slug", "the act of bowing", "nod",
           "singing in a soft low tone", "a small dog", "water", "light", "sea slug"]


@pytest.mark.parametrize("text, answer", [
    (" 1. an atom of hydrogen", 0),
    (" 2. a limitation or constraint", 1),  # the first answer, with its own option at 2
    (" 10. sea slug", 9),  # "10" is not "1" followed by "0. sea slug"
    (" (1). an atom of hydrogen", 0),  # bracketed label, then a separator
    ("[2]: A Limitation or Constraint.", 1),  # case and a final full stop aside
    ("4) the act of bowing\nExplanation: ...", 3),  # only the first line counts
    ("3 - a sea", 2),  # its own text cut short, as at the token limit
    ("5", 4),
    ("(7).", 6),
    ('"water"', 7),  # the exact text of exactly one option, no label
    ("Sea slug", 9),  # exactly option 10, not a prefix of option 3
    ("6 singing in a soft low tone", 5),  # a number label needs no punctuation
])
def test_lenient_reads_labels_with_their_own_text(text, answer):
    from lexprobe.prompting.parse import parse_choice_lenient

    p = parse_choice_lenient(text, OPTIONS, "numbers")
    assert p.ok and p.answer == answer
    assert not parse_choice(text, len(OPTIONS), "numbers").ok or text.strip() in ("5", "(7).")  # strict: not these


@pytest.mark.parametrize("text, failure", [
    (" 1. a limitation or constraint", "names_other_option"),  # label 1, text of option 2: never guessed
    (" 3. sea slug", "names_other_option"),  # option 10's exact text after label 3 ("a sea slug" is 3)
    ("8. a small", "names_other_option"),  # the beginning of option 7's text after label 8
    ("2. a rock", "unparseable"),  # a text that is no option's
    ("The answer is 2", "unparseable"),
    ("11. light", "out_of_range"),
    ("", "unparseable"),
])
def test_lenient_never_guesses(text, failure):
    from lexprobe.prompting.parse import parse_choice_lenient

    p = parse_choice_lenient(text, OPTIONS, "numbers")
    assert not p.ok and p.answer is None and p.failure == failure


def test_lenient_letters_and_ambiguous_texts():
    from lexprobe.prompting.parse import parse_choice_lenient

    opts = ["limitation", "an atom", "limitation"]
    assert parse_choice_lenient("limitation", opts, "letters").failure == "ambiguous"  # options 1 and 3
    assert parse_choice_lenient("A limitation", ["an atom", "limitation"], "letters").failure == "unparseable"
    assert parse_choice_lenient("B) limitation", ["an atom", "limitation"], "letters").answer == 1
    assert parse_choice_lenient("A limitation", ["an atom", "a limitation"], "letters").answer == 1  # exact text
    assert parse_choice_lenient("(B)", ["x", "y"], "letters").answer == 1
    assert parse_choice_lenient("b", ["x", "y"], "letters").failure == "unparseable"


@pytest.mark.parametrize("text, k, answer, strict_ok", [
    ("1: B, 2: A, 3: C", 3, [1, 0, 2], True),
    ("1 = b\n2 -> a\n3 → C\nmore text", 3, [1, 0, 2], False),  # one pair per line, other arrows, small letters
    ("(1) [C], 2. A, 3: B.", 3, [2, 0, 1], False),
    ("1: B\n2: A", 2, [1, 0], False),
])
def test_lenient_matchings(text, k, answer, strict_ok):
    from lexprobe.prompting.parse import parse_matching_lenient

    p = parse_matching_lenient(text, k)
    assert p.ok and p.answer == answer
    assert parse_matching(text, k).ok == strict_ok


@pytest.mark.parametrize("text, k, failure", [
    ("1 is B, 2 is A", 2, "unparseable"),
    ("1: B, 2: B", 2, "not_one_to_one"),
    ("1: B\nThe rest is unclear", 3, "incomplete"),
    ("1: D, 2: A", 2, "out_of_range"),
])
def test_lenient_matching_failures(text, k, failure):
    from lexprobe.prompting.parse import parse_matching_lenient

    p = parse_matching_lenient(text, k)
    assert not p.ok and p.failure == failure
