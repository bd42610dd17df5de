"""One checker for everything lexprobe reads back: result files, resume-log lines, caches.

A hand-edited or damaged file once surfaced as a traceback far from the read, sometimes after a whole
computation. Each reader declares the shape it expects in plain typing (``int`` not ``bool``, ``float``,
``str``, ``list[X]``, ``tuple[X, Y]``, ``dict[str, X]``, unions, ``Literal``, a ``TypedDict`` with
``__closed__ = True`` refusing unknown keys, ``Annotated[X, Rule(test, what)]``) and reads through
``problems``/``check``: a wrong value is one line naming where it is. (pydantic models cannot describe the
open metric dictionaries of schema 2.)
"""

from __future__ import annotations

import functools
import math
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Literal, Union, get_args, get_origin, get_type_hints

from lexprobe.errors import DataError

__all__ = ["Rule", "problems", "check", "finite"]

#: at most this many problems are named in one line
SHOWN = 3
#: ``NotRequired[X]`` / ``Required[X]`` (Python >= 3.11; specs use ``total=False`` bases on 3.10)
_KEY_MARKS = tuple(getattr(typing, n) for n in ("NotRequired", "Required") if hasattr(typing, n))


@dataclass(frozen=True)
class Rule:
    """An extra condition on a value (``Annotated[float, Rule(lambda v: v >= 0, "not negative")]``)."""

    test: Callable[[Any], bool]
    what: str


def finite(value: Any) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


def _name(spec: Any) -> str:
    if spec is type(None) or spec is None:
        return "null"
    if spec in _SCALARS:
        return _SCALARS[spec][1]
    if spec in (dict,) or typing.is_typeddict(spec) or get_origin(spec) is dict:
        return "an object"
    if spec in (list, tuple) or get_origin(spec) in (list, tuple):
        return "a list"
    if get_origin(spec) in (Union, types.UnionType):
        return " or ".join(_name(a) for a in get_args(spec))
    if get_origin(spec) is Literal:
        return " or ".join(repr(a) for a in get_args(spec))
    return getattr(spec, "__name__", str(spec))


@functools.lru_cache(maxsize=None)
def _hints(spec: Any) -> dict[str, Any]:
    """A TypedDict's field specs, read once per spec (``get_type_hints`` per record once cost 8 s per 5,000)."""
    return get_type_hints(spec, include_extras=True)


def problems(value: Any, spec: Any, where: str = "") -> list[str]:
    """What makes ``value`` not of ``spec`` (empty when it is), each naming its place (``a.b[2].c``).

    Why two passes: a valid value (nearly every one) is only tested, by ``_valid(spec)``, a predicate compiled
    once per spec; ``_walk``, which names every problem, runs only on an invalid one. Walking every value
    cost 8.9 s of a 72 s WDLMPro run (3.2 million calls on the WordNet groups cache);
    scripts/bench_validation.py prints the figures."""
    if _valid(spec)(value):
        return []
    out: list[str] = []
    _walk(value, spec, where, out)
    return out


def check(value: Any, spec: Any, what: str, fix: str, where: str = "") -> Any:
    """``value`` when it is of ``spec``; else one ``DataError``: ``<what> is not valid (<problems>); <fix>``."""
    wrong = problems(value, spec, where)
    if wrong:
        more = f" and {len(wrong) - SHOWN} more" if len(wrong) > SHOWN else ""
        raise DataError(f"{what} is not valid ({'; '.join(wrong[:SHOWN])}{more}); {fix}")
    return value


def _is(value: Any, spec: Any) -> bool:
    return _valid(spec)(value)


