"""A Store on PostgreSQL with pgvector: one collection of one database (``schema.py`` has the
tables). Every commit is one transaction; writers of a collection take turns on an advisory
lock held for their whole read–plan–commit cycle, so two ingests into one collection both land;
readers read one generation inside one snapshot."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
from collections import Counter
from contextlib import contextmanager
from typing import Any, Callable, ContextManager, Iterator

import numpy as np
from psycopg import sql

from yakgwan.core.errors import IndexStoreError
from yakgwan.messages import msg
from yakgwan.store.base import IndexData, WriterTurns, check_rows, chunk_from_json, chunk_to_json
from yakgwan.store.postgres import schema as ddl
from yakgwan.store.postgres.connection import connection, ensure_extension
from yakgwan.store.postgres.location import PgLocation
from yakgwan.store.postgres.view import PgView, Snapshot, posting_term


BULK_ROWS = 5_000  # a first commit of more vectors than this builds its HNSW index after the rows are in


def generation_name(gen: int) -> str:
    return f"g{gen:08d}"


def _generation_number(name: str) -> int | None:
    if len(name) == 9 and name[0] == "g" and name[1:].isdigit():
        return int(name[1:])
    return None


class PgStore:
    def __init__(self, location: PgLocation) -> None:
        self.where = location
        self._turns = WriterTurns(self._advisory_lock)

    @property
    def location(self) -> str:
        return self.where.display()

    def _connect(self) -> Any:
        return connection(self.where.conninfo, self.location)

    def _t(self, table: str) -> Any:
        return ddl.ident(self.where.schema, table)

    # ---- state ---------------------------------------------------------------------------
    def _state(self, cur: Any) -> tuple[int, int | None, int | None] | None:
        """(seq, current, previous), or None when the collection has no tables."""
        cur.execute("SELECT to_regclass(%s)", (f'"{self.where.schema}".state',))
        if cur.fetchone()[0] is None:
            return None
        cur.execute(sql.SQL("SELECT seq, current, previous FROM {}").format(self._t("state")))
        row = cur.fetchone()
        return (int(row[0]), row[1], row[2]) if row else None

    def exists(self) -> bool:
        return self.generation() is not None

    def generation(self) -> str | None:
        with self._connect() as conn, conn.cursor() as cur:
            state = self._state(cur)
        return generation_name(state[1]) if state and state[1] is not None else None

    # ---- reading -------------------------------------------------------------------------
    @contextmanager
    def _snapshot(self) -> Iterator[tuple[Any, Snapshot]]:
        """A repeatable-read transaction on the current generation (``IndexStoreError`` when
        there is none)."""
        with self._connect() as conn:
            conn.isolation_level = _repeatable_read()
            try:
                with conn.transaction(), conn.cursor() as cur:
                    state = self._state(cur)
                    if state is None or state[1] is None:
                        raise IndexStoreError(msg("pg.no_index", where=str(self.location)))
                    yield cur, Snapshot.load(cur, self.where, state[1])
            finally:
                conn.isolation_level = None

    def read(self) -> IndexData:
        with self._snapshot() as (cur, snap):
            cur.execute(sql.SQL("SELECT m.row, s.chunk, s.tokens FROM {} m JOIN {} s USING (slot) WHERE m.gen = %s ORDER BY m.row").format(
                self._t("members"), self._t("slots")), (snap.gen,))
            rows = cur.fetchall()
            chunks = [chunk_from_json(json.loads(r[1])) for r in rows]
            tokens = [json.loads(r[2]) for r in rows]
            vectors = snap.all_vectors(cur)
        return IndexData(chunks, tokens, snap.docs, snap.tokenizer, snap.embedder, snap.dim, vectors, snap.dense_mask.copy(), snap.extra)

    def view(self) -> PgView:
        with self._snapshot() as (cur, snap):
            chunks, lengths = snap.load_rows(cur)
        return PgView(self.where, snap, chunks, lengths, self._connect)

    # ---- writing -------------------------------------------------------------------------
    def writer(self, on_wait: Callable[[], None] | None = None) -> ContextManager[None]:
        """The collection's write lock: a session advisory lock on a connection held until the
        block ends (other processes and handles wait), and turns for this handle's threads;
        the thread holding it may enter again."""
        return self._turns.writer(on_wait)

    @contextmanager
    def _advisory_lock(self, on_wait: Callable[[], None] | None) -> Iterator[None]:
        with self._connect() as conn, conn.cursor() as cur:
            cur.execute("SELECT pg_try_advisory_lock(%s)", (self.where.lock_key,))
            if not cur.fetchone()[0]:
                if on_wait is not None:
                    on_wait()
                cur.execute("SELECT pg_advisory_lock(%s)", (self.where.lock_key,))
            try:
                yield
            finally:
                with contextlib.suppress(Exception):  # a lost session has lost its lock too; the block's own outcome stands
                    cur.execute("SELECT pg_advisory_unlock(%s)", (self.where.lock_key,))

    def commit(self, data: IndexData) -> None:
        check_rows(self.location, data)  # before anything is written
        rows = _serialise(data)  # an unserialisable index fails here, before the database is touched
        with self.writer():
            with self._connect() as conn:
                ensure_extension(conn)
                with conn.transaction(), conn.cursor() as cur:
                    for statement in ddl.create_statements(self.where.schema) + ddl.create_vector_statements(self.where.schema, data.dim):
                        cur.execute(statement)
                    for statement in ddl.covering_statements(self.where.schema, cur):
                        cur.execute(statement)
                    self._commit(cur, data, rows)
        self._tidy()

    def _tidy(self) -> None:
        """After a commit, outside the write lock: mark the new postings' pages visible, so a
        word's postings are read from the index alone, and refresh the planner's statistics. It
        skips index cleanup (autovacuum does it), so its cost follows the pages just written. The
        commit stands whatever happens here; a failure only leaves reads slower until autovacuum
        runs, so it is not an error of the ingest."""
        with contextlib.suppress(Exception), self._connect() as conn, conn.cursor() as cur:
            cur.execute(sql.SQL("VACUUM (ANALYZE, INDEX_CLEANUP OFF) {}, {}, {}").format(self._t("postings"), self._t("members"), self._t("df")))

    def _commit(self, cur: Any, data: IndexData, rows: "_Rows") -> None:
        state = self._state(cur)
        assert state is not None
        seq, current, _ = state
        gen = seq + 1
        slots = self._slots(cur, rows)
        vecs = self._vectors(cur, data, rows)
        with cur.copy(sql.SQL("COPY {} (gen, row, slot, vec) FROM STDIN").format(self._t("members"))) as copy:
            for i in range(len(data.chunks)):
                copy.write_row((gen, i, slots[rows.keys[i]], vecs.get(i)))
        df = Counter(t for toks in data.tokens for t in {posting_term(x) for x in toks})
        with cur.copy(sql.SQL("COPY {} (gen, term, df) FROM STDIN").format(self._t("df"))) as copy:
            for term, n in df.items():
                copy.write_row((gen, term, n))
        cur.execute(
            sql.SQL("INSERT INTO {} (gen, tokenizer, embedder, dim, extra, docs, n_rows, total_len) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)").format(
                self._t("generations")),
            (gen, data.tokenizer, data.embedder, int(data.dim), rows.extra, rows.docs, len(data.chunks), sum(len(t) for t in data.tokens)),
        )
        cur.execute(sql.SQL("UPDATE {} SET seq = %s, current = %s, previous = %s").format(self._t("state")), (gen, gen, current))
        self._prune(cur, keep=[g for g in (gen, current) if g is not None])

    def _slots(self, cur: Any, rows: "_Rows") -> dict[bytes, int]:
        """The slot of every row's key, inserting (with its postings) the chunks not stored yet."""
        known = self._known(cur, "slots", "slot", list(set(rows.keys)))
        new = {}
        for i, key in enumerate(rows.keys):
            if key not in known and key not in new:
                new[key] = i
        if new:
            cur.execute(sql.SQL("SELECT nextval(pg_get_serial_sequence(%s, 'slot')) FROM generate_series(1, %s)"),
                        (f'"{self.where.schema}".slots', len(new)))
            ids = [int(r[0]) for r in cur.fetchall()]
            with cur.copy(sql.SQL("COPY {} (slot, key, chunk, tokens, length) FROM STDIN").format(self._t("slots"))) as copy:
                for slot, (key, i) in zip(ids, new.items()):
                    copy.write_row((slot, key, rows.chunks[i], rows.tokens[i], rows.lengths[i]))
            with cur.copy(sql.SQL("COPY {} (term, slot, tf) FROM STDIN").format(self._t("postings"))) as copy:
                for slot, i in zip(ids, new.values()):
                    for term, tf in rows.tf(i).items():
                        copy.write_row((term, slot, tf))
            known.update(zip(new, ids))
        return known

    def _vectors(self, cur: Any, data: IndexData, rows: "_Rows") -> dict[int, int]:
        """The vector id of every embedded row, inserting the vectors not stored yet."""
        table = ddl.vector_table(data.dim)
        embedded = [i for i in range(len(data.chunks)) if data.dense_mask[i]]
        keys = {i: rows.vector_key(i) for i in embedded}
        known = self._known(cur, table, "vec", list(set(keys.values())))
        new: dict[bytes, int] = {}
        for i in embedded:
            if keys[i] not in known and keys[i] not in new:
                new[keys[i]] = i
        if new:
            cur.execute("SELECT nextval(pg_get_serial_sequence(%s, 'vec')) FROM generate_series(1, %s)", (f'"{self.where.schema}".{table}', len(new)))
            ids = [int(r[0]) for r in cur.fetchall()]
            cur.execute(sql.SQL("SELECT count(*) FROM {}").format(self._t(table)))
            # into an empty table, building the graph once beats growing it row by row (and no
            # reader of a kept version waits on the dropped index: none has vectors here)
            rebuild = int(cur.fetchone()[0]) == 0 and len(new) > BULK_ROWS and ddl.indexed(data.dim)
            if rebuild:
                cur.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(ddl.ident(self.where.schema, f"{table}_hnsw")))
            with cur.copy(sql.SQL("COPY {} (vec, key, embedding) FROM STDIN WITH (FORMAT BINARY)").format(self._t(table))) as copy:
                copy.set_types(["int8", "bytea", "vector"])
                for vec, (key, i) in zip(ids, new.items()):
                    copy.write_row((vec, key, rows.vectors[i]))
            if rebuild:
                cur.execute("SET LOCAL maintenance_work_mem = '1GB'")
                for statement in ddl.create_vector_statements(self.where.schema, data.dim)[1:]:
                    cur.execute(statement)
            known.update(zip(new, ids))
        return {i: known[keys[i]] for i in embedded}

    def _known(self, cur: Any, table: str, id_column: str, keys: list[bytes]) -> dict[bytes, int]:
        if not keys:
            return {}
        cur.execute(sql.SQL("SELECT key, {} FROM {} WHERE key = ANY(%s)").format(sql.Identifier(id_column), self._t(table)), (keys,))
        return {bytes(k): int(v) for k, v in cur.fetchall()}

    def _prune(self, cur: Any, keep: list[int]) -> None:
        """Delete generations not in ``keep``, then the slots, postings and vectors no kept
        generation holds."""
        for table in ("members", "df", "generations"):
            cur.execute(sql.SQL("DELETE FROM {} WHERE NOT (gen = ANY(%s))").format(self._t(table)), (keep,))
        cur.execute(sql.SQL("CREATE TEMP TABLE IF NOT EXISTS yk_gone (slot bigint) ON COMMIT DROP"))
        cur.execute(sql.SQL("INSERT INTO yk_gone SELECT slot FROM {} s WHERE NOT EXISTS (SELECT 1 FROM {} m WHERE m.slot = s.slot)").format(
            self._t("slots"), self._t("members")))
        cur.execute(sql.SQL("DELETE FROM {} p USING yk_gone g WHERE p.slot = g.slot").format(self._t("postings")))
        cur.execute(sql.SQL("DELETE FROM {} s USING yk_gone g WHERE s.slot = g.slot").format(self._t("slots")))
        cur.execute("DROP TABLE yk_gone")
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s AND tablename LIKE 'vectors\\_%%'", (self.where.schema,))
        for (table,) in cur.fetchall():
            cur.execute(sql.SQL("DELETE FROM {} v WHERE NOT EXISTS (SELECT 1 FROM {} m WHERE m.vec = v.vec AND m.gen IN "
                                "(SELECT gen FROM {} WHERE dim = %s))").format(self._t(table), self._t("members"), self._t("generations")),
                        (int(table.split("_", 1)[1]),))

    def restore(self, generation: str | None) -> None:
        with self.writer(), self._connect() as conn, conn.transaction(), conn.cursor() as cur:
            state = self._state(cur)
            if generation is None:  # as before the first commit: no tables at all
                if state is not None:
                    cur.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(self.where.schema)))
                return
            gen = _generation_number(generation)
            if state is None or gen is None or gen not in (state[1], state[2]):
                raise IndexStoreError(msg("index.gone", where=str(self.location), generation=repr(generation)))
            # the sequence goes on: the next commit gets a number no reader has seen
            cur.execute(sql.SQL("UPDATE {} SET current = %s, previous = %s").format(self._t("state")),
                        (gen, state[1] if state[1] != gen else state[2]))


