"""A SQLite file shared by concurrent processes (WAL journal, 30 s busy timeout)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def open_shared_db(path: Path, schema: str) -> sqlite3.Connection:
    """Connect to ``path`` (creating its folder), switch to WAL and run ``schema`` (idempotent DDL)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(schema)
    return conn


class SharedDb:
    """A cache file opened on first use with ``schema`` (a subclass's one table) and closed on
    request; what the machine's caches (embeddings, tokens, LLM responses) share."""

    schema = ""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = open_shared_db(self.path, self.schema)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
