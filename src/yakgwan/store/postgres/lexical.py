"""Exact BM25 top-k from stored postings without reading every posting: MaxScore.

A query term ``t`` (``m_t`` times in the query) adds at most ``m_t * idf(t)`` to any
document's score, since ``tf / (tf + norm) < 1`` (the Lucene variant of
``yakgwan.retrieval.scoring.bm25``). Terms are taken from the rarest (largest bound) down; the
documents holding a taken term are the *candidates*. A document holding none of them scores
less than ``P``, the sum of the bounds not yet taken. Once the k-th best candidate's partial
score (taken terms only, never more than its full score) is above ``P``, no other document can
enter the top k, and only the candidates whose partial score plus ``P`` reaches that k-th
partial score need their full score. This is the MaxScore rule (Turtle and Flood, "Query
evaluation: strategies and optimizations", Information Processing & Management 31(6), 1995),
applied term at a time.

The full scores are those of the folder backend exactly: each (term, document) weight comes
from ``lucene_weights`` and a document's weights are summed in float64 in query order, repeats
counted, then rounded to float32, as ``BM25Index.scores`` does. The bounds carry a relative
margin far above float32 rounding, so pruning never drops a document that ties the k-th score.
When the postings to read pass ``budget`` (counted by this version's document frequencies, and
for the candidates' other words at most one per candidate: an estimate, since a word's stored
list also holds chunks only the previous version has), the search gives up (``None``) and the
caller scores in SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from yakgwan.retrieval.scoring.bm25 import B, K1, best_rows, lucene_idf, lucene_weights

MARGIN = 1e-5  # relative slack on every bound (float32 rounding is 6e-8)


@dataclass(frozen=True)
class Postings:
    """Postings read for some query terms: ``term`` indexes the list asked for."""

    term: np.ndarray  # int64
    row: np.ndarray  # int64, rows of the generation
    tf: np.ndarray  # int64

    @classmethod
    def empty(cls) -> "Postings":
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z)


# (terms, rows or None for every row) -> the postings of those terms in those rows
Fetch = Callable[[Sequence[str], "np.ndarray | None"], Postings]


@dataclass(frozen=True)
class Query:
    """A query against one generation: its tokens found in the index, in query order (repeats
    kept), their document frequencies, and the generation's size and row lengths."""

    tokens: tuple[str, ...]
    df: dict[str, int]
    n_rows: int
    lengths: np.ndarray  # int64, one per row
    avgdl: float

    def idf(self, terms: Sequence[str]) -> np.ndarray:
        return lucene_idf(np.array([self.df[t] for t in terms], dtype=np.int64), self.n_rows)


def full_scores(query: Query, terms: Sequence[str], got: Postings, docs: np.ndarray) -> np.ndarray:
    """The BM25 score of each row in ``docs`` (sorted, unique) from ``got``, the postings of
    every query term in ``terms`` for those rows: weights summed in query order, float32. Pure."""
    w = lucene_weights(query.idf(terms)[got.term], got.tf, query.lengths[got.row], query.avgdl, K1, B)
    at = np.searchsorted(docs, got.row)
    order = {t: i for i, t in enumerate(terms)}
    parts_at, parts_w = [], []
    for token in query.tokens:  # concatenated in query order, as BM25Index.scores does
        sel = got.term == order[token]
        parts_at.append(at[sel])
        parts_w.append(w[sel])
    total = np.bincount(np.concatenate(parts_at), weights=np.concatenate(parts_w), minlength=docs.size)
    return total.astype(np.float32)


def maxscore_top_k(query: Query, k: int, fetch: Fetch, allowed: np.ndarray | None, budget: int) -> list[tuple[int, float]] | None:
    """The exact BM25 top ``k`` (the module docstring's rule), rows limited to the sorted
    ``allowed`` when given; None when more than ``budget`` postings would be read."""
    terms = sorted(set(query.tokens))
    if not terms:
        return []
    if allowed is not None and allowed.size * len(terms) <= min(budget, sum(query.df[t] for t in terms)):
        got = fetch(terms, allowed)  # a narrow filter: read the allowed rows' postings only
        docs = np.unique(got.row)
        return best_rows(docs, full_scores(query, terms, got, docs), k)
    mult = np.array([query.tokens.count(t) for t in terms], dtype=np.float64)
    bound = mult * query.idf(terms) * (1 + MARGIN)
    order = sorted(range(len(terms)), key=lambda i: (-bound[i], terms[i]))
    keep = None
    if allowed is not None:
        keep = np.zeros(query.n_rows, dtype=bool)
        keep[allowed] = True
    parts: list[Postings] = []
    partial = np.zeros(query.n_rows)  # each row's score from the words read so far (float64)
    seen = np.zeros(query.n_rows, dtype=bool)  # rows holding a word read so far: the candidates
    read = 0
    for step, i in enumerate(order):
        rest = order[step + 1:]
        if read + query.df[terms[i]] > budget:
            return None
        got = fetch([terms[i]], None)
        read += query.df[terms[i]]
        if keep is not None and got.row.size:
            sel = keep[got.row]
            got = Postings(got.term[sel], got.row[sel], got.tf[sel])
        got = Postings(np.full(got.row.size, i, dtype=np.int64), got.row, got.tf)
        parts.append(got)
        partial += np.bincount(got.row, weights=_weights(query, terms, got, mult), minlength=query.n_rows)
        seen[got.row] = True
        if not rest:
            docs = np.flatnonzero(seen)
            return best_rows(docs, full_scores(query, terms, _merge(parts), docs), k)
        docs = np.flatnonzero(seen)
        if docs.size < k:
            continue
        have = partial[docs]
        kth = np.partition(have, docs.size - k)[docs.size - k]
        others = float(bound[rest].sum())
        if kth * (1 - MARGIN) <= others:
            continue
        cand = docs[have + others >= kth * (1 - MARGIN)]
        if read + sum(min(query.df[terms[j]], cand.size) for j in rest) > budget:
            return None
        return _score_candidates(query, terms, rest, cand, _merge(parts), fetch, k)
    return []


def _score_candidates(query: Query, terms: list[str], rest: list[int], cand: np.ndarray, read: Postings, fetch: Fetch, k: int) -> list[tuple[int, float]]:
    """The top ``k`` of the candidates ``cand`` by full score: the postings ``read`` so far
    plus those of the words in ``rest`` for the candidates."""
    more = fetch([terms[j] for j in rest], cand)
    extra = Postings(np.asarray(rest, dtype=np.int64)[more.term], more.row, more.tf)
    is_cand = np.zeros(query.n_rows, dtype=bool)
    is_cand[cand] = True
    sel = is_cand[read.row]
    every = _merge([Postings(read.term[sel], read.row[sel], read.tf[sel]), extra])
    return best_rows(cand, full_scores(query, terms, every, cand), k)


def _weights(query: Query, terms: Sequence[str], got: Postings, mult: np.ndarray) -> np.ndarray:
    """Each posting's weight times its term's count in the query, ``mult`` (float64)."""
    w = lucene_weights(query.idf(terms)[got.term], got.tf, query.lengths[got.row], query.avgdl, K1, B)
    return w.astype(np.float64) * mult[got.term]


def _merge(parts: list[Postings]) -> Postings:
    if not parts:
        return Postings.empty()
    return Postings(*(np.concatenate([getattr(p, f) for p in parts]).astype(np.int64) for f in ("term", "row", "tf")))