#: scalar specs: (the test a value passes, what it is in words); JSON's true/false is no number here
_SCALARS: dict[Any, tuple[Callable[[Any], bool], str]] = {
    bool: (lambda v: isinstance(v, bool), "true/false"),
    int: (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    float: (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number"),
    str: (lambda v: isinstance(v, str), "a string"),
}


def _walk(value: Any, spec: Any, where: str, out: list[str]) -> None:  # noqa: C901 - one case per kind of spec
    at = where or "the value"
    if spec in (Any, object):
        return
    origin = get_origin(spec)
    if origin is not None and origin in _KEY_MARKS:
        _walk(value, get_args(spec)[0], where, out)
        return
    if origin is typing.Annotated:
        base, *rules = get_args(spec)
        before = len(out)
        _walk(value, base, where, out)
        if len(out) == before:
            out.extend(f"{at} is not {r.what}" for r in rules if isinstance(r, Rule) and not r.test(value))
        return
    if spec is None or spec is type(None):
        if value is not None:
            out.append(f"{at} is not null")
        return
    if spec in _SCALARS:
        test, what = _SCALARS[spec]
        if not test(value):
            out.append(f"{at} is not {what}")
        return
    if origin in (Union, types.UnionType):
        if not any(_is(value, a) for a in get_args(spec)):
            out.append(f"{at} is not {_name(spec)}")
        return
    if origin is Literal:
        if value not in get_args(spec) or isinstance(value, bool) != any(isinstance(a, bool) for a in get_args(spec)):
            out.append(f"{at} is not {_name(spec)}")
        return
    if typing.is_typeddict(spec):
        if not isinstance(value, dict):
            out.append(f"{at} is not an object")
            return
        hints = _hints(spec)
        out.extend(f"{at} has no {k!r}" if where else f"no {k!r}"
                   for k in sorted(spec.__required_keys__) if k not in value)
        if getattr(spec, "__closed__", False):
            out.extend(f"{at} has an unknown field {k!r}" for k in value if k not in hints)
        for key, sub in hints.items():
            if key in value:
                _walk(value[key], sub, f"{where}.{key}" if where else key, out)
        return
    if spec is dict or origin is dict:
        if not isinstance(value, dict):
            out.append(f"{at} is not an object")
            return
        args = get_args(spec)
        if args:
            for key, item in value.items():
                _walk(item, args[1], f"{where}.{key}" if where else str(key), out)
        return
    if spec in (list, tuple) or origin in (list, tuple):
        if not isinstance(value, list):
            out.append(f"{at} is not a list")
            return
        args = get_args(spec)
        if origin is tuple and args and args[-1] is not Ellipsis:
            if len(value) != len(args):
                out.append(f"{at} is not a list of {len(args)}")
                return
            for i, (item, sub) in enumerate(zip(value, args)):
                _walk(item, sub, f"{at}[{i}]", out)
            return
        if args:
            for i, item in enumerate(value):
                before = len(out)
                _walk(item, args[0], f"{at}[{i}]", out)
                if len(out) > before + SHOWN:  # a long list of one mistake: enough said
                    return
        return
    if isinstance(spec, type):
        if not isinstance(value, spec):
            out.append(f"{at} is not {_name(spec)}")
        return
    raise TypeError(f"unsupported spec {spec!r}")  # pragma: no cover - a programming error


@functools.lru_cache(maxsize=None)
def _valid(spec: Any) -> Callable[[Any], bool]:  # noqa: C901 - one case per kind of spec, as ``_walk``
    """A predicate true exactly when ``_walk`` finds no problem in a value of ``spec`` (tests/test_validation.py
    compares the two), built once per spec: no ``get_origin`` per value, no place names built."""
    origin, args = get_origin(spec), get_args(spec)
    if spec in (Any, object):
        return lambda v: True
    if origin is not None and origin in _KEY_MARKS:
        return _valid(args[0])
    if origin is typing.Annotated:
        base, rules = _valid(args[0]), tuple(r.test for r in args[1:] if isinstance(r, Rule))
        return lambda v: base(v) and all(test(v) for test in rules)
    if spec is None or spec is type(None):
        return lambda v: v is None
    if spec in _SCALARS:
        return _SCALARS[spec][0]
    if origin in (Union, types.UnionType):
        arms = tuple(_valid(a) for a in args)
        return lambda v: any(arm(v) for arm in arms)
    if origin is Literal:
        boolean = any(isinstance(a, bool) for a in args)
        return lambda v: v in args and isinstance(v, bool) == boolean
    if typing.is_typeddict(spec):
        fields = tuple((key, _valid(sub)) for key, sub in _hints(spec).items())
        required, known, closed = spec.__required_keys__, set(_hints(spec)), getattr(spec, "__closed__", False)
        return lambda v: (isinstance(v, dict) and all(k in v for k in required)
                          and (not closed or all(k in known for k in v))
                          and all(ok(v[key]) for key, ok in fields if key in v))
    if spec is dict or origin is dict:
        if not args:
            return lambda v: isinstance(v, dict)
        value = _valid(args[1])
        return lambda v: isinstance(v, dict) and all(map(value, v.values()))
    if spec in (list, tuple) or origin in (list, tuple):
        if origin is tuple and args and args[-1] is not Ellipsis:
            each = tuple(_valid(a) for a in args)
            return lambda v: isinstance(v, list) and len(v) == len(each) and all(ok(x) for ok, x in zip(each, v))
        if not args:
            return lambda v: isinstance(v, list)
        item = _valid(args[0])
        return lambda v: isinstance(v, list) and all(map(item, v))
    if isinstance(spec, type):
        return lambda v: isinstance(v, spec)
    raise TypeError(f"unsupported spec {spec!r}")  # pragma: no cover - a programming error
