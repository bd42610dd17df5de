"""The WSD scorer (metrics/wsd.py) and baselines (metrics/wsd_baselines.py): hand-computed values, key
files, and equality with the framework's own Scorer.java on hand-made and real key files."""

from __future__ import annotations

import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from lexprobe.errors import DataError
from lexprobe.metrics.wsd import (
    LFS,
    MFS,
    Score,
    by_first_sense,
    by_sense_count,
    credit,
    format_key_lines,
    parse_key_lines,
    score,
    score_groups,
    sense_bucket,
)
from lexprobe.metrics.wsd_baselines import (
    COUNTED,
    TIE,
    UNSEEN,
    first_sense_answers,
    most_frequent_answers,
    random_credit,
    random_expected,
    rule_counts,
)

K = [f"w{i}%1:09:0{i}::" for i in range(10)]  # ten distinct, well-formed sense keys

#: gold with several keys (b), answers with several keys (c, d), an unanswered instance (e), an answer for an
#: id outside the gold (z), a key given twice (f)
GOLD = {"a": (K[1],), "b": (K[2], K[3]), "c": (K[4],), "d": (K[5],), "e": (K[6],), "f": (K[7],)}
ANSWERS = {"a": (K[1],), "b": (K[3],), "c": (K[4], K[9]), "d": (K[8], K[0], K[5]), "z": (K[1],), "f": (K[7], K[7])}


def test_credit_by_hand():
    assert credit(GOLD["a"], ANSWERS["a"]) == 1
    assert credit(GOLD["b"], ANSWERS["b"]) == 1  # any gold key is right
    assert credit(GOLD["c"], ANSWERS["c"]) == 0.5  # one of two answer keys
    assert credit(GOLD["d"], ANSWERS["d"]) == pytest.approx(1 / 3)
    assert credit(GOLD["f"], ANSWERS["f"]) == 1  # a key twice counts once (Java's HashSet)
    assert credit(GOLD["e"], ()) is None


def test_score_by_hand():
    s = score(GOLD, ANSWERS)
    # correct = 1 + 1 + 1/2 + 1/3 + 1 = 23/6 over 5 answered, 6 gold instances
    assert s.correct == pytest.approx(23 / 6) and s.answered == 5 and s.total == 6 and s.ignored == 1
    assert s.precision == pytest.approx(23 / 30)
    assert s.recall == pytest.approx(23 / 36)
    # F1 = 2PR/(P+R) = 2 (23/30)(23/36) / (23/30 + 23/36) = 23/33
    assert s.f1 == pytest.approx(23 / 33)


def test_a_bare_string_is_not_a_set_of_keys():
    with pytest.raises(TypeError):
        credit(GOLD["a"], K[1])
    with pytest.raises(TypeError):
        format_key_lines({"a": K[1]})


def test_write_key_file_refuses_a_bare_string(tmp_path):
    from lexprobe.data.wsd import write_key_file

    with pytest.raises(TypeError):
        write_key_file(tmp_path / "x.key", {"a": K[1]})
    assert not (tmp_path / "x.key").exists()


def test_nothing_answered_is_zero_not_nan():
    s = score(GOLD, {})
    assert (s.precision, s.recall, s.f1, s.answered) == (0.0, 0.0, 0.0, 0)
    assert not any(math.isnan(v) for v in (s.precision, s.recall, s.f1))
    wrong = score({"a": (K[1],)}, {"a": (K[2],)})
    assert (wrong.precision, wrong.recall, wrong.f1) == (0.0, 0.0, 0.0)


def test_groups_by_hand():
    groups = score_groups(GOLD, ANSWERS, {"a": "N", "b": "V", "c": "N", "d": "V", "e": "N", "f": "A"}, ("N", "V", "A", "R"))
    assert list(groups) == ["N", "V", "A"]  # R has no instance
    assert groups["N"] == Score(1.5, 2, 3)  # a 1, c 1/2, e unanswered
    assert groups["V"].correct == pytest.approx(4 / 3) and groups["V"].answered == 2
    assert groups["A"].f1 == 1.0
    assert sum(g.total for g in groups.values()) == score(GOLD, ANSWERS).total


