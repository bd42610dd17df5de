"""Target embeddings on disk: appended as they are computed, read back memory-mapped.

A million targets at 768 dimensions are 3 GB of float32 per layer, so the vectors never sit in RAM together:
each writer (one per rank) appends rows ``[layers, dim]`` to ``vectors.r<R>.f32`` and, once they are on disk,
one line per sentence to ``index.r<R>.jsonl`` (sentence digest, first row, target indices, which aligned). A
rerun skips the sentences already there, so an interrupted run keeps everything it embedded.

The folder belongs to one model: ``identity.json`` holds the weights' revision and every option that changes a
vector. A store written under another identity is set aside (``<dir>.stale``, ``.stale.1``, ...: never
removed), never mixed in. Entries are keyed by a SHA-256 digest of the sentence's tokens.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from pathlib import Path
from typing import Annotated, Any, Sequence, TypedDict

import numpy as np

from lexprobe.validation import Rule

log = logging.getLogger(__name__)

_VERSION = 1
_INDEX = re.compile(r"^index\.r(\d+)\.jsonl$")


def sentence_digest(tokens: Sequence[str]) -> str:
    """Key of a sentence's vectors: they depend on its tokens only (and the store's model)."""
    return hashlib.sha256("\0".join(tokens).encode("utf-8")).hexdigest()[:32]


class EmbeddingStore:
    """Rows of target vectors in per-writer files; ``entries`` (by sentence digest) and ``fetch`` read them back."""

    def __init__(self, root: str | Path, identity: dict[str, Any]):
        self.root = Path(root)
        self.identity = {"version": _VERSION, **identity}
        self.entries: dict[str, tuple[int, int, tuple[int, ...], str]] = {}  # digest -> (writer, row, targets, ok)
        self.shapes: dict[int, tuple[int, ...]] = {}
        self._maps: dict[int, np.memmap] = {}

    # --- setting up (one process: rank 0) -------------------------------------------------
    def prepare(self) -> None:
        """Create the folder, or set aside one written for another model or options."""
        meta = self.root / "identity.json"
        if self.root.exists():
            try:
                same = json.loads(meta.read_text(encoding="utf-8")) == self.identity
            except (OSError, ValueError):
                same = False
            if not same:
                from lexprobe.outputs import set_aside

                stale = set_aside(self.root)  # a fresh .stale[.N]: an older store is never removed (D1)
                log.warning("embedding store %s was written for another model or options; set aside as %s",
                            self.root, stale)
        if not self.root.exists():
            from lexprobe.outputs import write_atomic

            self.root.mkdir(parents=True)
            write_atomic(meta, json.dumps(self.identity, sort_keys=True, indent=1))

    # --- reading ----------------------------------------------------------------------------
    def load_index(self) -> "EmbeddingStore":
        """Read every writer's index (lines cut off by an interruption are ignored)."""
        self.entries.clear()
        self._maps.clear()
        for path in sorted(self.root.glob("index.r*.jsonl")):
            m = _INDEX.match(path.name)
            if not m:
                continue
            writer = int(m.group(1))
            shape, entries = _read_index(path)
            if shape is None:
                continue
            rows = _rows_on_disk(self._vectors_path(writer), shape)
            self.shapes[writer] = shape
            for digest, (row, targets, ok) in entries.items():
                old = self.entries.get(digest)
                if row + len(targets) <= rows and (old is None or len(targets) > len(old[2])):
                    self.entries[digest] = (writer, row, targets, ok)  # the entry with most targets
        return self

    def fetch(self, locations: np.ndarray, layer: int = 0) -> np.ndarray:
        """float32 vectors at ``layer`` of the rows at ``locations`` (an (n, 2) array of writer, row)."""
        locations = np.asarray(locations, dtype=np.int64).reshape(-1, 2)
        if not len(locations):
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.empty((len(locations), self.dim), dtype=np.float32)
        for writer in np.unique(locations[:, 0]):
            sel = np.nonzero(locations[:, 0] == writer)[0]
            out[sel] = self._map(int(writer))[locations[sel, 1], layer]
        return out

    @property
    def dim(self) -> int:
        return next(iter(self.shapes.values()))[-1] if self.shapes else 0

    def _map(self, writer: int) -> np.memmap:
        if writer not in self._maps:
            shape = self.shapes[writer]
            rows = _rows_on_disk(self._vectors_path(writer), shape)
            self._maps[writer] = np.memmap(self._vectors_path(writer), dtype=np.float32, mode="r",
                                           shape=(rows, *shape))
        return self._maps[writer]

    def _vectors_path(self, writer: int) -> Path:
        return self.root / f"vectors.r{writer}.f32"

    # --- writing ----------------------------------------------------------------------------
    def writer(self, writer: int) -> "StoreWriter":
        return StoreWriter(self._vectors_path(writer), self.root / f"index.r{writer}.jsonl")


