"""What the two ``choose`` benchmarks share: configuration, answer reading, resumable runs, summaries."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from tqdm.auto import tqdm

from lexprobe.cache import ResumeLog, partial_path
from lexprobe.errors import LexprobeError, ModelError
from lexprobe.protocols.answers import greedy_generate, label_logprobs, prompt_length
from lexprobe.protocols.parse import FAILURES
from lexprobe.protocols.templates import DEFAULT, Template, require_chat_template

READINGS = ("likelihood", "generation")


@dataclass(frozen=True)
class ChooseConfig:
    template: Template = DEFAULT
    chat: bool = False
    max_candidates: int | None = 10  # None: show every candidate
    permutations: int = 1
    seed: int = 0
    readings: tuple[str, ...] = READINGS
    max_new_tokens: int | None = None  # None: enough for the answer format (see each benchmark)
    extra: dict = field(default_factory=dict)  # recorded as given (task, pos, data, ...)

    def validate(self) -> None:
        if self.max_candidates is not None and self.max_candidates < 2:
            raise LexprobeError(f"--max-candidates must be at least 2, got {self.max_candidates}")
        if self.permutations < 1:
            raise LexprobeError(f"--permutations must be at least 1, got {self.permutations}")
        bad = [r for r in self.readings if r not in READINGS]
        if bad or not self.readings:
            raise LexprobeError(f"unknown answer reading(s) {bad}; use likelihood, generation or both")

    def record(self) -> dict:
        return {"protocol": "choose", "template": self.template.record(), "chat": self.chat,
                "max_candidates": self.max_candidates, "permutations": self.permutations, "seed": self.seed,
                "readings": list(self.readings), "max_new_tokens": self.max_new_tokens, **self.extra}


def check_scorer(scorer, config: ChooseConfig) -> None:
    if getattr(scorer, "kind", None) != "causal":
        raise ModelError(f"--protocol choose needs a causal LM, got a {getattr(scorer, 'kind', '?')} model; "
                         "use --protocol paper for other kinds")
    if config.chat:
        require_chat_template(scorer.tokenizer, scorer.name)


def too_long(scorer, prompt: str, config: ChooseConfig, room: int) -> str | None:
    """Why ``prompt`` cannot be asked whole (a cut prompt would lose the question), or None."""
    limit = scorer.max_length
    n = prompt_length(scorer.tokenizer, prompt, config.chat)
    if limit and n + room > limit:
        return f"prompt of {n} tokens + {room} for the answer exceeds the model's {limit} positions"
    return None


def read_answers(scorer, prompts: Sequence[str], continuations: Sequence[Sequence[str]], config: ChooseConfig,
                 max_new_tokens: int, prefixes: Sequence[Sequence[str]] | None = None):
    """(label log-probs per prompt or None, generated texts or None) for the requested readings."""
    logps = (label_logprobs(scorer, prompts, continuations, config.chat, prefixes=prefixes)
             if "likelihood" in config.readings else None)
    texts = None
    if "generation" in config.readings:
        texts = greedy_generate(scorer, list(prompts), config.chat, config.max_new_tokens or max_new_tokens)
    return logps, texts


def run_units(units: Sequence[tuple[str, object]], fn: Callable[[object], list], out: str | Path | None,
              run_config: dict, desc: str, progress: bool = True) -> list:
    """Apply ``fn`` to each unit's payload; finished units go to a resume log next to ``out``."""
    resume = ResumeLog(partial_path(out), run_config) if out else None
    done = resume.load() if resume else {}
    records: list = []
    bar = tqdm(total=len(units), desc=desc, unit="unit", disable=not progress)
    for unit_id, payload in units:
        if unit_id in done:
            recs = done[unit_id]
        else:
            recs = fn(payload)
            if resume:
                resume.append(unit_id, recs)
        records.extend(recs)
        bar.update(1)
    bar.close()
    return records


def generation_summary(records: Sequence[dict], score_key: str) -> dict:
    """Score of the generated answers (failures count as wrong) and the count of each failure mode."""
    gen = [r["generation"] for r in records if "generation" in r]
    if not gen:
        return {"n": 0}
    failures = Counter(g["failure"] for g in gen if g["failure"])
    return {
        score_key: float(np.mean([g[score_key] for g in gen])),
        "valid": float(np.mean([g["failure"] is None for g in gen])),
        "failures": {mode: failures.get(mode, 0) for mode in FAILURES},
        "n": len(gen),
    }


def item_means(records: Sequence[dict], value: Callable[[dict], float | None]) -> list[float | None]:
    """Per-item mean of ``value`` over the item's option orders (the bootstrap's unit is the item)."""
    by_item: dict[str, list] = {}
    for r in records:
        by_item.setdefault(r["item"], []).append(value(r))
    return [None if any(v is None for v in vs) else float(np.mean(vs)) for vs in by_item.values()]


def reading_intervals(records: Sequence[dict], reading: str, keys: dict[str, Callable[[dict], float]]) -> dict:
    """Bootstrap intervals over items of a reading's metrics (items answered in that reading)."""
    from lexprobe.stats.bootstrap import mean_intervals

    answered = [r for r in records if reading in r]
    return mean_intervals({name: item_means(answered, lambda r, f=f: f(r[reading])) for name, f in keys.items()})


def agreement(records: Sequence[dict], reading: str, answer_key: str) -> float | None:
    """Share of items answered the same (in original candidate indices) under every option order."""
    by_item: dict[str, list] = {}
    for r in records:
        if reading in r:
            by_item.setdefault(r["item"], []).append(repr(r[reading][answer_key]))
    multi = [v for v in by_item.values() if len(v) > 1]
    if not multi:
        return None
    return float(np.mean([len(set(v)) == 1 for v in multi]))