def test_sense_buckets():
    assert [sense_bucket(n) for n in (1, 2, 3, 4, 6, 7, 10, 11, 20, 21, 75)] == [
        "1", "2-3", "2-3", "4-6", "4-6", "7-10", "7-10", "11-20", "11-20", "21+", "21+"]
    with pytest.raises(ValueError):
        sense_bucket(0)
    n_senses = {"a": 1, "b": 5, "c": 5, "d": 30, "e": 2, "f": 1}
    groups = by_sense_count(GOLD, ANSWERS, n_senses)
    assert list(groups) == ["1", "2-3", "4-6", "21+"]
    assert groups["1"] == Score(2.0, 2, 2) and groups["4-6"] == Score(1.5, 2, 2) and groups["2-3"] == Score(0.0, 0, 1)


def test_first_sense_split():
    first = {"a": K[1], "b": K[3], "c": K[0], "d": K[5], "e": K[0], "f": K[0]}  # b's second gold key is first
    groups = by_first_sense(GOLD, ANSWERS, first)
    assert list(groups) == [MFS, LFS]
    assert groups[MFS].total == 3 and groups[MFS].correct == pytest.approx(1 + 1 + 1 / 3)
    assert groups[LFS].total == 3 and groups[LFS].correct == pytest.approx(1.5)


# --- key files ------------------------------------------------------------------------------------

def test_key_lines_round_trip():
    text = format_key_lines({**ANSWERS, "e": ()})
    assert "e " not in text and text.count("\n") == 6
    assert text.splitlines()[3] == f"d {K[8]} {K[0]} {K[5]}"
    back = parse_key_lines(text.split("\n"), "answers.key")
    assert back["f"] == (K[7],) and back["d"] == ANSWERS["d"] and "e" not in back
    # CRLF, trailing spaces and blank lines are what the Java reader tolerates too
    assert parse_key_lines([f"a {K[1]} \r", "", f"b {K[2]} {K[3]}"], "x") == {"a": (K[1],), "b": (K[2], K[3])}
    with pytest.raises(ValueError):
        format_key_lines({"a b": (K[1],)})


@pytest.mark.parametrize("line, message", [
    (f"a\t{K[1]}", "single spaces"),
    (f"a  {K[1]}", "two spaces"),
    (f" a {K[1]}", "single spaces"),
    ("a", "has no sense key"),
    ("a bank", "is not a WordNet sense key"),
    ("a bank%1:14", "is not a WordNet sense key"),
])
def test_key_lines_refuse_with_file_and_line(line, message):
    with pytest.raises(DataError, match=message) as err:
        parse_key_lines([f"x {K[2]}", line], "sys.key")
    assert str(err.value).startswith("sys.key:2:") and "\n" not in str(err.value)


def test_key_lines_refuse_an_id_twice():
    with pytest.raises(DataError, match=r"sys.key:3: instance 'a' is given twice \(first on line 1\)"):
        parse_key_lines([f"a {K[1]}", f"b {K[2]}", f"a {K[3]}"], "sys.key")


# --- baselines --------------------------------------------------------------------------------------

CANDIDATES = {"a": (K[1], K[2]), "b": (K[4], K[2], K[3], K[5]), "c": (K[4], K[9], K[8]), "d": (), "e": (K[0], K[6]),
              "f": (K[7],)}


def test_random_expected_by_hand():
    # a 1/2, b 2/4 (two gold keys among four candidates), c 1/3, d no candidates (unanswered), e 1/2, f 1
    s = random_expected(GOLD, CANDIDATES)
    assert s.answered == 5 and s.total == 6
    assert s.correct == pytest.approx(1 / 2 + 1 / 2 + 1 / 3 + 1 / 2 + 1)
    assert random_credit(GOLD["b"], CANDIDATES["b"]) == 0.5 and random_credit(GOLD["d"], ()) == 0.0
    # with one gold key each, the expectation is the mean of 1 / |senses|
    one = {i: (c[0],) for i, c in CANDIDATES.items() if c}
    assert random_expected(one, CANDIDATES).f1 == pytest.approx(sum(1 / len(CANDIDATES[i]) for i in one) / len(one))


