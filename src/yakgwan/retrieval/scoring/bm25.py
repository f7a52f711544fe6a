"""A BM25 index over pre-tokenised texts, scored in numpy and persisted as plain arrays.

Scoring is the Lucene variant (Lucene >= 8 ``BM25Similarity``; bm25s ``method="lucene"``,
Kamphuis et al., "Which BM25 Do You Mean? A Large-Scale Reproducibility Study of Scoring
Variants", ECIR 2020)::

    score(q, d) = sum over query terms t in d of  idf(t) * tf(t,d) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

with N documents, df(t) documents containing t, |d| the number of terms in d and avgdl the
mean |d|. A term repeated in the query counts once per occurrence (as in Lucene's boolean
query and in ``rank_bm25``). Unlike Robertson's original idf, this idf is never negative, so a
term found in more than half of the documents still adds a little. Without Robertson's
``(k1 + 1)`` factor, scores are ``1/(k1 + 1)`` of the classic form; rankings are identical.

k1 = 1.2 and b = 0.75 are the Lucene/Elasticsearch defaults. Every (term, document) score is
computed once at build time (:func:`lucene_matrix`) and kept column-sparse: a query sums the
columns of its terms. The tests check it against hand-computed values and rank_bm25.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from yakgwan.core.errors import IndexStoreError
from yakgwan.messages import msg

_FORMAT = 1
K1, B = 1.2, 0.75


def lucene_idf(df: np.ndarray, n: int) -> np.ndarray:
    """``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))`` for each document frequency in
    ``df`` (int64), with ``N = n`` documents (the module docstring's formula). Pure."""
    return np.log1p((n - np.asarray(df, dtype=np.int64) + 0.5) / (np.asarray(df, dtype=np.int64) + 0.5))


def lucene_weights(idf: np.ndarray, tf: np.ndarray, length: np.ndarray, avgdl: float, k1: float, b: float) -> np.ndarray:
    """``float32(idf * tf / (tf + k1 * (1 - b + b * |d| / avgdl)))`` for each (term, document)
    pair: its term's idf, its term frequency and its document's length (int64). Every backend
    computes a pair's score with this one function, so the scores are bit-equal. Pure."""
    tf = np.asarray(tf, dtype=np.int64)
    norm = k1 * (1.0 - b + b * np.asarray(length, dtype=np.int64) / avgdl)
    return (idf * tf / (tf + norm)).astype(np.float32)


def lucene_matrix(ids: Sequence[Sequence[int]], n_terms: int, k1: float, b: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The BM25 score of every (term, document) pair with tf > 0, column-sparse by term:
    ``(data, indices, indptr)``, rows ascending within a column (the module docstring's formula).
    ``ids``: each document's term ids in ``0 .. n_terms - 1``. Pure."""
    n = len(ids)
    lengths = np.fromiter((len(d) for d in ids), dtype=np.int64, count=n)
    terms = np.fromiter((t for d in ids for t in d), dtype=np.int64, count=int(lengths.sum()))
    if terms.size == 0:
        return np.zeros(0, np.float32), np.zeros(0, np.int32), np.zeros(n_terms + 1, np.int64)
    docs = np.repeat(np.arange(n, dtype=np.int64), lengths)
    pairs, tf = np.unique(terms * n + docs, return_counts=True)  # term-major, then document
    col, row = pairs // n, pairs % n
    df = np.bincount(col, minlength=n_terms)
    data = lucene_weights(lucene_idf(df, n)[col], tf, lengths[row], float(lengths.mean()), k1, b)
    indptr = np.concatenate([[0], np.cumsum(df)]).astype(np.int64)
    return data, row.astype(np.int32), indptr


def best_rows(rows: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The top ``k`` of ``rows`` by ``scores`` as (row, score), best first, ties by lower row;
    only scores above zero. Pure."""
    keep = scores > 0
    rows, scores = rows[keep], scores[keep]
    if rows.size > k:
        cutoff = scores[np.argpartition(-scores, k - 1)[:k]].min()
        rows, scores = rows[scores >= cutoff], scores[scores >= cutoff]
    order = np.lexsort((rows, -scores))[:k]
    return [(int(rows[i]), float(scores[i])) for i in order]


class BM25Index:
    """BM25 over rows 0..n-1 of a tokenised corpus. Build with ``BM25Index.build``; rebuild
    from scratch when the corpus changes (fast: no tokenisation happens here)."""

    def __init__(self, k1: float = K1, b: float = B) -> None:
        if k1 < 0:
            raise ValueError(f"k1 must be 0 or more. Currently, it is {k1}")
        if not 0.0 <= b <= 1.0:
            raise ValueError(f"b must be between 0 and 1. Currently, it is {b}")
        self.k1 = float(k1)
        self.b = float(b)
        self.vocab: dict[str, int] = {}
        self.num_docs = 0
        self._data = np.zeros(0, dtype=np.float32)
        self._indices = np.zeros(0, dtype=np.int32)
        self._indptr = np.zeros(1, dtype=np.int64)

    @classmethod
    def build(cls, corpus_tokens: Sequence[Sequence[str]], k1: float = K1, b: float = B) -> "BM25Index":
        index = cls(k1=k1, b=b)
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in corpus_tokens]
        index.vocab = vocab
        index.num_docs = len(ids)
        index._data, index._indices, index._indptr = lucene_matrix(ids, len(vocab), index.k1, index.b)
        return index

    def __len__(self) -> int:
        return self.num_docs

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every row for the query (zeros where no term matches)."""
        cols = [self.vocab[t] for t in query_tokens if t in self.vocab]
        if not cols:
            return np.zeros(self.num_docs, dtype=np.float32)
        rows = np.concatenate([self._indices[self._indptr[c]:self._indptr[c + 1]] for c in cols])
        vals = np.concatenate([self._data[self._indptr[c]:self._indptr[c + 1]] for c in cols])
        return np.bincount(rows, weights=vals, minlength=self.num_docs).astype(np.float32)

    def search(self, query_tokens: Sequence[str], k: int, rows: Sequence[int] | np.ndarray | None = None) -> list[tuple[int, float]]:
        """Top ``k`` rows as (row, score), best first, ties by row; only scores above zero;
        ``rows``: only these rows compete."""
        if k <= 0:
            raise ValueError(f"k must be greater than 0. Currently, it is {k}")
        if self.num_docs == 0:
            return []
        scores = self.scores(query_tokens)
        if rows is not None:
            keep = np.zeros(self.num_docs, dtype=bool)
            keep[np.asarray(rows, dtype=np.int64)] = True
            scores = np.where(keep, scores, np.float32(0))
        return best_rows(np.arange(self.num_docs, dtype=np.int64), scores, k)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Plain arrays (no pickled objects): the column-sparse score matrix, parameters and the
        vocabulary as a unicode array (``vocab.tolist()`` is JSON-able; position = term id)."""
        vocab = np.array(sorted(self.vocab, key=self.vocab.__getitem__), dtype=str)
        return {
            "format": np.array([_FORMAT], dtype=np.int64),
            "params": np.array([self.k1, self.b], dtype=np.float64),
            "num_docs": np.array([self.num_docs], dtype=np.int64),
            "data": self._data,
            "indices": self._indices,
            "indptr": self._indptr,
            "vocab": vocab if vocab.size else np.zeros(0, dtype="<U1"),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "BM25Index":
        missing = {"format", "params", "num_docs", "data", "indices", "indptr", "vocab"} - set(arrays)
        if missing:
            raise IndexStoreError(msg("bm25.missing", missing=str(sorted(missing))))
        if int(arrays["format"][0]) != _FORMAT:
            raise IndexStoreError(msg("bm25.format", found=int(arrays["format"][0]), expected=_FORMAT))
        k1, b = (float(x) for x in arrays["params"])
        index = cls(k1=k1, b=b)
        index.vocab = {str(t): i for i, t in enumerate(arrays["vocab"].tolist())}
        index.num_docs = int(arrays["num_docs"][0])
        index._data = np.asarray(arrays["data"], dtype=np.float32)
        index._indices = np.asarray(arrays["indices"], dtype=np.int32)
        index._indptr = np.asarray(arrays["indptr"], dtype=np.int64)
        if index._indptr.size != len(index.vocab) + 1 and index.vocab:
            raise IndexStoreError(msg("bm25.inconsistent"))
        return index
