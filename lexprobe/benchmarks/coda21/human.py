"""CoDA21's human-evaluation subset S20 (paper section 4, Table 2's S20 column): "a random sample of size 20
from the noun part of CoDA21-clean-easy".

The recipe that reproduces it (it holds Table 5's group, the grandchildren of ``material.n.01``, k = 7): the
file's noun groups, in file order, shuffled by ``random.Random(42).shuffle`` (numpy's generators give other
samples); groups in which two candidates share a context are skipped (a person could not tell them apart); the
first 20 remaining groups form S20.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from lexprobe.data.files import read_json
from lexprobe.errors import DataError

S20_SIZE = 20
S20_SEED = 42


def has_duplicate_contexts(group: dict) -> bool:
    contexts = [str((c.get("contexts") or [""])[0]) for c in group.get("candidates", [])]
    return len(set(contexts)) < len(contexts)


def sample_human(obj: dict[str, Any], size: int = S20_SIZE, seed: int = S20_SEED, pos: str = "n") -> list[int]:
    """Indices (into ``obj[pos]``) of the sampled groups, in sample order."""
    groups = obj.get(pos)
    if not isinstance(groups, list):
        raise DataError(f"the CoDA21 data has no '{pos}' list of groups")
    order = list(range(len(groups)))
    random.Random(seed).shuffle(order)
    picked = [i for i in order if isinstance(groups[i], dict) and not has_duplicate_contexts(groups[i])][:size]
    if len(picked) < size:
        raise DataError(f"only {len(picked)} usable '{pos}' groups; a sample of {size} was asked for")
    return picked


def build_sample(source: str | Path, size: int = S20_SIZE, seed: int = S20_SEED, pos: str = "n") -> dict[str, Any]:
    """The sample as an official-format CoDA21 object (groups in sample order)."""
    source = Path(source)
    if not source.is_file():
        raise DataError(f"CoDA21 file {source} not found; pass --data with CoDA-clean-easy.json")
    obj = read_json(source, "pass an official CoDA21 file")
    if not isinstance(obj, dict):
        raise DataError(f"{source} is not a CoDA21 file: expected a JSON object with keys 'n' and/or 'v'")
    picked = sample_human(obj, size, seed, pos)
    sample = {
        "n": [], "v": [],
        "sample": {"source": source.name, "pos": pos, "seed": seed, "size": size,
                   "recipe": "random.Random(seed).shuffle of the groups; groups with duplicate contexts skipped",
                   "groups": [f"{pos}/{i}" for i in picked]},
    }
    sample[pos] = [obj[pos][i] for i in picked]
    return sample


def write_sample(source: str | Path, out: str | Path, size: int = S20_SIZE, seed: int = S20_SEED,
                 pos: str = "n") -> dict[str, Any]:
    """Write the sample as an official-format CoDA21 file (``coda eval --data`` reads it)."""
    from lexprobe.reporting import write_json

    sample = build_sample(source, size, seed, pos)
    write_json(out, sample)  # atomic; a full disk is one line
    return sample