def test_random_expected_matches_sampling():
    """The exact expectation is what a seeded random choice averages to."""
    rng = random.Random(0)
    draws = 4000
    total = 0.0
    for _ in range(draws):
        picked = {i: (rng.choice(c),) for i, c in CANDIDATES.items() if c}
        total += score(GOLD, picked).correct
    assert total / draws == pytest.approx(random_expected(GOLD, CANDIDATES).correct, abs=0.05)


def test_first_and_most_frequent_sense():
    assert first_sense_answers(CANDIDATES) == {"a": (K[1],), "b": (K[4],), "c": (K[4],), "e": (K[0],), "f": (K[7],)}
    counts = {K[2]: 5, K[1]: 1, K[3]: 7, K[5]: 7, K[9]: 2, K[8]: 2}
    answers, how = most_frequent_answers(CANDIDATES, counts)
    assert answers == {"a": (K[2],), "b": (K[3],), "c": (K[9],), "e": (K[0],), "f": (K[7],)}
    # b: K[3] and K[5] tie at 7, K[3] comes first in WordNet's order; c: K[9], K[8] tie at 2; e, f: never counted
    assert how == {"a": COUNTED, "b": TIE, "c": TIE, "e": UNSEEN, "f": UNSEEN}
    assert rule_counts(how) == {COUNTED: 1, TIE: 2, UNSEEN: 2}


# --- against the framework's Scorer.java -----------------------------------------------------------------

HARNESS = """import java.io.File;
public class Harness {
    public static void main(String[] args) throws Exception {
        Double[] m = Scorer.score(new File(args[0]), new File(args[1]));
        System.out.println(m[0] + " " + m[1] + " " + m[2]);
    }
}
"""


@pytest.fixture(scope="module")
def scorer_java(imported_data_dir, tmp_path_factory) -> Path:
    """Scorer.java of the imported framework, compiled with a harness that prints its full doubles."""
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("javac/java not installed: the comparison with the framework's Scorer.java needs a JDK")
    source = imported_data_dir / "wsd-raganato" / "Scorer.java"
    if not source.is_file():
        pytest.skip("the WSD framework's Scorer.java is not in the imported data")
    folder = tmp_path_factory.mktemp("scorer-java")
    shutil.copyfile(source, folder / "Scorer.java")
    (folder / "Harness.java").write_text(HARNESS)
    subprocess.run(["javac", "Scorer.java", "Harness.java"], cwd=folder, check=True, capture_output=True, timeout=120)
    return folder


def java_score(classes: Path, gold: Path, system: Path) -> tuple[float, float, float]:
    out = subprocess.run(["java", "-cp", str(classes), "Harness", str(gold), str(system)], check=True,
                         capture_output=True, text=True, timeout=120).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def java_printed(classes: Path, gold: Path, system: Path) -> list[str]:
    """The official main's three lines (``P=\\t66.8%`` ...)."""
    return subprocess.run(["java", "-cp", str(classes), "Scorer", str(gold), str(system)], check=True,
                          capture_output=True, text=True, timeout=120).stdout.splitlines()


def ours(gold: Path, system: Path) -> Score:
    from lexprobe.data.wsd import read_key_file

    return score(read_key_file(gold), read_key_file(system))


def test_hand_made_files_equal_scorer_java(scorer_java, tmp_path):
    from lexprobe.data.wsd import write_key_file

    gold, system = tmp_path / "gold.key", tmp_path / "system.key"
    write_key_file(gold, GOLD)
    cases = [ANSWERS, {"a": (K[1],)}, {"b": (K[2], K[3], K[9])}, {i: (K[0],) for i in GOLD},
             {**GOLD, "z": (K[4],)}, {"e": (K[6],), "c": (K[9], K[8], K[4], K[7])}]
    for answers in cases:
        write_key_file(system, answers)
        expected = java_score(scorer_java, gold, system)
        mine = ours(gold, system)
        assert (mine.precision, mine.recall, mine.f1) == pytest.approx(expected, abs=1e-12), answers


