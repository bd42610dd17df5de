"""How long a run will take here, from this machine's measured speed, and the sample that fits a budget.

Why: a full WDLMPro run on a CPU takes hours and nothing said so before it started; a new user found the
``--limit`` values by trial. Every method's units go through ``distributed.run_units`` (sense ranking's
sentence encoding through its own loop), which tells the watch in force (``watching``) what work is left and
how long each batch took (``stage``). After a short probe (``PROBE_SECONDS`` of batches) the watch extrapolates
from the units' costs (tokens, candidates) to the rest: the whole run is the time spent before the first unit
(data and model loading, measured) plus the units' time. A run expected to take over ``ANNOUNCE_SECONDS`` gets
one line saying how long, and the sample option's value (``--limit N``) that fits ``BUDGET_SECONDS``, from the
sample's groups (``describe``: how many units each part of speech or set holds; ``--limit N`` keeps at most N
of each); with ``stop`` (``--estimate``) the run stops there (``EstimateReady``). The units the probe finished
are in the run's resume log, so a run that follows resumes them.

The estimate assumes the units left cost what the probe's did per unit of cost; the time after the units
(intervals, figures: seconds) is not in it.
"""

from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterator, Sequence

#: seconds of batches measured before the watch extrapolates (at least one whole batch). Why 30: on a CPU the
#: first batches of a run are slower while torch meets each new input shape (MiniLM's WDLMPro batches: 7.5 s, then
#: 5.2, 3.1, ..., 2.7 s for like costs); a 10 s probe saw two batches and over-estimated a 1/50 sample 2.2x, a 60 s
#: one 1.45x (``scripts/bench_estimate.py``). The probed units are kept: a run that follows resumes them.
PROBE_SECONDS = 30.0
#: a run expected to take longer than this gets the estimate line
ANNOUNCE_SECONDS = 180.0
#: the sample the line suggests fits this many seconds
BUDGET_SECONDS = 300.0


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``2 h 05 min``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h {minutes % 60:02d} min"


@dataclass(frozen=True)
class Estimate:
    """What the probe measured and what it predicts (seconds)."""

    total: float  #: the whole run, from the watch's start: ``before`` + ``units_seconds``
    before: float  #: before the first unit: data and model loading (measured)
    units_seconds: float  #: every unit of the run (those measured plus the rest, extrapolated)
    measured: int  #: units the probe timed
    units: int  #: units of the run
    measured_seconds: float
    unit: str = "unit"
    option: str | None = None  #: the sample option (``--limit``)
    fits: int | None = None  #: its value that fits ``budget`` (None: no option, the run fits, or nothing does)
    budget: float = BUDGET_SECONDS
    finished: bool = False  #: the run's units all finished within the probe (the figures are measured)
    resumed: int = 0  #: units a resumed run had done before (not in ``units``, nor in the time)

    def seconds_for(self, fraction: float) -> float:
        """The run with ``fraction`` of its units (a smaller sample, from nothing done): loading as measured, every
        unit at the measured rate. (A sample shares less work than the whole run, whose sister groups share their
        candidates: MiniLM's 1/50 WDLMPro sample took 1.6-2x this; ``scripts/bench_estimate.py``.)"""
        whole = self.units_seconds * (self.units + self.resumed) / self.units if self.units else 0.0
        return self.before + fraction * whole

    def line(self) -> str:
        """One line of at most 100 columns (two where very long numbers and names would pass 100)."""
        total = self.units + self.resumed  # what the progress bar counts
        units = f"{total:,} {self.unit}{'' if total == 1 else 's'}" + (f", {self.resumed:,} resumed" if self.resumed else "")
        if self.finished:
            return f"lexprobe: took {duration(self.total)} ({units}; loading {duration(self.before)})"
        head = (f"lexprobe: estimate {duration(self.total)} ({self.measured:,} of {units}: "
                f"{duration(self.measured_seconds)}; loading {duration(self.before)})")
        if self.option and self.fits:
            tail = f"{self.option} {self.fits}: ~{duration(self.budget)}"
        elif self.option and self.before >= self.budget:
            tail = f"loading alone exceeds ~{duration(self.budget)}"
        else:
            return head
        return f"{head}; {tail}" if len(head) + len(tail) + 2 <= 100 else f"{head};\n  {tail}"