class _Rows:
    """An ``IndexData`` serialised for the database: each row's chunk and tokens as JSON, its
    slot key, and its vector's bytes."""

    def __init__(self, data: IndexData) -> None:
        self.chunks = [chunk_to_json(c) for c in data.chunks]
        self.tokens = [json.dumps(t, ensure_ascii=False) for t in data.tokens]
        self.lengths = [len(t) for t in data.tokens]
        self.keys = [hashlib.sha256(f"{c}\n{t}".encode("utf-8", "surrogatepass")).digest() for c, t in zip(self.chunks, self.tokens)]
        self.vectors = np.ascontiguousarray(data.vectors, dtype=np.float32)
        self._tokens = data.tokens
        self.docs = json.dumps({k: dataclasses.asdict(v) for k, v in data.docs.items()}, ensure_ascii=False)
        self.extra = json.dumps(data.extra, ensure_ascii=False)

    def tf(self, i: int) -> Counter[str]:
        return Counter(posting_term(t) for t in self._tokens[i])

    def vector_key(self, i: int) -> bytes:
        return hashlib.sha256(self.vectors[i].tobytes()).digest()


def _serialise(data: IndexData) -> _Rows:
    try:
        return _Rows(data)
    except (TypeError, ValueError) as exc:
        raise IndexStoreError(msg("pg.cannot_store", why=str(exc))) from None


def _repeatable_read() -> Any:
    from psycopg import IsolationLevel

    return IsolationLevel.REPEATABLE_READ
