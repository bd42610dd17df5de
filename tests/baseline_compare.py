"""Comparing a run with numbers recorded on another machine: what float32 cannot promise, and what it can.

Issue #25: on an AMD EPYC (AVX2 kernels) the recorded runs of ``tests/behaviour_baseline.json`` came
out with other last bits (``-194.320292 != -194.320289``), and on the tiny random models, whose
candidates score almost alike, a near-tie flipped one WDLMPro rank and moved the means and intervals
built on it. Neither is a change of behaviour. The rules below accept exactly that and nothing more.

**Floats** (``Tolerance``): ``|a - b| <= ATOL + RTOL * max(|a|, |b|)``, ``RTOL = 1e-5``, ``ATOL = 1e-6``.
float32 keeps 24 significant bits: its spacing is 2**-23 (1.2e-7) relative, 1.5e-5 near 200. A score
is a sum of ~10-100 token log-probabilities, each the end of a chain of matrix products whose
summation order the BLAS picks per CPU (block sizes, FMA, threads): each reordering moves a sum by a
few ulps, so two CPUs may differ by ~n ulps ~ 1e-6 .. 1e-5 relative; RTOL = 1e-5 (~84 ulps) covers
that. Results round floats to 6 decimals, so two runs whose values straddle a rounding boundary differ
by 1e-6 however close they are: ATOL = 1e-6. A change of 1e-3 in a log-probability of ordinary size
(-12: tolerance 1.2e-4) or a relative 1e-3 in any score is 100 times the tolerance, and is reported.

**Decisions** (ranks, choices, alignments, hits, P@1; fields of a per-unit record, ``instances``) are
equal unless the unit is a *near-tie*, where either outcome is accepted:

* a unit that records its competitors' scores (CoDA21's ``scores`` matrix, ask-to-choose's
  ``label_logprobs``) is a near-tie when two competitors lie within the tolerance of each other in the
  recording (two entries of a row or a column, or two one-to-one alignments' totals); otherwise its
  decisions must be equal, however its scores moved within the tolerance;
* a unit that records no competitor scores (WDLMPro ranks, sense-ranking queries) cannot show its
  margin, so a difference is accepted only in the shape a tie between two competitors has: the gold
  moves by one rank (it swapped with its neighbour), or only the predicted item changed; a query's
  ``hits``/``top`` differ by one swap of neighbours or in the last place (a tie at the cut-off k). At
  most ``TIE_SHARE`` of an entry's units (at least one) may be accepted so: a real change moves many.

The recorded scores of a unit (and a gold's own ``gold_score``) are compared with the tolerance in every case.

**Aggregates** (means, intervals, curves: every float outside ``instances``) are compared with the
tolerance, plus what the accepted near-tie units can explain. Every aggregate here is a mean over a
slice of ``n`` units of a per-unit value in [0, 1] (P@1, rank score, accuracy, AP, precision), or a
bootstrap percentile of such means. If the near-tie units' values moved by ``d_i``, a mean moves by at
most ``sum(d_i) / n`` (``n`` the slice's count, the innermost ``n``/``groups``/``queries`` above it),
and a bootstrap percentile by at most ``max(d_i)``: each resample's mean moves by at most that, and a
percentile of moved samples moves by no more than the largest move. ``d_i`` is measured on the
unit (the largest change of its [0, 1] values; 1 when a P@1, a correctness or a hit flips).

Entries that record no per-unit values (a layer sweep keeps only each layer's aggregates) cannot
say which units tied; their aggregates are compared with ``SWEEP_ATOL`` (1e-3), stated here: the
sense-ranking sweep's layer 0 moved by up to 2.7e-4 on the EPYC (one query's neighbours swapped
deep in its list), while a wrong layer moves MAP by 4e-4 .. 1e-3, so the sweep's last layer is also
checked against the single-layer entry that records its per-unit values (``tests/test_behaviour_baseline.py``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

RTOL = 1e-5
ATOL = 1e-6
#: the share of an entry's units whose decisions may differ without recorded margins (at least one unit)
TIE_SHARE = 0.1
#: aggregates of entries with no per-unit records (layer sweeps)
SWEEP_ATOL = 1e-3
#: per-unit fields that hold competitors' scores (they decide near-ties)
SCORE_KEYS = ("scores", "label_logprobs")
#: per-unit fields compared within the tolerance always, near-tie or not: scores, not decisions
ALWAYS_CLOSE = SCORE_KEYS + ("gold_score",)
#: what a tie between two competitors can change in a unit that records no competitor scores
TIE_FIELDS = frozenset({"gold_rank", "rank_score", "predicted", "predicted_word", "predicted_definition", "patterns",
                        "hits", "top", "ap"})
#: keys whose integer value is the size of the slice an aggregate averages over
COUNT_KEYS = ("n", "groups", "queries")
#: records made of per-unit values
UNIT_LISTS = ("instances",)


def close(a: float, b: float, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Equal as float32 arithmetic on another CPU can leave them (NaN equals NaN)."""
    if a != a or b != b:
        return a != a and b != b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


