"""``validation``'s compiled predicate (``_valid``) against the plain walk that names problems (``_walk``).

``problems`` answers a valid value from the predicate alone, so the predicate must accept exactly what the walk
finds nothing wrong with: checked here on every kind of spec, over values of every JSON shape (and a few that
JSON cannot make), and the lines of an invalid value are the walk's, unchanged.
"""

from __future__ import annotations

import re
import random
from typing import Any, Literal, Optional, TypedDict, Union

import pytest

from lexprobe.errors import DataError
from lexprobe.validation import Rule, _valid, _walk, check, finite, problems

try:
    from typing import NotRequired
except ImportError:  # pragma: no cover - Python 3.10
    from typing_extensions import NotRequired

from typing import Annotated


class Closed(TypedDict):
    __closed__ = True  # type: ignore[misc]
    name: str
    n: int


class Open(TypedDict):
    name: str
    score: Optional[float]
    tags: NotRequired[list[str]]


class Nested(TypedDict):
    format: Literal["cache/1"]
    rows: list[tuple[str, int, float]]
    groups: list[list[int]]
    by: dict[str, Closed]


SPECS: list[Any] = [
    Any, object, None, type(None), bool, int, float, str, list, tuple, dict,
    list[int], list[list[int]], tuple[str, int], tuple[int, ...], dict[str, float], dict[str, list[str]],
    Optional[int], Union[int, str], int | None, Literal["a", "b"], Literal[True], Literal[1, 2],
    Annotated[float, Rule(finite, "finite")], Annotated[int, Rule(lambda v: v >= 0, "not negative")],
    list[Annotated[float, Rule(finite, "finite")]], Closed, Open, Nested, list[Open], dict[str, Nested],
]


def _value(rng: random.Random, depth: int = 0) -> Any:
    """A random value: JSON's kinds, near misses (true for 1, 1.0 for 1), tuples, sets and NaN."""
    scalars = [0, 1, -3, True, False, 1.0, 2.5, float("nan"), float("inf"), "a", "b", "cache/1", "", None]
    kind = rng.randrange(8 if depth < 3 else 1)
    if kind == 0:
        return rng.choice(scalars)
    if kind in (1, 2):
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 3:
        return tuple(_value(rng, depth + 1) for _ in range(rng.randrange(3)))
    if kind == 4:
        keys = ["name", "n", "score", "tags", "format", "rows", "groups", "by", "x"]
        return {k: _value(rng, depth + 1) for k in rng.sample(keys, rng.randrange(len(keys)))}
    if kind == 5:  # a near-valid record of each TypedDict
        return rng.choice([{"name": "a", "n": rng.choice([1, True, 1.0])},
                           {"name": "a", "score": rng.choice([None, 1, "x"]), "tags": rng.choice([["a"], [1], []])},
                           {"format": "cache/1", "rows": [["a", 1, 2.0]] * rng.randrange(3),
                            "groups": [[0, 1], [rng.choice([2, True, "3"])]], "by": {"k": {"name": "a", "n": 2}}}])
    if kind == 6:
        return rng.choice([[1, 2, 3], [[1], [2, 3]], ["a", 1, 2.0], ["a", 1], [1.0, float("nan")], [0, -1]])
    return {str(i): _value(rng, depth + 1) for i in range(rng.randrange(3))}


def _walked(value: Any, spec: Any) -> list[str]:
    out: list[str] = []
    _walk(value, spec, "", out)
    return out


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: re.sub(r" at 0x[0-9a-f]+", "", str(spec)))  # same in every process
def test_predicate_accepts_exactly_what_the_walk_accepts(spec):
    rng = random.Random(str(spec))
    for _ in range(3000):
        value = _value(rng)
        walked = _walked(value, spec)
        assert _valid(spec)(value) == (not walked), (value, walked)
        assert problems(value, spec) == walked  # the lines of an invalid value: the walk's own


def test_every_kind_of_spec_is_exercised_both_ways():
    """The comparison above means something only if each spec met valid and invalid values."""
    for spec in SPECS:
        if spec in (Any, object):
            continue
        rng = random.Random(str(spec))
        verdicts = {_valid(spec)(_value(rng)) for _ in range(3000)}
        assert verdicts == {True, False}, spec


def test_invalid_values_are_named_as_before():
    cache = {"format": "cache/1", "rows": [["a", 1, 2.0], ["b", "1", 2.0]], "groups": [[0, 1], [True]],
             "by": {"k": {"name": "a", "n": 1, "x": 0}}}
    assert problems(cache, Nested) == ["rows[1][1] is not an integer", "groups[1][0] is not an integer",
                                       "by.k has an unknown field 'x'"]
    assert problems({"name": "a"}, Closed) == ["no 'n'"]
    assert problems([1.0, float("nan")], list[Annotated[float, Rule(finite, "finite")]]) == ["the value[1] is not finite"]
    with pytest.raises(DataError, match=r"^the cache is not valid \(no 'by'; no 'format'; no 'groups' and 1 more\); rebuild it$"):
        check({}, Nested, "the cache", "rebuild it")
    assert check({"name": "a", "n": 1}, Closed, "x", "y") == {"name": "a", "n": 1}
