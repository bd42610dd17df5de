"""Where lexprobe keeps caches, and an append-only log that makes long runs resumable.

A run writes each finished unit (a WDLMPro chunk, a CoDA group, ...) to
``<out>.partial.jsonl`` as soon as it is done. A rerun with the same configuration
reads the log back and skips the finished units, so an interrupted run loses
nothing. The first line of the log records a hash of the configuration; a log
written under another configuration is set aside rather than mixed in.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """``$LEXPROBE_CACHE`` or ``~/.cache/lexprobe``; created on demand."""
    root = Path(os.environ.get("LEXPROBE_CACHE", Path.home() / ".cache" / "lexprobe"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def stable_hash(obj: Any, length: int = 16) -> str:
    """Hash of a JSON-serialisable object that does not depend on dict order."""
    blob = json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:length]


class ResumeLog:
    """Append-only JSONL log of finished units, keyed by a unit id.

    >>> log = ResumeLog(path, config)         # doctest: +SKIP
    >>> done = log.load()                     # {unit_id: record}
    >>> log.append(unit_id, record)           # flushed immediately
    """

    def __init__(self, path: str | Path, config: Any):
        self.path = Path(path)
        self.config_hash = stable_hash(config)

    def load(self) -> dict[str, Any]:
        if not self.path.exists():
            return {}
        done: dict[str, Any] = {}
        with self.path.open(encoding="utf-8") as f:
            header = f.readline()
            try:
                ok = json.loads(header).get("config_hash") == self.config_hash
            except (json.JSONDecodeError, AttributeError):
                ok = False
            if not ok:
                stale = self.path.with_suffix(self.path.suffix + ".stale")
                f.close()
                self.path.replace(stale)
                return {}
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    break  # a line cut off by an interruption; everything before it is good
                done[entry["id"]] = entry["record"]
        return done

    def append(self, unit_id: str, record: Any) -> None:
        new = not self.path.exists()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            if new:
                f.write(json.dumps({"config_hash": self.config_hash}) + "\n")
            f.write(json.dumps({"id": unit_id, "record": record}, ensure_ascii=False) + "\n")


def partial_path(out: str | Path) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".partial.jsonl")