class StoreWriter:
    """Appends one writer's rows; repairs a tail left by an interruption first."""

    def __init__(self, vectors: Path, index: Path):
        from lexprobe.locks import take_lock

        self.vectors, self.index = vectors, index
        # two runs never append to one writer's files
        self._lock: Any = take_lock(index.with_name(index.name + ".lock"), "another lexprobe run is writing the "
                                    f"embedding store {index.parent}; wait for it to finish or pass another --out")
        self.shape: tuple[int, ...] | None = None
        self.rows = 0
        if index.exists():
            with _private(index, os.O_RDWR, "r+b") as f:  # a line cut off by an interruption
                data = f.read()
                if data and not data.endswith(b"\n"):
                    f.truncate(data.rfind(b"\n") + 1)
            self.shape, entries = _read_index(index)
            self.rows = max((row + len(t) for row, t, _ in entries.values()), default=0)
        if self.vectors.exists() and self.shape is not None:
            with _private(self.vectors, os.O_RDWR, "r+b") as f:  # rows written after the last indexed sentence
                f.truncate(self.rows * int(np.prod(self.shape)) * 4)

    def close(self) -> None:
        """Release this writer's lock (its files stay for later runs)."""
        if self._lock is not None:
            lock, self._lock = self._lock, None
            lock.release()

    def append(self, sentences: Sequence[Sequence[str] | str], targets: Sequence[Sequence[int]],
               vectors: Sequence[np.ndarray], ok: Sequence[np.ndarray]) -> None:
        """Per sentence: its tokens (or ``sentence_digest``), target indices, (n, dim) or
        (n, layers, dim) vectors, aligned flags."""
        blocks = [v.reshape(len(t), -1, v.shape[-1]).astype(np.float32, copy=False) for v, t in zip(vectors, targets)]
        if not blocks:
            return
        if self.shape is None:
            self.shape = tuple(blocks[0].shape[1:])
            with _private(self.index, os.O_WRONLY | os.O_TRUNC, "w") as f:
                f.write(json.dumps({"shape": list(self.shape), "dtype": "float32"}) + "\n")
        with _private(self.vectors, os.O_WRONLY | os.O_APPEND, "ab") as f:
            for b in blocks:
                if tuple(b.shape[1:]) != self.shape:
                    raise ValueError(f"row shape {tuple(b.shape[1:])} differs from the store's {self.shape}")
                f.write(np.ascontiguousarray(b).tobytes())
        lines = []
        for tokens, t, flags in zip(sentences, targets, ok):
            key = tokens if isinstance(tokens, str) else sentence_digest(tokens)
            lines.append(json.dumps({"s": key, "row": self.rows, "t": list(map(int, t)),
                                     "ok": "".join("1" if x else "0" for x in flags)}))
            self.rows += len(t)
        with _private(self.index, os.O_WRONLY | os.O_APPEND, "a") as f:  # index last: a row is used only once indexed
            f.write("\n".join(lines) + "\n")


def _private(path: Path, flags: int, mode: str):
    """A store file opened never through a link (``outputs.open_private``: the store's files are lexprobe's own)."""
    from lexprobe.outputs import open_private

    return os.fdopen(open_private(path, flags), mode, encoding=None if "b" in mode else "utf-8")


class _IndexHeader(TypedDict):
    shape: list[Annotated[int, Rule(lambda n: n > 0, "a positive size")]]


class _IndexLine(TypedDict):
    """One stored sentence: its digest, first row, target positions and which aligned ("1"/"0" each)."""

    s: str
    row: Annotated[int, Rule(lambda n: n >= 0, "a row number")]
    t: list[int]
    ok: Annotated[str, Rule(lambda v: set(v) <= {"0", "1"}, "a string of 0/1 flags")]


def _read_index(path: Path) -> tuple[tuple[int, ...] | None, dict[str, tuple[int, tuple[int, ...], str]]]:
    """A writer's index, read through ``validation``: a header of another shape drops the writer's rows, an
    entry of another shape (or not JSON) drops that sentence, which is then encoded again."""
    from lexprobe.validation import problems

    entries: dict[str, tuple[int, tuple[int, ...], str]] = {}
    with path.open("rb") as f:
        try:
            header = json.loads(f.readline())
        except (ValueError, RecursionError):
            return None, {}
        if problems(header, _IndexHeader):
            return None, {}
        shape = tuple(header["shape"])
        for line in f:
            if not line.endswith(b"\n"):
                break  # cut off by an interruption
            try:
                e = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if problems(e, _IndexLine) or len(e["ok"]) != len(e["t"]):
                continue
            entries[e["s"]] = (e["row"], tuple(e["t"]), e["ok"])
    return shape, entries


def _rows_on_disk(path: Path, shape: tuple[int, ...]) -> int:
    return path.stat().st_size // (int(np.prod(shape)) * 4) if path.exists() else 0
