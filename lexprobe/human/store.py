"""Answers kept durably in SQLite, one row per (item set, participant, item).

Each answer is committed as it arrives (WAL journal, synchronous=FULL, its own
``BEGIN IMMEDIATE`` transaction), so a closed browser or a restarted server loses
nothing, and a participant continues where they stopped; a write that fails raises
``StoreError`` and the server answers 503: no answer is acknowledged before it is
committed. A writable store locks ``<db>.lock`` for its lifetime (``locks.take_lock``), so a second
``human serve`` on the same file stops at once with one line, and waits up to
``BUSY_TIMEOUT_S`` for readers. Every statement is parameterised: nothing a request
sends is ever pasted into SQL.

``human score`` opens the file read-only (``read_only=True``). Either way a file
that is not a lexprobe answer store (other tables, other columns) is refused before
anything is written to it, and what is read back is checked: an item set whose
``set_id`` no longer matches its content, an answer the page could not have sent,
or a participant code the page would refuse is a one-line ``DataError``.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lexprobe.core.registry import get, names
from lexprobe.errors import DataError

SCHEMA = """
CREATE TABLE IF NOT EXISTS item_sets (
    set_id TEXT PRIMARY KEY,
    benchmark TEXT NOT NULL,
    body TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS answers (
    set_id TEXT NOT NULL REFERENCES item_sets(set_id),
    participant TEXT NOT NULL,
    item_id TEXT NOT NULL,
    answer TEXT NOT NULL,
    answered_at REAL NOT NULL,
    PRIMARY KEY (set_id, participant, item_id)
);
"""
_ITEM_KEYS = {"choice": ("id", "task", "pos", "prompt", "options", "answer", "target", "word"),
              "align": ("id", "pos", "contexts", "definitions", "answer", "definition_order", "synsets", "ancestor",
                        "relation")}
TABLES = {"item_sets": ["set_id", "benchmark", "body", "created"],
          "answers": ["set_id", "participant", "item_id", "answer", "answered_at"]}
PARTICIPANT = re.compile(r"[A-Za-z0-9_-]{1,40}")  # used with fullmatch: "p1\n" is not p1
BUSY_TIMEOUT_S = 10.0
_FIX = "pass the --db of `lexprobe human serve` (or a new file for a new study)"


class StoreError(DataError):
    """An answer could not be committed (the server answers 503; the page says 'not saved')."""


def valid_participant(value: Any) -> bool:
    return isinstance(value, str) and PARTICIPANT.fullmatch(value) is not None


def human_item_kind(benchmark: Any) -> str | None:
    """The page's item kind of a registered benchmark's items (``Benchmark.human.kind``); None when
    ``benchmark`` is not a registered name or has no human items (a stored set naming it was not ours)."""
    if not isinstance(benchmark, str) or benchmark not in names():
        return None
    human = get(benchmark).human
    return None if human is None else human.kind


def _well_formed(item: dict, benchmark: str) -> bool:
    """The fields scoring reads are there, with the types it expects, and the gold answer is an answer."""
    from lexprobe.core.human_items import AnswerError, check_answer

    kind = human_item_kind(benchmark)
    if kind is None or item.get("kind") != kind or not all(k in item for k in _ITEM_KEYS[kind]):
        return False
    try:
        if kind == "choice":
            ok = item["task"] in get(benchmark).meta.tasks and all(
                isinstance(o, dict) and all(isinstance(o.get(k), str) for k in ("label", "text", "synset"))
                for o in item["options"])
        else:
            k = len(item["contexts"])
            ok = (all(isinstance(c, str) for c in item["contexts"]) and len(item["definitions"]) == k
                  and all(isinstance(d, dict) and isinstance(d.get("label"), str) for d in item["definitions"])
                  and sorted(item["definition_order"]) == list(range(k)) and len(item["synsets"]) == k)
        return ok and check_answer(item, item["answer"]) is not None
    except (AnswerError, TypeError, KeyError, AttributeError):
        return False


class AnswerStore:
    def __init__(self, path: str | Path, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self._lock_file: Any = None
        self._lock = threading.Lock()
        if read_only:
            if not self.path.is_file():
                raise DataError(f"answer database {self.path} not found; {_FIX}")
            self._db = self._connect(f"file:{quote(str(self.path.resolve()))}?mode=ro", uri=True)
            self._check_schema(required=True)
            return
        from lexprobe.outputs import check_not_inputs

        check_not_inputs({"--db": self.path})  # never inside the data directory
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise DataError(f"cannot use {self.path} as the answer database ({err.strerror or err}); {_FIX}") from None
        self._take_lock()
        if self.path.is_symlink():  # SQLite would write the link's target: outputs are never written through links
            self._release_lock()
            raise DataError(f"{self.path} is a symbolic link; the answer database is never written through a link: "
                            "pass --db with the file itself (or a new file)")
        try:
            self._db = self._connect(str(self.path))
            self._check_schema(required=False)  # before anything is written to a foreign file
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except DataError:
            self._release_lock()
            raise
        except (sqlite3.DatabaseError, OSError) as err:
            self._release_lock()
            raise DataError(f"cannot use {self.path} as the answer database ({err}); pass --db with a new or "
                            "existing lexprobe answer file in a writable folder") from None

    # --- opening ---------------------------------------------------------------------
    def _connect(self, target: str, uri: bool = False) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(target, uri=uri, check_same_thread=False, isolation_level=None,
                                 timeout=BUSY_TIMEOUT_S)
            db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            return db
        except (sqlite3.DatabaseError, OSError) as err:
            raise DataError(f"cannot open the answer database {self.path} ({err}); {_FIX}") from None

    def _check_schema(self, required: bool) -> None:
        try:
            tables = {name for (name,) in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                      if not name.startswith("sqlite_")}
            columns = {t: [row[1] for row in self._db.execute(f"PRAGMA table_info({t})")] for t in TABLES if t in tables}
        except sqlite3.DatabaseError as err:
            self._db.close()
            raise DataError(f"{self.path} is not an SQLite answer database ({err}); {_FIX}") from None
        ours = set(TABLES)
        foreign = sorted(tables - ours)
        wrong = [t for t, cols in columns.items() if cols != TABLES[t]]
        if foreign or wrong or (required and tables != ours) or (tables and tables != ours):
            self._db.close()
            what = f"it has tables {', '.join(sorted(tables))}" if tables else "it holds no answer tables"
            raise DataError(f"{self.path} is not a lexprobe answer database ({what}); nothing was changed in it; {_FIX}")

    def _take_lock(self) -> None:
        """``<db>.lock`` for the store's lifetime (``locks.take_lock``, the one lock of lexprobe)."""
        from lexprobe.errors import OutputBusyError
        from lexprobe.locks import take_lock

        lock = self.path.with_name(self.path.name + ".lock")
        try:
            self._lock_file = take_lock(lock, f"another `lexprobe human serve` is using the answer database "
                                              f"{self.path}; stop it first, or pass another --db")
        except OutputBusyError:
            raise
        except OSError as err:  # a read-only folder, no right to write there, a name too long
            raise DataError(f"cannot use {self.path} as the answer database: its lock file {lock} cannot be "
                            f"created ({err.strerror or err}); pass --db in a folder you can write to") from None

    def _release_lock(self) -> None:
        if self._lock_file is not None:
            lock, self._lock_file = self._lock_file, None
            lock.release()  # the lock file is removed while still held, then let go (never the other way round)

    def close(self) -> None:
        self._db.close()
        self._release_lock()

    # --- writing -----------------------------------------------------------------------
    def _write(self, sql: str, params: tuple) -> None:
        """One statement in its own transaction; returns only once it is committed."""
        if self.read_only:
            raise StoreError(f"{self.path} is open read-only")
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.execute(sql, params)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as err:
                raise StoreError(f"the answer database {self.path} could not store it ({err})") from None

    def add_item_set(self, item_set: dict) -> None:
        self._write("INSERT OR IGNORE INTO item_sets (set_id, benchmark, body, created) VALUES (?, ?, ?, ?)",
                    (item_set["set_id"], item_set["benchmark"], json.dumps(item_set, ensure_ascii=False), time.time()))

    def save_answer(self, set_id: str, participant: str, item_id: str, answer: Any) -> None:
        self._write(
            "INSERT INTO answers (set_id, participant, item_id, answer, answered_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (set_id, participant, item_id) DO UPDATE SET answer = excluded.answer, "
            "answered_at = excluded.answered_at",
            (set_id, participant, item_id, json.dumps(answer, ensure_ascii=False), time.time()),
        )

    # --- reading (checked: the file may have been changed by hand) -----------------------
    def _tampered(self, what: str) -> DataError:
        return DataError(f"{self.path}: {what}; the answer database was changed outside lexprobe: restore it from "
                         "a copy (or score another --db)")

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        try:
            with self._lock:
                return self._db.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as err:
            raise DataError(f"cannot read the answer database {self.path} ({err}); {_FIX}") from None

    def _item_set(self, set_id: Any, benchmark: Any, body: Any) -> dict:
        from lexprobe.cache import stable_hash

        try:
            item_set = json.loads(body)
        except (TypeError, ValueError, RecursionError):
            raise self._tampered(f"the item set {str(set_id)[:40]!r} is not valid JSON") from None
        if not (isinstance(item_set, dict) and item_set.get("set_id") == set_id
                and item_set.get("benchmark") == benchmark and human_item_kind(benchmark) is not None
                and isinstance(item_set.get("items"), list)
                and all(isinstance(it, dict) and isinstance(it.get("id"), str) for it in item_set["items"])):
            raise self._tampered(f"the item set {str(set_id)[:40]!r} is not one `lexprobe human serve` stored")
        content = {k: v for k, v in item_set.items() if k != "set_id"}
        if stable_hash(content, length=len(str(set_id))) != set_id:  # the id is a digest of the items
            raise self._tampered(f"the items of set {set_id} no longer match its id (an item or a gold answer "
                                 "was edited)")
        for item in item_set["items"]:
            if not _well_formed(item, benchmark):
                raise self._tampered(f"item {item['id'][:40]!r} of set {set_id} is not one lexprobe writes")
        if not isinstance(item_set.get("digests"), dict):
            raise self._tampered(f"the item set {set_id} has no digests")
        return item_set

    def item_sets(self) -> list[dict]:
        rows = self._read("SELECT set_id, benchmark, body FROM item_sets ORDER BY created")
        return [self._item_set(*row) for row in rows]

    def answers(self, set_id: str, participant: str | None = None) -> dict[str, dict[str, Any]]:
        """{participant: {item_id: answer}}; each one checked against its item as the server did."""
        from lexprobe.core.human_items import AnswerError, check_answer

        rows = self._read("SELECT benchmark, body FROM item_sets WHERE set_id = ?", (set_id,))
        items = {it["id"]: it for it in self._item_set(set_id, *rows[0])["items"]} if rows else {}
        sql = "SELECT participant, item_id, answer FROM answers WHERE set_id = ?"
        params: tuple = (set_id,)
        if participant is not None:
            sql += " AND participant = ?"
            params += (participant,)
        out: dict[str, dict[str, Any]] = {}
        for who, item_id, answer in self._read(sql + " ORDER BY answered_at", params):
            if not valid_participant(who):
                raise self._tampered(f"participant code {str(who)[:40]!r} is not one the page accepts")
            if item_id not in items:
                raise self._tampered(f"an answer of {who} is to item {str(item_id)[:40]!r}, not in set {set_id}")
            try:
                out.setdefault(who, {})[item_id] = check_answer(items[item_id], json.loads(answer))
            except (TypeError, ValueError, RecursionError, KeyError, AnswerError) as err:
                raise self._tampered(f"the answer of {who} to {item_id} is not one the page could send "
                                     f"({str(err)[:80]})") from None
        return out
