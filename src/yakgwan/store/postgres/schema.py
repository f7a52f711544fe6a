"""The tables of one collection (one PostgreSQL schema, ``yk_<collection>``).

A committed index is a *generation*: its chunk rows in order (``members``), each pointing at a
*slot* (a chunk with its tokens, stored once however many generations hold it) and, when
embedded, at a *vector* (stored once per distinct vector, in the table of its dimension, which
carries an HNSW index). A commit writes only the slots and vectors that are new, the
generation's row list and its document frequencies, and moves ``state.current`` — one
transaction, so readers see the old generation or the new one. The generation before the
current one is kept (``state.previous``) for ``Store.restore`` and for readers that opened it a
moment ago; older ones are deleted with the slots and vectors nothing else holds.

    state(id = 1, seq, current, previous)
    generations(gen, tokenizer, embedder, dim, extra, docs, n_rows, total_len)
    slots(slot, key, chunk, tokens, length)          key = sha256 of chunk and tokens
    postings(term, slot, tf)                          the BM25 postings of each slot, keyed (term, slot) with tf
    members(gen, row, slot, vec)                      row order = IndexData row order
    df(gen, term, df)                                 document frequencies per generation
    vectors_<dim>(vec, key, embedding vector(dim))    key = sha256 of the float32 bytes; HNSW (inner product) up to 2000-d
"""

from __future__ import annotations

from typing import Any

from psycopg import sql


def ident(schema: str, table: str) -> Any:
    return sql.Identifier(schema, table)


def create_statements(schema: str) -> list[Any]:
    """Idempotent DDL of a collection's tables (not the per-dimension vector tables)."""
    s = sql.Identifier(schema)
    return [
        sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(s),
        sql.SQL("CREATE TABLE IF NOT EXISTS {}.state (id int PRIMARY KEY CHECK (id = 1), seq bigint NOT NULL, current bigint, previous bigint)").format(s),
        sql.SQL("CREATE TABLE IF NOT EXISTS {}.generations (gen bigint PRIMARY KEY, tokenizer text NOT NULL, embedder text NOT NULL, dim int NOT NULL, "
                "extra text NOT NULL, docs text NOT NULL, n_rows int NOT NULL, total_len bigint NOT NULL)").format(s),
        sql.SQL("CREATE TABLE IF NOT EXISTS {}.slots (slot bigserial PRIMARY KEY, key bytea NOT NULL UNIQUE, chunk text NOT NULL, "
                "tokens text NOT NULL, length int NOT NULL)").format(s),
        # the key carries tf, so a word's postings are read from the index alone (an index-only
        # scan once VACUUM has marked the pages visible), not from rows scattered over the table
        sql.SQL("CREATE TABLE IF NOT EXISTS {}.postings (term text NOT NULL, slot bigint NOT NULL, tf int NOT NULL, "
                "PRIMARY KEY (term, slot) INCLUDE (tf))").format(s),
        sql.SQL("CREATE INDEX IF NOT EXISTS postings_slot ON {}.postings (slot)").format(s),
        sql.SQL("CREATE TABLE IF NOT EXISTS {}.members (gen bigint NOT NULL, row int NOT NULL, slot bigint NOT NULL, vec bigint, PRIMARY KEY (gen, row))").format(s),
        sql.SQL("CREATE INDEX IF NOT EXISTS members_slot ON {}.members (gen, slot)").format(s),
        sql.SQL("CREATE INDEX IF NOT EXISTS members_vec ON {}.members (gen, vec)").format(s),
        sql.SQL("CREATE TABLE IF NOT EXISTS {}.df (gen bigint NOT NULL, term text NOT NULL, df int NOT NULL, PRIMARY KEY (gen, term))").format(s),
        sql.SQL("INSERT INTO {}.state (id, seq) VALUES (1, 0) ON CONFLICT (id) DO NOTHING").format(s),
    ]


def covering_statements(schema: str, cur: Any) -> list[Any]:
    """For a collection whose postings key does not carry tf yet (made by an earlier
    version): the index that does. Empty when the key carries it."""
    cur.execute("SELECT i.indnatts > i.indnkeyatts FROM pg_index i WHERE i.indrelid = to_regclass(%s) AND i.indisprimary",
                (f'"{schema}".postings',))
    row = cur.fetchone()
    if row is None or row[0]:
        return []
    return [sql.SQL("CREATE INDEX IF NOT EXISTS postings_cover ON {}.postings (term, slot) INCLUDE (tf)").format(sql.Identifier(schema))]


def vector_table(dim: int) -> str:
    return f"vectors_{int(dim)}"


HNSW_MAX_DIM = 2000  # pgvector's HNSW indexes vectors of at most this many dimensions


def indexed(dim: int) -> bool:
    """Whether vectors of ``dim`` dimensions get an HNSW index (else every search scans them)."""
    return int(dim) <= HNSW_MAX_DIM


def create_vector_statements(schema: str, dim: int) -> list[Any]:
    """The table of ``dim``-dimensional vectors and, where pgvector can build one, its HNSW
    index by inner product (the dot product the folder backend ranks by; the cosine for the
    unit vectors every embedder here gives)."""
    table = ident(schema, vector_table(dim))
    statements = [
        sql.SQL("CREATE TABLE IF NOT EXISTS {} (vec bigserial PRIMARY KEY, key bytea NOT NULL UNIQUE, embedding vector({}) NOT NULL)").format(
            table, sql.Literal(int(dim))),
    ]
    if indexed(dim):
        statements.append(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (embedding vector_ip_ops)").format(
            sql.Identifier(f"{vector_table(dim)}_hnsw"), table))
    return statements
