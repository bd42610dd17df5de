"""The official CoDA21 releases (Senel, Schick & Schütze), as datasets: their four files, pinned, and the check of a
CoDA21 JSON file; ``coda21`` names all four on the command line.

The reader of the files is the benchmark's (``benchmarks/coda21/dataset.py``); here is what the data layer needs:
where they come from (github.com/lksenel/CoDA21 at a pinned commit), their SHA-256, the format check that runs
before anything is pinned or imported (the published group counts of the paper's Table 1), and where a copy of
one's own may stand in (``$LEXPROBE_CODA_DIR``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from lexprobe.data.files import require_regular, unique_keys
from lexprobe.data.registry import Dataset, RemoteFile, data_dir, github_raw, register_dataset, register_group
from lexprobe.errors import DataError

COMMIT = "f5393e66eefcbc1b289a6f674527ac7522377382"
LICENCE = "no licence file upstream: use for evaluation, do not redistribute"
#: groups per POS of the official releases (the paper's Table 1; the clean files and noisy-hard read so)
PUBLISHED_GROUPS = {"clean-hard": (106, 102), "clean-easy": (274, 103), "noisy-hard": (691, 350),
                    "noisy-easy": (1188, 370)}
_CANDIDATE_KEYS = ("synset_name", "definition", "contexts", "words_in_contexts")


def check_coda_json(path: Path, expected: tuple[int, int] | None = None) -> None:
    """A CoDA21 file as the reader takes it: one JSON object (no key twice) with lists ``n``/``v`` of
    groups whose candidates carry the four fields; ``expected``: the published (noun, verb) group counts."""
    require_regular(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    except (OSError, ValueError, RecursionError) as err:
        raise DataError(f"{path} is not a CoDA21 JSON file ({str(err)[:120]})") from None
    shape = f'{path} is not a CoDA21 JSON file: expected {{"n": [group], "v": [group]}} with candidates'
    if not isinstance(data, dict) or not all(isinstance(data.get(pos, []), list) for pos in ("n", "v")):
        raise DataError(shape)
    groups = [g for pos in ("n", "v") for g in data.get(pos, [])]
    if not groups or not all(isinstance(g, dict) and isinstance(g.get("candidates"), list) and g["candidates"]
                             and all(isinstance(c, dict) and all(k in c for k in _CANDIDATE_KEYS)
                                     for c in g["candidates"]) for g in groups):
        raise DataError(shape)
    counts = (len(data.get("n", [])), len(data.get("v", [])))
    if expected is not None and counts != tuple(expected):
        raise DataError(f"{path} has {counts[0]} noun and {counts[1]} verb groups; the release has "
                        f"{expected[0]} and {expected[1]} (the paper's Table 1): not the official file")


def default_coda_dir() -> Path:
    """``$LEXPROBE_CODA_DIR`` or the data directory's ``coda21/`` (``lexprobe data fetch coda21``)."""
    env = os.environ.get("LEXPROBE_CODA_DIR")
    return Path(env) if env else data_dir() / "coda21"


def _variant(variant: str, sha256: str | None, size: int | None) -> Dataset:
    name = f"CoDA-{variant}.json"
    expected = PUBLISHED_GROUPS.get(variant)

    def override() -> Path | None:
        env = os.environ.get("LEXPROBE_CODA_DIR")
        return Path(env) / name if env else None

    return Dataset(
        name=f"coda21-{variant}", title=f"CoDA21 {variant} (official release)", version=COMMIT[:7],
        upstream="github.com/lksenel/CoDA21", pin=COMMIT, upstream_path=f"Data/{name}", licence=LICENCE,
        reader_format='CoDA21 JSON {"n": [group], "v": [group]}',
        files=(RemoteFile(f"coda21/{name}", github_raw("lksenel/CoDA21", COMMIT, f"Data/{name}"), sha256, size),),
        entry=f"coda21/{name}", redistributable=False, check=lambda p, rel: check_coda_json(p, expected),
        override=override)


VARIANTS = tuple(register_dataset(d) for d in (
    _variant("clean-easy", "e9636d3e43a633d106ab6f7c35344d7afc491c09f1f7a5668bc19cbc9c9eda37", 1_145_382),
    _variant("clean-hard", "1c797391da14d68b8c3527e4065564b89e66456472b20b4b774960291fdfabef", 584_311),
    _variant("noisy-easy", None, None),
    _variant("noisy-hard", "cf3baad012beb72f5bd8a9c4c7d68b0d04b68026815a6ed07e4c872d6d502bf6", 2_919_726),
))
register_group("coda21", tuple(d.name for d in VARIANTS))