@dataclass
class _Slack:
    """What the near-tie units of an entry can move its aggregates by."""

    moves: list[float] = field(default_factory=list)  # d_i of every accepted near-tie unit
    sweep: bool = False  # no per-unit records: SWEEP_ATOL

    def allows(self, a: float, b: float, n: int | None, interval: bool) -> bool:
        if close(a, b):
            return True
        if self.sweep:
            return abs(a - b) <= SWEEP_ATOL + ATOL
        if not self.moves:
            return False
        bound = max(self.moves) if interval else sum(self.moves) / max(n or 1, 1)
        return abs(a - b) <= bound + ATOL + RTOL * max(abs(a), abs(b))


def _leaves(x, where=""):
    """(path, value) of every scalar in ``x``."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, f"{where}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _leaves(v, f"{where}[{i}]")
    else:
        yield where, x


def _score_arrays(unit: dict) -> list[tuple[str, list]]:
    """(where, scores) of the competitor scores a unit records (each a vector or a matrix), wherever
    they are nested: ``where`` is the record they decide (``""``: the unit; ``".likelihood"``: one reading)."""
    found = []

    def walk(x, where):
        if isinstance(x, dict):
            for k, v in x.items():
                if k in SCORE_KEYS and isinstance(v, list) and v:
                    found.append((where, v))
                else:
                    walk(v, f"{where}.{k}")

    walk(unit, "")
    return found


def _near(a: float, b: float) -> bool:
    return _is_number(a) and _is_number(b) and close(a, b, RTOL * 2, ATOL * 2)


def _has_near_tie(scores: list) -> bool:
    """Two competitors within the tolerance: in a vector, in a row or a column of a matrix, or two
    one-to-one alignments of a square matrix (k <= 8: every permutation)."""
    rows = scores if isinstance(scores[0], list) else [scores]
    lines = list(rows) + ([list(c) for c in zip(*rows)] if len(rows) > 1 else [])
    for line in lines:
        if any(_near(a, b) for a, b in itertools.combinations(line, 2)):
            return True
    k = len(rows)
    if 1 < k <= 8 and all(len(r) == k for r in rows):
        totals = sorted(sum(rows[i][p[i]] for i in range(k)) for p in itertools.permutations(range(k)))
        return any(_near(a, b) for a, b in zip(totals, totals[1:]))
    return False


def _one_swap(a, b) -> bool:
    """Sequences equal but for one swap of neighbours, or for their last element (a tie at the cut-off)."""
    a, b = list(a), list(b)
    if len(a) != len(b):
        return False
    diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    if diff == [len(a) - 1]:
        return True
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def _tie_shaped(expected: dict, got: dict) -> bool:
    """A difference of a unit without recorded margins that a tie between two competitors can make."""
    changed = {k for k in expected if k in got and expected[k] != got[k]}
    if not changed <= TIE_FIELDS:
        return False
    if "gold_rank" in changed:
        a, b = expected["gold_rank"], got["gold_rank"]
        return _is_number(a) and _is_number(b) and abs(a - b) == 1
    if changed and changed <= {"predicted", "predicted_word", "predicted_definition"}:
        return True  # two competitors of the gold swapped at the top; the gold's rank is the same
    if "hits" in changed or "top" in changed:
        return all(_one_swap(expected[k], got[k]) for k in ("hits", "top") if k in changed)
    return False


def _move(expected: dict, got: dict) -> float:
    """How far a unit's per-unit values in [0, 1] moved (1 when a P@1, a correctness or a hit flipped)."""
    move = 0.0
    got_leaves = dict(_leaves(got))
    for where, a in _leaves(expected):
        b = got_leaves.get(where)
        if a == b:
            continue
        if isinstance(a, bool) or isinstance(b, bool) or where.endswith("gold_rank") and 1 in (a, b):
            return 1.0
        if (isinstance(a, float) or isinstance(b, float)) and _is_number(a) and _is_number(b) \
                and 0 <= a <= 1 and 0 <= b <= 1:  # (indices and counts are not values)
            move = max(move, abs(a - b))
        elif isinstance(a, str) and isinstance(b, str) and set(a + b) <= {"0", "1"}:
            return 1.0  # a hit flipped
    return move


