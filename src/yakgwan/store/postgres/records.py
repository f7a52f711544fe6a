"""A table of JSON records keyed by id in a collection's schema (the server keeps its jobs in
one, so that they outlive the process and every server process sharing the database sees them)."""

from __future__ import annotations

import json
from typing import Any

from psycopg import sql

from yakgwan.store.postgres.connection import connection
from yakgwan.store.postgres.location import PgLocation


class PgRecords:
    def __init__(self, where: PgLocation, table: str) -> None:
        if not table.isidentifier() or not table.islower():
            raise ValueError(f"table must be a lowercase identifier. Currently, it is {table!r}")
        self.where = where
        self.table = table
        self._made = False

    def _t(self) -> Any:
        return sql.Identifier(self.where.schema, f"records_{self.table}")

    def _connect(self) -> Any:
        return connection(self.where.conninfo, self.where.display())

    def _make(self, cur: Any) -> None:
        if not self._made:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (self.where.lock_key,))
            cur.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.where.schema)))
            cur.execute(sql.SQL("CREATE TABLE IF NOT EXISTS {} (id text PRIMARY KEY, record text NOT NULL)").format(self._t()))
            self._made = True

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Insert or replace the record ``key`` (one statement: readers see the old or the new)."""
        text = json.dumps(record, ensure_ascii=False)
        with self._connect() as conn, conn.transaction(), conn.cursor() as cur:
            self._make(cur)
            cur.execute(sql.SQL("INSERT INTO {} (id, record) VALUES (%s, %s) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record").format(self._t()),
                        (key, text))

    def put_if(self, key: str, record: dict[str, Any], expect: dict[str, Any] | None) -> bool:
        """Write ``record`` only while ``key`` holds ``expect`` (``None``: no record); compared as
        JSON values, in one statement."""
        text = json.dumps(record, ensure_ascii=False)
        with self._connect() as conn, conn.transaction(), conn.cursor() as cur:
            self._make(cur)
            if expect is None:
                cur.execute(sql.SQL("INSERT INTO {} (id, record) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING").format(self._t()), (key, text))
            else:
                cur.execute(sql.SQL("UPDATE {} SET record = %s WHERE id = %s AND record::jsonb = %s::jsonb").format(self._t()),
                            (text, key, json.dumps(expect, ensure_ascii=False)))
            return bool(cur.rowcount == 1)

    def all(self) -> dict[str, dict[str, Any]]:
        """Every record by key (none when the table was never written)."""
        with self._connect() as conn, conn.cursor() as cur:
            cur.execute("SELECT to_regclass(%s)", (f'"{self.where.schema}"."records_{self.table}"',))
            if cur.fetchone()[0] is None:
                return {}
            cur.execute(sql.SQL("SELECT id, record FROM {}").format(self._t()))
            return {k: json.loads(v) for k, v in cur.fetchall()}

    def get(self, key: str) -> dict[str, Any] | None:
        with self._connect() as conn, conn.cursor() as cur:
            cur.execute("SELECT to_regclass(%s)", (f'"{self.where.schema}"."records_{self.table}"',))
            if cur.fetchone()[0] is None:
                return None
            cur.execute(sql.SQL("SELECT record FROM {} WHERE id = %s").format(self._t()), (key,))
            row = cur.fetchone()
            return json.loads(row[0]) if row else None

    def delete(self, key: str) -> None:
        with self._connect() as conn, conn.transaction(), conn.cursor() as cur:
            self._make(cur)
            cur.execute(sql.SQL("DELETE FROM {} WHERE id = %s").format(self._t()), (key,))
