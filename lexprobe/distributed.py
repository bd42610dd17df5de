"""Data parallelism on torch.distributed: ``torchrun``, ``accelerate launch``, ``srun torchrun``.

Under a launcher (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``) ``context()`` joins the process group (nccl on
GPUs, gloo on CPUs); without one everything runs in one process at no cost. ``run_units`` is the one place
work is split: units named by content, with a cost in tokens and optionally a bundle key (units sharing
work stay on one rank), are dealt longest-processing-time first (deterministic); each rank appends to its
own resume log and rank 0 gathers the records. A resume reads every rank's log, so any number of
processes may resume.
"""

from __future__ import annotations

import atexit
import datetime
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

from lexprobe import estimate
from lexprobe.cache import ResumeLog, same_record
from lexprobe.errors import LexprobeError

log = logging.getLogger(__name__)

_RANK_SUFFIX = re.compile(r"\.rank(\d+)$")
DEFAULT_TIMEOUT_S = 6 * 3600  # ranks that finish early wait this long for the slowest one


@dataclass(frozen=True)
class DistContext:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    backend: str | None = None

    @property
    def enabled(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0


_CONTEXT: DistContext | None = None


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def context() -> DistContext:
    """This process's place in the run; joins the process group on first call under a launcher."""
    global _CONTEXT
    if _CONTEXT is not None:
        return _CONTEXT
    world = _env_int("WORLD_SIZE", 1)
    if world <= 1:
        _CONTEXT = DistContext()
        return _CONTEXT
    import torch
    import torch.distributed as dist

    rank, local_rank = _env_int("RANK", 0), _env_int("LOCAL_RANK", 0)
    if not dist.is_initialized():
        use_cuda = torch.cuda.is_available() and os.environ.get("LEXPROBE_DIST_BACKEND") != "gloo"
        backend = "nccl" if use_cuda else "gloo"
        if use_cuda:
            torch.cuda.set_device(local_rank)
        timeout = datetime.timedelta(seconds=_env_int("LEXPROBE_DIST_TIMEOUT_S", DEFAULT_TIMEOUT_S))
        try:
            dist.init_process_group(backend=backend, timeout=timeout)
        except (RuntimeError, ValueError) as err:
            raise LexprobeError(
                f"WORLD_SIZE={world} is set but rank {rank} cannot join the {backend} process group "
                f"({str(err).splitlines()[0]}); start lexprobe with torchrun or accelerate launch, "
                "or unset WORLD_SIZE for one process"
            ) from None
        atexit.register(_shutdown)
    elif torch.cuda.is_available() and dist.get_backend() == "nccl":
        torch.cuda.set_device(local_rank)
    _CONTEXT = DistContext(dist.get_rank(), dist.get_world_size(), local_rank, dist.get_backend())
    return _CONTEXT


def _shutdown() -> None:
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()


def is_main() -> bool:
    return context().is_main


# --- splitting --------------------------------------------------------------------------


def assign(costs: Sequence[float], world_size: int, bundles: Sequence[Hashable] | None = None) -> list[list[int]]:
    """Deal unit indices to ``world_size`` ranks, longest processing time first: bundles (units of one key)
    by decreasing cost (ties: first appearance), each to the least-loaded rank (ties: lowest rank).
    Each rank's indices come back in ascending order."""
    if world_size < 1:
        raise ValueError("world_size must be at least 1")
    members: dict[Hashable, list[int]] = {}
    for i in range(len(costs)):
        members.setdefault(bundles[i] if bundles is not None else i, []).append(i)
    ordered = sorted(members.values(), key=lambda ix: (-sum(costs[i] for i in ix), ix[0]))
    load = [0.0] * world_size
    out: list[list[int]] = [[] for _ in range(world_size)]
    for ix in ordered:
        r = min(range(world_size), key=lambda j: (load[j], j))
        out[r].extend(ix)
        load[r] += sum(costs[i] for i in ix)
    return [sorted(ix) for ix in out]


def token_counts(scorer: Any, texts: Sequence[str]) -> list[int]:
    """Tokens per text with the scorer's tokenizer (whitespace words when it has none)."""
    tok = getattr(scorer, "tokenizer", None)
    if tok is not None and callable(tok) and texts:
        try:
            ids = tok(list(texts), add_special_tokens=False)["input_ids"]
            return [len(x) for x in ids]
        except Exception:  # noqa: BLE001 - a cost estimate only; fall back to words
            pass
    return [len(t.split()) + 1 for t in texts]


# --- resume logs -------------------------------------------------------------------------


def rank_log_path(base: Path, rank: int, world_size: int) -> Path:
    """The log a rank appends to: the plain log in one process, ``<base>.rank<R>`` otherwise."""
    return base if world_size == 1 else base.with_name(f"{base.name}.rank{rank}")


def log_paths(base: Path) -> list[Path]:
    """Every log a resume must read: the one-process log and all rank logs, in a fixed order."""
    found = [base] if base.exists() else []
    ranked = []
    for p in base.parent.glob(f"{base.name}.rank*") if base.parent.exists() else []:
        m = _RANK_SUFFIX.search(p.name)
        if m and p.name == f"{base.name}.rank{m.group(1)}":
            ranked.append((int(m.group(1)), p))
    return found + [p for _, p in sorted(ranked)]


def remove_logs(base: Path) -> None:
    """Drop every log once the result file is written (rank 0 only)."""
    for p in log_paths(base):
        p.unlink(missing_ok=True)


def _load_done(base: Path, key: Any, own, record: Any = Any) -> dict[str, Any]:
    """Units finished in any log (``own``: this process's log, already locked). A unit two logs hold with
    different records is reported, dropped from both and computed again."""
    done: dict[str, Any] = {}
    holders: dict[str, list[Path]] = {}
    conflicts: set[str] = set()
    for p in log_paths(base):
        if p == own.path:
            loaded = own.load()
        else:
            with ResumeLog(p, key, notice=own.notice, record=record) as log_file:
                loaded = log_file.load()
        for unit, rec in loaded.items():
            if unit in done and not same_record(done[unit], rec):
                conflicts.add(unit)
            done[unit] = rec
            holders.setdefault(unit, []).append(p)
    if conflicts:
        own.notice(f"resume logs of {base.name}: {len(conflicts)} unit(s) logged with different records in two "
                   f"logs (e.g. {sorted(conflicts)[0]!r}) ignored; they are computed again")
        for p in {p for unit in conflicts for p in holders[unit]}:
            if p == own.path:
                own.drop(conflicts)
            else:
                with ResumeLog(p, key, notice=own.notice, record=record) as log_file:
                    log_file.drop(conflicts)
        for unit in conflicts:
            del done[unit]
    return done


# --- collectives ---------------------------------------------------------------------------


def broadcast(obj: Any) -> Any:
    """Rank 0's ``obj`` on every rank."""
    if not context().enabled:
        return obj
    import torch.distributed as dist

    box = [obj]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def gather(obj: Any) -> list[Any] | None:
    """Every rank's ``obj`` on rank 0 (in rank order); None on the other ranks."""
    ctx = context()
    if not ctx.enabled:
        return [obj]
    import torch.distributed as dist

    box = [None] * ctx.world_size if ctx.is_main else None
    dist.gather_object(obj, box, dst=0)
    return box


def barrier() -> None:
    if context().enabled:
        import torch.distributed as dist

        dist.barrier()


# --- the loop ----------------------------------------------------------------------------------


def run_units(
    units: Sequence[str],
    compute: Callable[[list[int]], list[Any]],
    costs: Sequence[float],
    *,
    step: int,
    log_base: Path | None = None,
    log_key: Any = None,
    bundles: Sequence[Hashable] | None = None,
    make_bar: Callable[[], Any] | None = None,
    record: Any,
) -> list[Any] | None:
    """Records of all ``units`` (in order) on rank 0; None on other ranks.

    ``compute(indices)`` returns one JSON-serialisable record per unit index. Units in any resume log under
    ``log_base`` are not recomputed; the rest are dealt to ranks and computed ``step`` at a time, each batch
    logged at once. ``log_key`` must not depend on the rank or the number of processes; the caller removes the
    logs (``remove_logs``) once the result is written. ``make_bar`` makes a tqdm bar (after the logs are read).
    ``record``: the shape of one unit's record (a ``validation`` spec); another shape is recomputed.
    """
    if len(set(units)) != len(units):
        raise ValueError("unit ids must be unique")
    ctx = context()
    done: dict[str, Any] = {}
    writer = (ResumeLog(rank_log_path(Path(log_base), ctx.rank, ctx.world_size), log_key, record=record)
              if log_base else None)
    new: dict[str, Any] = {}
    try:
        if writer is not None and log_base and ctx.is_main:
            writer.acquire()  # a second run on this output stops here, before any work
            done.update(_load_done(Path(log_base), log_key, writer, writer.record))
            if done:
                log.warning("resuming: %d of %d units already done", sum(u in done for u in units), len(units))
        done_set = set(broadcast(sorted(done)))
        if writer is not None and not ctx.is_main:
            writer.acquire()  # after rank 0 has read (and released) every log
        pending = [i for i, u in enumerate(units) if u not in done_set]
        shares = assign([costs[i] for i in pending], ctx.world_size, [bundles[i] for i in pending] if bundles else None)
        mine = [pending[j] for j in shares[ctx.rank]]
        bar = make_bar() if make_bar is not None else None
        if bar is not None:
            bar.total = len(units) - len(pending) + len(mine)
            if ctx.enabled and not getattr(bar, "disable", True):
                bar.set_description(f"{bar.desc} (rank {ctx.rank}'s share of {ctx.world_size})")
            if len(units) > len(pending):
                bar.update(len(units) - len(pending))
        if bundles is not None:  # a bundle's units in one batch where possible: they share work
            first: dict[Hashable, int] = {}
            for i in mine:
                first.setdefault(bundles[i], i)
            mine.sort(key=lambda i: (first[bundles[i]], i))
        # the estimate of the run in force (``estimate``: one process only) is told each batch's cost and time
        watched = estimate.stage([costs[i] for i in mine], enabled=not ctx.enabled, resumed=len(units) - len(pending))
        # (a probe that stops: a random sample of the units, a bundle's together)
        mine = watched.order(mine, (lambda i: bundles[i]) if bundles is not None else None)
        try:
            for start in range(0, len(mine), max(1, step)):
                batch = mine[start : start + max(1, step)]
                records = compute(batch)
                if len(records) != len(batch):
                    raise RuntimeError(f"compute returned {len(records)} records for {len(batch)} units")
                for i, rec in zip(batch, records):
                    new[units[i]] = rec
                    if writer is not None:
                        writer.append(units[i], rec)
                if bar is not None:
                    bar.update(len(batch))
                watched.batch(len(batch), sum(costs[i] for i in batch))  # logged first: a stop loses nothing
        except BaseException:
            if bar is not None:  # erased now, not redrawn after the error line when it is collected
                bar.leave = False
                bar.close()
            raise
        watched.end()
        if bar is not None:
            bar.close()
    finally:
        if writer is not None:
            writer.close()  # the log stays (for a resume) until the result is written
    parts = gather(new)
    if parts is None:
        return None
    for part in parts:
        done.update(part)
    missing = [u for u in units if u not in done]
    if missing:  # pragma: no cover - a rank returned early; never write a partial result
        raise RuntimeError(f"{len(missing)} units missing after gathering, e.g. {missing[0]!r}")
    return [done[u] for u in units]