class Comparison:
    """One comparison: where ``got`` differs from ``expected`` (``differences``)."""

    def __init__(self, added=None, lists_ok=None):
        self.added = added  # (where, value) -> whether a key beyond the recorded ones is accepted
        self.lists_ok = lists_ok  # (expected, got, where) -> whether two lists are accepted as they are
        self.out: list[str] = []

    def walk(self, expected, got, where: str, slack: _Slack | None = None, n: int | None = None,
             interval: bool = False) -> None:
        if isinstance(expected, dict):
            if not isinstance(got, dict):
                self.out.append(f"{where}: expected an object, got {type(got).__name__}")
                return
            count = next((expected[k] for k in COUNT_KEYS if _is_number(expected.get(k))), n)
            for key in expected:
                if key not in got:
                    self.out.append(f"{where}.{key}: missing")
                elif key in UNIT_LISTS and isinstance(expected[key], list) and isinstance(got[key], list):
                    self.units(expected[key], got[key], f"{where}.{key}")
                else:
                    self.walk(expected[key], got[key], f"{where}.{key}", slack, count, interval or key == "ci")
            for key in set(got) - set(expected):
                if self.added is None or not self.added(f"{where}.{key}", got[key]):
                    self.out.append(f"{where}.{key}: not in the baseline")
        elif isinstance(expected, list):
            if self.lists_ok is not None and isinstance(got, list) and self.lists_ok(expected, got, where):
                return
            if not isinstance(got, list) or len(got) != len(expected):
                self.out.append(f"{where}: expected a list of {len(expected)}, got {got!r:.80}")
                return
            for i, (a, b) in enumerate(zip(expected, got)):
                self.walk(a, b, f"{where}[{i}]", slack, n, interval)
        elif isinstance(expected, float) and _is_number(got):
            if not (slack.allows(expected, got, n, interval) if slack else close(expected, got)):
                self.out.append(f"{where}: {expected!r} != {got!r}")
        elif expected != got or type(expected) is not type(got) and not (_is_number(expected) and _is_number(got)):
            self.out.append(f"{where}: {expected!r} != {got!r}")

    def units(self, expected: list, got: list, where: str) -> None:
        """Per-unit records: scores within the tolerance, decisions equal unless the unit is a near-tie."""
        if len(expected) != len(got):
            self.out.append(f"{where}: expected a list of {len(expected)}, got {len(got)}")
            return
        for i, (a, b) in enumerate(zip(expected, got)):
            self.walk(a, b, f"{where}[{i}]")

    def entry(self, expected, got, where: str) -> None:
        """A whole recorded run: its units first, then its aggregates with the slack its near-ties leave."""
        units_e, units_g = expected.get("instances"), got.get("instances")
        if not (units_e and isinstance(units_g, list) and len(units_e) == len(units_g)):
            sweep = isinstance(expected, dict) and not units_e and any(k in expected for k in ("sweep", "layers"))
            self.walk(expected, got, where, _Slack(sweep=sweep))
            return
        slack = _Slack()
        untold = 0  # near-ties accepted without recorded margins
        for i, (a, b) in enumerate(zip(units_e, units_g)):
            here = f"{where}.instances[{i}]"
            strict = Comparison(self.added, self.lists_ok)
            strict.walk(a, b, here)
            if not strict.out:
                continue
            if not (isinstance(a, dict) and isinstance(b, dict)):
                self.out.extend(strict.out)
                continue
            scores = _score_arrays(a)
            problems = [p for p in strict.out if not any(f".{k}" in p.split(":")[0] for k in ALWAYS_CLOSE)]
            score_problems = [p for p in strict.out if p not in problems]
            self.out.extend(score_problems)  # recorded scores: within the tolerance, always
            if not problems:
                continue
            if scores:  # a near-tie decides only the record its scores belong to (not another reading's)
                decided = [f"{here}{at}" for at, s in scores if _has_near_tie(s)]
                undecided = [p for p in problems if not any(p.startswith((f"{d}.", f"{d}[", f"{d}:")) for d in decided)]
                self.out.extend(undecided)
                tied = bool(decided) and not undecided
            else:
                tied = _tie_shaped(a, b)
                untold += tied
            if tied:
                slack.moves.append(_move(a, b))
            elif not scores:
                self.out.extend(problems)
        if untold > max(1, int(TIE_SHARE * len(units_e))):
            self.out.append(f"{where}.instances: {untold} of {len(units_e)} units differ as near-ties would "
                            f"(at most {max(1, int(TIE_SHARE * len(units_e)))} accepted without recorded margins)")
        rest_e = {k: v for k, v in expected.items() if k != "instances"}
        rest_g = {k: v for k, v in got.items() if k != "instances"}
        self.walk(rest_e, rest_g, where, slack)


def differences(expected, got, where: str = "", out: list | None = None, added=None, lists_ok=None) -> list[str]:
    """Where ``got`` differs from ``expected`` beyond what another CPU can make (module docstring).

    A dict holding ``instances`` (a recorded run) is compared as a run: units, then aggregates.
    ``added(where, value)``: which keys ``got`` may have beyond ``expected`` (default: none)."""
    out = [] if out is None else out
    c = Comparison(added, lists_ok)
    if isinstance(expected, dict) and isinstance(got, dict) and (
            "instances" in expected or any(k in expected for k in ("sweep", "layers"))):
        c.entry(expected, got, where)
    else:
        c.walk(expected, got, where)
    out.extend(c.out)
    return out
