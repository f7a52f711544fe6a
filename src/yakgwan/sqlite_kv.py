"""Open a SQLite file shared by concurrent processes (WAL journal, 30 s busy timeout)."""

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