class EstimateReady(Exception):
    """``--estimate``: the probe is done; the run stops here, its estimate in hand."""

    def __init__(self, estimate: Estimate):
        super().__init__(estimate.line())
        self.estimate = estimate


def _say(line: str) -> None:
    """A notice on stderr that leaves a progress bar whole (tqdm's own writer)."""
    from tqdm.auto import tqdm

    tqdm.write(line, file=sys.stderr)


@dataclass
class Watch:
    """The estimate of the run in progress (``watching`` puts one in force)."""

    stop: bool = False  #: stop once the estimate is made (``EstimateReady``)
    announce: float = -1.0  #: (negative: ``ANNOUNCE_SECONDS``, ``BUDGET_SECONDS``, ``PROBE_SECONDS`` as they are now)
    budget: float = -1.0
    probe: float = -1.0
    say: Callable[[str], None] = field(default=lambda line: _say(line))
    clock: Callable[[], float] = time.monotonic
    started: float = field(default=-1.0)
    unit: str = "unit"
    option: str | None = None
    sizes: tuple[int, ...] = ()  #: units per group of the sample option (``--limit N`` keeps min(N, size))
    estimate: Estimate | None = None
    _left: float = 0.0  #: cost of the units not yet done
    _units: int = 0
    _resumed: int = 0
    _loop_started: float | None = None
    _batches: list[tuple[int, float, float]] = field(default_factory=list)  #: (units, cost, seconds)

    def __post_init__(self) -> None:
        if self.started < 0:
            self.started = self.clock()
        self.announce = ANNOUNCE_SECONDS if self.announce < 0 else self.announce
        self.budget = BUDGET_SECONDS if self.budget < 0 else self.budget
        self.probe = PROBE_SECONDS if self.probe < 0 else self.probe

    def describe(self, unit: str, option: str | None, sizes: Sequence[int]) -> None:
        """What the run's units are called, and its sample option with the units of each of its groups."""
        self.unit, self.option, self.sizes = unit, option, tuple(int(n) for n in sizes)

    def begin(self, costs: Sequence[float], unit: str | None = None, resumed: int = 0) -> bool:
        """The units left to compute (their costs; ``unit``: what they are, where not the run's unit; ``resumed``:
        units a resumed run had done). Only the first stage of a run is watched (a later one is a part of the work
        the first did not see)."""
        if self._loop_started is not None:
            return False
        self._loop_started, self._left, self._units = self.clock(), float(sum(costs)), len(costs)
        self._resumed = resumed
        self.unit = unit or self.unit
        return True

    def batch(self, units: int, cost: float, seconds: float) -> None:
        """A batch finished: once ``probe`` seconds are measured, the estimate (said where the run is long)."""
        if self.estimate is not None or self._loop_started is None:
            return
        self._batches.append((units, float(cost), seconds))
        self._left -= cost
        measured = sum(s for _, _, s in self._batches)
        if measured >= self.probe or self._left <= 1e-9:
            self._estimate(finished=self._left <= 1e-9)

    def _estimate(self, finished: bool) -> None:
        assert self._loop_started is not None
        # the first third of the batches (at least one, of three or more) warms up: not in the rate
        warm = max(1, len(self._batches) // 3) if len(self._batches) >= 3 else 0
        batches = self._batches[warm:]
        cost, seconds = sum(c for _, c, _ in batches), sum(s for _, _, s in batches)
        rate = seconds / cost if cost > 0 else 0.0
        measured_units = sum(u for u, _, _ in self._batches)
        measured_seconds = sum(s for _, _, s in self._batches)
        before = self._loop_started - self.started
        units_seconds = measured_seconds + max(0.0, self._left) * rate
        estimate = Estimate(before + units_seconds, before, units_seconds, measured_units, self._units,
                            measured_seconds, self.unit, self.option, budget=self.budget, finished=finished,
                            resumed=self._resumed)
        self.estimate = _with_fit(estimate, self.sizes)
        if self.stop:
            raise EstimateReady(self.estimate)
        if self.estimate.total > self.announce and not finished:  # (a finished run's time is the run's to say)
            self.say(self.estimate.line())

    def end(self) -> None:
        """The watched stage finished (every unit done): for ``stop``, its measured figures."""
        if self.estimate is None and self._loop_started is not None:
            self._estimate(finished=True)


def _with_fit(estimate: Estimate, sizes: tuple[int, ...]) -> Estimate:
    """``estimate`` with the largest sample option value whose run fits its budget (units kept in proportion:
    ``--limit N`` keeps min(N, size) of each group)."""
    from dataclasses import replace

    if not estimate.option or not sizes or estimate.total <= estimate.budget or estimate.before >= estimate.budget:
        return estimate
    whole = sum(sizes)

    def fits(n: int) -> bool:
        return estimate.seconds_for(sum(min(n, s) for s in sizes) / whole) <= estimate.budget

    low, high = 0, max(sizes)
    while low < high:  # the largest n that fits (fits is monotone in n)
        mid = (low + high + 1) // 2
        low, high = (mid, high) if fits(mid) else (low, mid - 1)
    return replace(estimate, fits=_round_down(low) or None)


def _round_down(n: int) -> int:
    """``n`` to two significant digits, rounded down (9517 -> 9500): a value to type, still within the budget."""
    step = 10 ** max(0, len(str(n)) - 2)
    return n // step * step


_WATCHES: list[Watch] = []


@contextlib.contextmanager
def watching(watch: Watch) -> Iterator[Watch]:
    """``watch`` in force for the work inside (the innermost one counts)."""
    _WATCHES.append(watch)
    try:
        yield watch
    finally:
        _WATCHES.remove(watch)


def current() -> Watch | None:
    return _WATCHES[-1] if _WATCHES else None


def describe(unit: str, option: str | None, sizes: Sequence[int]) -> None:
    """Tell the watch in force (if any) what the run's units and sample are (``core.evaluate``)."""
    watch = current()
    if watch is not None:
        watch.describe(unit, option, sizes)


class Stage:
    """A loop's reports to the watch in force: ``begin`` with the costs of what is left, ``batch`` per batch
    (its units and cost; the time is taken here), ``end``. Without a watch every call does nothing."""

    def __init__(self, costs: Sequence[float], enabled: bool = True, unit: str | None = None, resumed: int = 0):
        watch = current() if enabled else None
        self.watch = watch if watch is not None and watch.begin(costs, unit, resumed) else None
        self._since = time.monotonic() if self.watch is None else self.watch.clock()

    def order(self, items: list, together: Callable[[Any], Hashable] | None = None) -> list:
        """The order to compute ``items`` in: as given; for a probe that stops (``--estimate``), the runs of items
        that share work (``together``: the same key, kept next to each other as the loop put them: sister groups
        score their shared candidates once) in a seeded random order, so the probe's units are a sample of the
        run's work as the run does it. Why not item by item: shuffled one by one, no two sisters met in a batch and
        MiniLM's WDLMPro probe priced a group at its whole candidate set, 2.2x a 1/50 sample's time (a sample keeps
        sisters together too) and more for the whole run, whose sisters always share."""
        if self.watch is None or not self.watch.stop:
            return items
        import itertools
        import random

        runs = [list(run) for _, run in itertools.groupby(items, key=together)] if together else [[i] for i in items]
        random.Random(0).shuffle(runs)
        return [item for run in runs for item in run]

    def batch(self, units: int, cost: float) -> None:
        if self.watch is None:
            return
        now = self.watch.clock()
        seconds, self._since = now - self._since, now
        self.watch.batch(units, cost, seconds)
        self._since = self.watch.clock()  # what the watch did (a line printed) is not the next batch's time

    def end(self) -> None:
        if self.watch is not None:
            self.watch.end()


def stage(costs: Sequence[float], enabled: bool = True, unit: str | None = None, resumed: int = 0) -> Stage:
    """A loop's ``Stage``: ``costs`` of the units it is about to compute (``unit``: what they are, where not the
    run's unit: sense ranking encodes sentences; ``resumed``: units done before, which its bar counts)."""
    return Stage(costs, enabled, unit, resumed)
