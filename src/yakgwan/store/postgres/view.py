"""The query-time view of one generation of a PostgreSQL collection: chunk records and row
lengths in memory, BM25 from the stored postings, dense search through pgvector's HNSW index.

BM25 is the local backend's Lucene variant (``yakgwan.retrieval.scoring.bm25``) with the same
floating-point operations in the same order, so the scores are the local ones exactly. A query
reads the postings of its rarest terms first and stops when no other row can enter the top k
(MaxScore, ``lexical.py``); the weights and sums are then computed by the local backend's own
functions. A query whose postings to read pass ``POSTINGS_BUDGET`` (or a generation that holds
one chunk twice) is scored in SQL instead, with the same steps:

    idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))          numpy's log1p, in Python
    avgdl       = total length / N                                   in Python
    s(t, d)     = float32( idf(t) * tf / (tf + k1 * ((1 - b) + b * |d| / avgdl)) )   in SQL, float8 then real
    score(q, d) = float32( sum over query terms, repeats counted, of s(t, d) )       summed in float8

Dense search: ``SET LOCAL hnsw.ef_search``, the nearest vectors by inner product from the
HNSW index (over-fetched, since the table also holds the previous generation's vectors), kept
when the generation holds them; the scores are then the float32 dot products of the fetched
vectors with the query, as the local backend computes them. A generation with at most
``exact_rows`` embedded rows (a parameter of the URI) is scanned exactly instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Sequence

import numpy as np
from psycopg import sql

from yakgwan.core.errors import IndexStoreError, VersionGone
from yakgwan.core.records import Chunk
from yakgwan.retrieval.scoring.bm25 import B, K1, lucene_idf
from yakgwan.store.base import DocRecord, chunk_from_json
from yakgwan.store.postgres import schema as ddl
from yakgwan.store.postgres.lexical import Postings, Query, maxscore_top_k
from yakgwan.store.postgres.location import PgLocation


MAX_EF = 1000  # pgvector's largest hnsw.ef_search
POSTINGS_BUDGET = 5_000_000  # postings a MaxScore search reads before SQL scores the query instead (about 150 MB read)
PACKED = np.dtype([("slot", ">i8"), ("tf", ">i4")])  # int8send(slot) || int4send(tf)
PROBE_COST = 20  # reading a word's postings for some rows probes the index per row when rows x this < the word's postings


def posting_term(term: str) -> str:
    """A token as stored in ``postings`` (PostgreSQL text cannot hold NUL; both the stored and
    the queried terms go through this). Pure."""
    return term.replace("\x00", "\ufffd") if "\x00" in term else term


def as_array(value: Any) -> np.ndarray:
    """A ``vector`` value as read through pgvector's adapter, as float32."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


@dataclass
class Snapshot:
    """What one generation says about itself (read inside one transaction)."""

    where: PgLocation
    gen: int
    tokenizer: str
    embedder: str
    dim: int
    extra: dict[str, object]
    docs: dict[str, DocRecord]
    n_rows: int
    total_len: int
    dense_mask: np.ndarray
    vec_ids: np.ndarray  # the vector id of each row (0 where none)
    slot_ids: np.ndarray  # the slot of each row

    def t(self, table: str) -> Any:
        return ddl.ident(self.where.schema, table)

    @classmethod
    def load(cls, cur: Any, where: PgLocation, gen: int) -> "Snapshot":
        cur.execute(sql.SQL("SELECT tokenizer, embedder, dim, extra, docs, n_rows, total_len FROM {} WHERE gen = %s").format(
            ddl.ident(where.schema, "generations")), (gen,))
        row = cur.fetchone()
        if row is None:
            raise VersionGone(f"{where.display()}: generation g{gen:08d} is no longer kept; open the index again")
        tokenizer, embedder, dim, extra, docs, n_rows, total_len = row
        cur.execute(sql.SQL("SELECT row, slot, coalesce(vec, 0) FROM {} WHERE gen = %s").format(ddl.ident(where.schema, "members")), (gen,))
        table = np.array(cur.fetchall(), dtype=np.int64).reshape(-1, 3)
        vec_ids, slot_ids = np.zeros(int(n_rows), dtype=np.int64), np.zeros(int(n_rows), dtype=np.int64)
        vec_ids[table[:, 0]], slot_ids[table[:, 0]] = table[:, 2], table[:, 1]
        return cls(where, gen, tokenizer, embedder, int(dim), dict(json.loads(extra)),
                   {k: DocRecord(**v) for k, v in json.loads(docs).items()}, int(n_rows), int(total_len), vec_ids > 0, vec_ids, slot_ids)

    def load_rows(self, cur: Any) -> tuple[list[Chunk], np.ndarray]:
        """Every row's chunk and its length in tokens."""
        cur.execute(sql.SQL("SELECT s.chunk, s.length FROM {} m JOIN {} s USING (slot) WHERE m.gen = %s ORDER BY m.row").format(
            self.t("members"), self.t("slots")), (self.gen,))
        rows = cur.fetchall()
        return [chunk_from_json(json.loads(r[0])) for r in rows], np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))

    def all_vectors(self, cur: Any) -> np.ndarray:
        """Every row's vector (zero rows where none), as ``IndexData.vectors``."""
        out = np.zeros((self.n_rows, self.dim), dtype=np.float32)
        if self.dense_mask.any():
            cur.execute(sql.SQL("SELECT m.row, v.embedding FROM {} m JOIN {} v ON v.vec = m.vec WHERE m.gen = %s").format(
                self.t("members"), self.t(ddl.vector_table(self.dim))), (self.gen,))
            for r, emb in cur.fetchall():
                out[int(r)] = as_array(emb)
        return out


