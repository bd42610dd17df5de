"""Answers kept durably in SQLite, one row per (item set, participant, item).

Each answer is committed as it arrives (WAL journal, synchronous=FULL), so a
closed browser or a restarted server loses nothing, and a participant continues
where they stopped. Every statement is parameterised: nothing a request sends is
ever pasted into SQL.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

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


class AnswerStore:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except (sqlite3.DatabaseError, OSError) as err:
            raise DataError(f"cannot use {self.path} as the answer database ({err}); pass --db with a new or "
                            "existing lexprobe answer file in a writable folder") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    def add_item_set(self, item_set: dict) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO item_sets (set_id, benchmark, body, created) VALUES (?, ?, ?, ?)",
                (item_set["set_id"], item_set["benchmark"], json.dumps(item_set, ensure_ascii=False), time.time()),
            )

    def item_sets(self) -> list[dict]:
        rows = self._db.execute("SELECT body FROM item_sets ORDER BY created").fetchall()
        return [json.loads(body) for (body,) in rows]

    def save_answer(self, set_id: str, participant: str, item_id: str, answer: Any) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO answers (set_id, participant, item_id, answer, answered_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (set_id, participant, item_id) DO UPDATE SET answer = excluded.answer, "
                "answered_at = excluded.answered_at",
                (set_id, participant, item_id, json.dumps(answer, ensure_ascii=False), time.time()),
            )

    def answers(self, set_id: str, participant: str | None = None) -> dict[str, dict[str, Any]]:
        """{participant: {item_id: answer}}."""
        sql = "SELECT participant, item_id, answer FROM answers WHERE set_id = ?"
        params: tuple = (set_id,)
        if participant is not None:
            sql += " AND participant = ?"
            params += (participant,)
        out: dict[str, dict[str, Any]] = {}
        for who, item_id, answer in self._db.execute(sql + " ORDER BY answered_at", params):
            out.setdefault(who, {})[item_id] = json.loads(answer)
        return out
