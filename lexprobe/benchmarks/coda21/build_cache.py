"""CoDA21 builds reused by content: ``coda21 build`` and ``lexprobe run``'s small set look a build up before
making it.

Why: a build loads WordNet, an embedding model and maybe a masked LM, and clusters every co-hyponym family (the
``coda21 build`` after a ``lexprobe run`` spent 91 s making the same set again). Its groups are stored under a
digest of its inputs (``build_key``; models by their files, without loading them) in the official format, and
read back through ``dataset.parse_coda``: an entry that does not parse cleanly is built again.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

#: bump when the construction changes (builder.py, contexts.py): old entries are then never read
BUILD_VERSION = 1


def model_identity(reference: str) -> str:
    """A model's weights, by the files a reference resolves to (``first`` and the like stay as they are)."""
    from lexprobe.model_names import resolve_model_path
    from lexprobe.provenance import model_revision

    if reference == "first":
        return "first"
    return model_revision(resolve_model_path(reference))


def _source_digest(path: Path) -> str:
    """SemCor's bytes: the SHA-256 of an archive; of every file's name, size and mtime in an unpacked tree."""
    from lexprobe.cache import stable_hash
    from lexprobe.provenance import file_sha256

    if path.is_file():
        return "sha256:" + file_sha256(path)
    stamps = [(str(f.relative_to(path)), f.stat().st_size, f.stat().st_mtime_ns)
              for f in sorted(path.rglob("*")) if f.is_file()]
    return "stamps:" + stable_hash(stamps, 24)


def build_key(config: Any, contexts: str, semcor: Path | None, embed_model: str, context_model: str,
              recipe: str = "paper") -> str:
    """The digest every input of a build goes into (see the module's docstring)."""
    from lexprobe.cache import stable_hash
    from lexprobe.data.wordnet import wordnet_key

    return stable_hash({
        "version": BUILD_VERSION, "wordnet": wordnet_key(), "config": dataclasses.asdict(config),
        "contexts": contexts, "semcor": _source_digest(semcor) if contexts == "semcor" and semcor else None,
        "embed": model_identity(embed_model), "context_model": model_identity(context_model), "recipe": recipe,
    }, 24)


def cached_build(key: str, build: Callable[[], list], say: Callable[[str], None] = print) -> list:
    """The groups built before under ``key``, else ``build()``'s, stored for next time."""
    from lexprobe.benchmarks.coda21.dataset import groups_to_official, parse_coda
    from lexprobe.cache import cache_dir, cached_json

    path = cache_dir() / "coda21" / f"build-{key}.json"

    def reused(official: Any) -> list | None:
        data = parse_coda(official, source=str(path))  # a DataError: built again
        if not data.groups or data.problems:
            return None
        from lexprobe.reporting import wrap_text

        say(wrap_text(f"reusing the CoDA21 build made before with the same WordNet, SemCor, models and options "
                      f"({path})"))
        return data.groups

    return cached_json(path, Any, build, inputs={"cache": "coda21-build", "key": key}, read=reused,
                       stored=groups_to_official)