class SlotRows:
    """The row of each slot in one version (-1 for a slot the version does not hold): a table
    indexed by slot id while ids are dense enough, else a search in the sorted ids."""

    def __init__(self, slot_ids: np.ndarray) -> None:
        top = int(slot_ids.max()) + 1 if slot_ids.size else 0
        self.table: np.ndarray | None = None
        if top <= 4 * slot_ids.size + 100_000:  # at most 8 bytes x (4 n + 100,000)
            self.table = np.full(top + 1, -1, dtype=np.int64)
            self.table[slot_ids] = np.arange(slot_ids.size, dtype=np.int64)
        order = np.argsort(slot_ids, kind="stable")
        self.sorted, self.rows = slot_ids[order], order.astype(np.int64)

    def __call__(self, slots: np.ndarray) -> np.ndarray:
        if self.table is not None:
            return self.table[np.minimum(slots, self.table.size - 1)]
        if not self.sorted.size:
            return np.full(slots.size, -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.sorted, slots), self.sorted.size - 1)
        return np.where(self.sorted[at] == slots, self.rows[at], -1)


class PgView:
    def __init__(self, where: PgLocation, snap: Snapshot, chunks: list[Chunk], lengths: np.ndarray,
                 connect: Callable[[], ContextManager[Any]]) -> None:
        self.where = where
        self.snap = snap
        self.chunks = chunks
        self.lengths = lengths
        # each slot's row (-1: not in this version), for mapping postings back to rows; a slot
        # held by two rows (the same chunk twice) cannot map back to one row: SQL scores those versions
        self._rows_of = SlotRows(snap.slot_ids)
        self._maxscore = bool(np.unique(snap.slot_ids).size == snap.slot_ids.size)
        self.docs = snap.docs
        self.tokenizer = snap.tokenizer
        self.embedder = snap.embedder
        self.ingest_steps = tuple(str(x) for x in snap.extra.get("ingest_steps", []))  # type: ignore[union-attr]
        self._connect = connect
        self._vectors: np.ndarray | None = None

    @property
    def dense_ready(self) -> bool:
        return bool(len(self.chunks)) and bool(self.snap.dense_mask.all())

    @property
    def dense_embedded(self) -> int:
        return int(self.snap.dense_mask.sum())

    @property
    def dense_mask(self) -> np.ndarray:
        return self.snap.dense_mask

    @property
    def vectors(self) -> np.ndarray:
        """Every row's vector, read from the database when first asked."""
        if self._vectors is None:
            with self._connect() as conn, conn.cursor() as cur:
                self._check_kept(cur)
                self._vectors = self.snap.all_vectors(cur)
        return self._vectors

    def lexical_search(self, query_tokens: list[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        if k <= 0:
            raise ValueError(f"k must be greater than 0. Currently, it is {k}")
        terms = [posting_term(t) for t in query_tokens]
        if not terms or self.snap.n_rows == 0 or (rows is not None and len(rows) == 0):
            return []
        with self._connect() as conn, conn.cursor() as cur:
            cur.execute(sql.SQL("SELECT term, df FROM {} WHERE gen = %s AND term = ANY(%s)").format(self.snap.t("df")), (self.snap.gen, list(set(terms))))
            df = dict(cur.fetchall())
            found = [t for t in terms if t in df]
            if not found:
                self._check_kept(cur)
                return []
            n = self.snap.n_rows
            if self._maxscore:
                query = Query(tuple(found), df, n, self.lengths, self.snap.total_len / n)
                allowed = None if rows is None else np.unique(np.asarray(rows, dtype=np.int64))
                hits = maxscore_top_k(query, k, lambda ts, rs: self._postings(cur, ts, rs, df), allowed, POSTINGS_BUDGET)
                if hits is not None:
                    self._check_kept(cur)  # several reads: the version must still be kept after the last one
                    return hits
            uniq = sorted(set(found))
            counts = [found.count(t) for t in uniq]
            dfs = np.array([df[t] for t in uniq], dtype=np.int64)
            idf = lucene_idf(dfs, n)
            only = sql.SQL(" AND m.row = ANY(%(rows)s)") if rows is not None else sql.SQL("")
            cur.execute(sql.SQL(
                "WITH q AS (SELECT * FROM unnest(%(terms)s::text[], %(idf)s::float8[], %(mult)s::int[]) AS q(term, idf, mult)), "
                "scored AS (SELECT m.row, sum(((q.idf * p.tf) / (p.tf + %(k1)s * (%(one_minus_b)s + (%(b)s * s.length) / %(avgdl)s)))::real::float8 * q.mult) AS total "
                "FROM q JOIN {postings} p ON p.term = q.term JOIN {members} m ON m.slot = p.slot AND m.gen = %(gen)s{only} "
                "JOIN {slots} s ON s.slot = p.slot GROUP BY m.row) "
                "SELECT row, total FROM scored WHERE total::real > 0 ORDER BY total::real DESC, row LIMIT %(k)s").format(
                postings=self.snap.t("postings"), members=self.snap.t("members"), slots=self.snap.t("slots"), only=only),
                {"terms": uniq, "idf": [float(x) for x in idf], "mult": counts, "k1": float(K1), "b": float(B),
                 "one_minus_b": 1.0 - float(B), "avgdl": float(self.snap.total_len / n), "gen": self.snap.gen, "k": int(k),
                 "rows": [int(r) for r in rows] if rows is not None else None})
            hits = [(int(r), float(np.float32(s))) for r, s in cur.fetchall()]  # float8 sum to float32, as the local index casts it
            if not hits:
                self._check_kept(cur)  # a pruned version finds nothing: say so rather than return nothing
            return hits

    def _postings(self, cur: Any, terms: Sequence[str], rows: np.ndarray | None, df: dict[str, int]) -> Postings:
        """The postings of ``terms`` (indices into it) in this generation's rows, or in ``rows``:
        a word's whole list (one index range), or, for few rows against a long list, a probe of
        the index per row."""
        parts = []
        for i, term in enumerate(terms):
            # one row back: each posting's slot and term frequency packed as big-endian int8 and
            # int4 bytes (no per-row transfer)
            packed = sql.SQL("SELECT string_agg(int8send(p.slot) || int4send(p.tf), ''::bytea) ")
            if rows is not None and len(rows) * PROBE_COST < df[term]:
                cur.execute(packed + sql.SQL("FROM unnest(%s::int8[]) AS s(slot) JOIN {} p ON p.term = %s AND p.slot = s.slot").format(
                    self.snap.t("postings")), (self.snap.slot_ids[rows].tolist(), term))
            else:
                cur.execute(packed + sql.SQL("FROM {} p WHERE p.term = %s").format(self.snap.t("postings")), (term,))
            packed_rows = np.frombuffer(cur.fetchone()[0] or b"", dtype=PACKED)
            row = self._rows_of(packed_rows["slot"].astype(np.int64))
            held = row >= 0  # postings of chunks only other versions hold are not this version's
            row, tf = row[held], packed_rows["tf"].astype(np.int64)[held]
            if rows is not None:
                wanted = np.zeros(self.snap.n_rows, dtype=bool)
                wanted[rows] = True
                sel = wanted[row]
                row, tf = row[sel], tf[sel]
            parts.append(Postings(np.full(row.size, i, dtype=np.int64), row, tf))
        if not parts:
            return Postings.empty()
        return Postings(*(np.concatenate([getattr(x, f) for x in parts]) for f in ("term", "row", "tf")))

    def dense_search(self, query_vector: np.ndarray, k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        if k <= 0:
            raise ValueError(f"k must be greater than 0. Currently, it is {k}")
        allowed = None if rows is None else [int(r) for r in rows]
        embedded = self.dense_embedded if allowed is None else int(self.snap.dense_mask[np.asarray(allowed, dtype=np.int64)].sum())
        if embedded == 0:
            return []
        q = np.asarray(query_vector, dtype=np.float32)
        qtext = "[" + ",".join(repr(float(x)) for x in q.tolist()) + "]"
        with self._connect() as conn, conn.cursor() as cur:
            found = None
            if embedded > self.where.exact_rows and np.any(q) and ddl.indexed(self.snap.dim):
                found = self._hnsw(conn, cur, qtext, k, embedded, allowed)
            if found is None:
                found = self._exact(cur, qtext, 2 * k, allowed)
            if not found:
                self._check_kept(cur)  # a pruned version finds nothing: say so rather than return nothing
                return []
        rows_found = np.array([int(r) for r, _ in found], dtype=np.int64)
        scores = np.stack([as_array(e) for _, e in found]) @ q
        order = np.lexsort((rows_found, -scores))[:k]
        return [(int(rows_found[i]), float(scores[i])) for i in order]

    def _exact(self, cur: Any, qtext: str, limit: int, allowed: list[int] | None) -> list[tuple[int, Any]]:
        only = sql.SQL(" AND m.row = ANY(%(rows)s)") if allowed is not None else sql.SQL("")
        cur.execute(sql.SQL("SELECT m.row, v.embedding FROM {} m JOIN {} v ON v.vec = m.vec WHERE m.gen = %(gen)s{} "
                            "ORDER BY v.embedding <#> %(q)s::vector, m.row LIMIT %(limit)s").format(
            self.snap.t("members"), self.snap.t(ddl.vector_table(self.snap.dim)), only),
            {"gen": self.snap.gen, "q": qtext, "limit": limit, "rows": allowed})
        return cur.fetchall()

    def _hnsw(self, conn: Any, cur: Any, qtext: str, k: int, embedded: int, allowed: list[int] | None) -> list[tuple[int, Any]] | None:
        """This generation's (allowed) rows among the nearest vectors of the HNSW index,
        fetching more while fewer than ``k`` are; None when even ``MAX_EF`` candidates hold too
        few (a narrow filter: the exact scan answers)."""
        want, fetch = min(k, embedded), max(2 * k, 40)
        only = sql.SQL(" AND m.row = ANY(%(rows)s)") if allowed is not None else sql.SQL("")
        while True:
            with conn.transaction():
                cur.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(min(MAX_EF, max(self.where.ef_search, fetch)))))
                cur.execute(sql.SQL("WITH near AS (SELECT vec, embedding FROM {} ORDER BY embedding <#> %(q)s::vector LIMIT %(fetch)s) "
                                    "SELECT m.row, near.embedding FROM near JOIN {} m ON m.vec = near.vec AND m.gen = %(gen)s{}").format(
                    self.snap.t(ddl.vector_table(self.snap.dim)), self.snap.t("members"), only),
                    {"q": qtext, "fetch": fetch, "gen": self.snap.gen, "rows": allowed})
                found = cur.fetchall()
            if len(found) >= want:
                return found
            if fetch >= MAX_EF:
                return None
            fetch = min(MAX_EF, fetch * 4)

    def _check_kept(self, cur: Any) -> None:
        cur.execute(sql.SQL("SELECT 1 FROM {} WHERE gen = %s").format(self.snap.t("generations")), (self.snap.gen,))
        if cur.fetchone() is None:
            raise VersionGone(f"{self.where.display()}: generation g{self.snap.gen:08d} is no longer kept; open the index again")
