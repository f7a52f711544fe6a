"""Late interaction (ColBERT-style MaxSim) over the bundled e5 encoder's token outputs, as a
reranker of the first stage's top ``depth`` hits.

score(q, d) = sum over the query's tokens of the largest cosine similarity with any token of d.
No ColBERT-trained model ships in a PyPI package that this project could find, so the token
vectors are e5-small's last hidden states (a model trained for mean pooling): this measures what
MaxSim over those gives. Chunk token vectors are computed once and kept (float16) in
``late-tokens.sqlite`` under the cache folder: that file is the method's index, and its size is
what it costs (``TokenVectorCache.size_bytes``).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from yakgwan.core.errors import YakgwanError
from yakgwan.core.records import Hit, sha256_hex
from yakgwan.rerank.sources import RerankerSources
from yakgwan.retrieval.hit_lists import at_rank
from yakgwan.sqlite_kv import open_shared_db
from yakgwan.messages import msg

LATE_DEPTH = 30


def maxsim(q: np.ndarray, d: np.ndarray) -> float:
    """Sum over the rows of ``q`` of the largest dot product with a row of ``d``."""
    if q.size == 0 or d.size == 0:
        return 0.0
    return float((q @ d.T).max(axis=1).sum())


@dataclass
class TokenVectorCache:
    path: Path
    _conn: sqlite3.Connection | None = field(default=None, repr=False)

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = open_shared_db(self.path, "CREATE TABLE IF NOT EXISTS tok (model TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL,"
                                                   " data BLOB NOT NULL, PRIMARY KEY (model, key))")
        return self._conn

    def get(self, model: str, texts: Sequence[str]) -> list[np.ndarray | None]:
        db = self._db()
        out: list[np.ndarray | None] = []
        for t in texts:
            row = db.execute("SELECT n, data FROM tok WHERE model = ? AND key = ?", (model, sha256_hex(t))).fetchone()
            out.append(np.frombuffer(row[1], dtype=np.float16).reshape(row[0], -1).astype(np.float32) if row else None)
        return out

    def put(self, model: str, texts: Sequence[str], vectors: Sequence[np.ndarray]) -> None:
        db = self._db()
        with db:
            db.executemany("INSERT OR REPLACE INTO tok (model, key, n, data) VALUES (?, ?, ?, ?)",
                           [(model, sha256_hex(t), v.shape[0], v.astype(np.float16).tobytes()) for t, v in zip(texts, vectors)])

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())


@dataclass
class LateInteractionReranker:
    """``encoder`` gives token vectors (:meth:`E5Numpy.token_vectors`)."""

    encoder: object
    cache: TokenVectorCache | None = None
    _shapes: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)  # chunk text hash -> (tokens, dim)

    def built(self) -> dict:
        """What the token vectors of the chunks reranked so far take, as the cache stores them
        (float16): the late-interaction index of the chunks this run has seen."""
        tokens = sum(n for n, _ in self._shapes.values())
        size = sum(n * d * 2 for n, d in self._shapes.values())
        return {"structure": "token vectors (float16)", "chunks": len(self._shapes), "tokens": tokens, "bytes": size, "mb": round(size / 2**20, 2)}

    def rerank(self, query: str, hits: Sequence[Hit], k: int) -> list[Hit]:
        if not hits:
            return []
        enc = self.encoder
        model = getattr(enc, "model_id", "?")
        q = enc.token_vectors([query], "query")[0]  # type: ignore[attr-defined]
        texts = [h.chunk.text for h in hits]
        docs = self.cache.get(model, texts) if self.cache else [None] * len(texts)
        missing = [i for i, d in enumerate(docs) if d is None]
        if missing:
            fresh = enc.token_vectors([texts[i] for i in missing], "passage")  # type: ignore[attr-defined]
            if self.cache:
                self.cache.put(model, [texts[i] for i in missing], fresh)
            for i, v in zip(missing, fresh):
                docs[i] = v.astype(np.float16).astype(np.float32)  # as the cache holds them, so reruns score alike
        for t, d in zip(texts, docs):
            self._shapes[sha256_hex(t)] = d.shape  # type: ignore[union-attr]
        scores = [maxsim(q, d) for d in docs]  # type: ignore[arg-type]
        order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
        return [at_rank(hits[i], r, "late", score=scores[i], components=hits[i].components | {"maxsim": scores[i]}) for r, i in enumerate(order[:k], 1)]


def late_reranker(src: RerankerSources) -> LateInteractionReranker:
    """MaxSim over the index embedder's token vectors, cached under the cache folder."""
    encoder = src.embedder
    if not hasattr(encoder, "token_vectors"):
        raise YakgwanError(msg("late.no_token_vectors", model=repr(encoder.model_id)))
    cache = TokenVectorCache(src.cache_dir / "late-tokens.sqlite") if src.cache_dir else None
    return LateInteractionReranker(encoder, cache)
