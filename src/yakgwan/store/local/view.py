"""In-memory query-time view over an ``IndexData`` (the folder backend's ``IndexView``)."""

from __future__ import annotations

import numpy as np

from yakgwan.retrieval.scoring.bm25 import BM25Index
from yakgwan.store.base import IndexData


def top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Indices and values of the ``k`` largest finite scores, best first (ties by lower index)."""
    n = scores.shape[0]
    if n == 0 or k <= 0:
        return []
    k = min(k, n)
    idx = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    idx = idx[np.lexsort((idx, -scores[idx]))]
    return [(int(i), float(scores[i])) for i in idx if np.isfinite(scores[i])]


def row_mask(n: int, rows: np.ndarray) -> np.ndarray:
    """A boolean mask of ``n`` rows, true at ``rows``. Pure."""
    mask = np.zeros(n, dtype=bool)
    mask[np.asarray(rows, dtype=np.int64)] = True
    return mask


class LocalView:
    """``bm25_arrays`` is the BM25 index saved with the data (``BM25Index.to_arrays``); without
    it the view builds one from the tokens. The data is never changed."""

    def __init__(self, data: IndexData, bm25_arrays: dict[str, object] | None = None) -> None:
        self.data = data
        self.chunks = data.chunks
        self.docs = data.docs
        self.tokenizer = data.tokenizer
        self.embedder = data.embedder
        self.ingest_steps = tuple(str(x) for x in data.extra.get("ingest_steps", []))  # type: ignore[union-attr]
        self._bm25 = BM25Index.from_arrays(bm25_arrays) if bm25_arrays is not None else BM25Index.build(data.tokens)

    @property
    def dense_ready(self) -> bool:
        return self.data.dense_ready

    @property
    def dense_embedded(self) -> int:
        return int(self.data.dense_mask.sum())

    @property
    def vectors(self) -> np.ndarray:
        """The chunks' dense vectors, one row per chunk (zero rows not embedded yet)."""
        return self.data.vectors

    @property
    def dense_mask(self) -> np.ndarray:
        return self.data.dense_mask

    def lexical_search(self, query_tokens: list[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        return self._bm25.search(query_tokens, k, rows)

    def dense_search(self, query_vector: np.ndarray, k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        mask = self.data.dense_mask if rows is None else self.data.dense_mask & row_mask(len(self.chunks), rows)
        if not mask.any():
            return []
        scores = self.data.vectors @ np.asarray(query_vector, dtype=np.float32)
        scores = np.where(mask, scores, -np.inf)
        return top_k(scores, k)