def test_real_key_files_equal_scorer_java(scorer_java, imported_data, tmp_path):
    """First-sense answers for every set, and a seeded mix on ALL (several keys, wrong keys, unanswered)."""
    from lexprobe.data.wsd import NAMES, load_wsd, set_files, write_key_file
    from lexprobe.data.wsd_senses import candidate_keys, sense_inventory

    root = imported_data / "wsd-raganato"
    rng = random.Random(7)
    for name in NAMES:
        instances = load_wsd(name)
        candidates = candidate_keys(sense_inventory(instances))
        gold_file = set_files(root, name)[1]
        answer_sets = [first_sense_answers(candidates)]
        if name == "ALL":
            mixed = {}
            for inst in instances:
                roll = rng.random()
                if roll < 0.15:
                    continue  # unanswered
                pool = list(candidates[inst.id])
                mixed[inst.id] = tuple(rng.sample(pool, min(len(pool), 1 + (roll > 0.7) + (roll > 0.9))))
            answer_sets.append(mixed)
        for n, answers in enumerate(answer_sets):
            system = tmp_path / f"{name}-{n}.key"
            write_key_file(system, answers)
            mine = ours(gold_file, system)
            expected = java_score(scorer_java, gold_file, system)
            assert (mine.precision, mine.recall, mine.f1) == pytest.approx(expected, abs=1e-12), (name, n)
            printed = java_printed(scorer_java, gold_file, system)
            assert printed == [f"P=\t{100 * mine.precision:.1f}%", f"R=\t{100 * mine.recall:.1f}%",
                               f"F1=\t{100 * mine.f1:.1f}%"], (name, n)


# --- systems' answer files and the release's macro F1 ---------------------------------------------------------------

def test_answer_lines_take_tabs_or_spaces_and_refuse_each_fault_with_file_and_line():
    from lexprobe.metrics.wsd import parse_answer_lines

    answers, faults = parse_answer_lines([f"a\t{K[1]}", f"b  {K[2]} {K[3]}\r", "", f"c {K[4]}"], "sys.key", {"a", "b", "c"})
    assert answers == {"a": (K[1],), "b": (K[2], K[3]), "c": (K[4],)} and faults.lines == 3
    for line, message in [("a", "has no sense key"), (f"b {K[1]}", r"given twice \(first on line 1\)"),
                          ("c bank", "is not a WordNet sense key"), (f"z {K[1]}", "is not an instance of the set")]:
        with pytest.raises(DataError, match=message) as err:
            parse_answer_lines([f"b {K[2]}", line], "sys.key", {"a", "b", "c"})
        assert str(err.value).startswith("sys.key:2:") and "\n" not in str(err.value)


def test_a_released_files_faulty_lines_are_skipped_and_counted_by_fault():
    from lexprobe.metrics.wsd import parse_answer_lines

    lines = [f"a {K[1]}", "b", f"a {K[2]}", "c bank", f"z {K[3]}", f"d\t{K[4]}"]
    answers, faults = parse_answer_lines(lines, "release.key", {"a", "b", "c", "d"}, strict=False)
    assert answers == {"a": (K[1],), "d": (K[4],)}  # the first of an id given twice is kept
    assert faults.as_dict() == {"lines": 6, "without_key": 1, "twice": 1, "not_a_sense_key": 1, "outside_the_set": 1}


def test_macro_f1_by_hand():
    """Three gold senses: x (instances 1, 2), y (3), z (4, with x too). Answers: 1 x (right), 2 y (wrong), 3 y
    (right), 4 unanswered. x: tp 1, fn 1 (instance 2) + 1 (instance 4), fp 0 -> P 1, R 1/3, F1 1/2; y: tp 1, fp 1
    (instance 2) -> P 1/2, R 1, F1 2/3; z: fn 1 -> F1 0. Macro F1 = (1/2 + 2/3 + 0) / 3."""
    from lexprobe.metrics.wsd import macro_f1

    x, y, z = K[1], K[2], K[3]
    gold = {"1": (x,), "2": (x,), "3": (y,), "4": (z, x)}
    assert macro_f1(gold, {"1": (x,), "2": (y,), "3": (y,)}) == pytest.approx((1 / 2 + 2 / 3 + 0) / 3)
    # a partly right answer of two keys: tp 1/2 for the gold key, fp 1/2 for both answer keys (the script's rule)
    assert macro_f1({"1": (x,)}, {"1": (x, y)}) == pytest.approx(2 * (0.5 / 1.0) * 1.0 / (0.5 + 1.0))
    assert macro_f1({}, {"1": (x,)}) is None
