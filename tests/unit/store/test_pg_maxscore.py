"""MaxScore over stored postings gives the folder backend's BM25 top k exactly, reading fewer
postings, and gives up (for SQL to score) past its budget. No database: the postings come from
an in-memory table."""

from __future__ import annotations

import numpy as np
import pytest

from yakgwan.retrieval.scoring.bm25 import BM25Index
from yakgwan.store.postgres.lexical import Postings, Query, maxscore_top_k

pytestmark = pytest.mark.unit


class Table:
    """Postings of a tokenised corpus, as the ``postings`` table holds them; counts reads."""

    def __init__(self, docs: list[list[str]]) -> None:
        self.docs = docs
        self.read = 0

    def fetch(self, terms, rows):  # type: ignore[no-untyped-def]
        out = []
        for r in (range(len(self.docs)) if rows is None else rows):
            for i, t in enumerate(terms):
                tf = self.docs[int(r)].count(t)
                if tf:
                    out.append((i, int(r), tf))
        self.read += len(out)
        a = np.array(out, dtype=np.int64).reshape(-1, 3)
        return Postings(a[:, 0], a[:, 1], a[:, 2])

    def query(self, tokens: list[str]) -> Query:
        df = {t: sum(t in d for d in self.docs) for t in set(tokens)}
        lengths = np.array([len(d) for d in self.docs], dtype=np.int64)
        return Query(tuple(t for t in tokens if df[t]), {t: n for t, n in df.items() if n}, len(self.docs), lengths, int(lengths.sum()) / len(self.docs))


def _corpus(seed: int, n: int = 400) -> list[list[str]]:
    """Zipf-like words: a few in most documents, many rare; random lengths; some exact copies
    (equal scores, so ties are broken by row)."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(300)]
    p = 1.0 / np.arange(1, 301)
    p /= p.sum()
    docs = [[vocab[j] for j in rng.choice(300, size=int(rng.integers(1, 40)), p=p)] for _ in range(n)]
    for i in range(0, n, 37):
        docs[(i + 5) % n] = list(docs[i])
    return docs


@pytest.mark.parametrize("seed", range(6))
def test_maxscore_equals_the_folder_index_for_every_query_k_and_filter(seed: int) -> None:
    docs = _corpus(seed)
    table, index = Table(docs), BM25Index.build(docs)
    rng = np.random.default_rng(100 + seed)
    for _ in range(25):
        q = [f"w{int(j)}" for j in rng.integers(0, 320, size=int(rng.integers(1, 7)))]  # some words no document has
        if rng.random() < 0.3:
            q.append(q[0])  # a repeated word counts twice
        query = table.query(q)
        for k in (1, 3, 10, 50):
            assert maxscore_top_k(query, k, table.fetch, None, 10**9) == index.search(q, k)
            allowed = np.unique(rng.integers(0, len(docs), size=int(rng.integers(1, 200))))
            assert maxscore_top_k(query, k, table.fetch, allowed, 10**9) == index.search(q, k, allowed)


def test_hand_computed_scores_and_tie_order() -> None:
    docs = [["a", "b"], ["a"], ["c", "c", "a"], ["a"]]
    table = Table(docs)
    got = maxscore_top_k(table.query(["a", "c"]), 3, table.fetch, None, 10**9)
    # N = 4, avgdl = 7/4; idf(a) = ln(1 + 0.5/4.5), idf(c) = ln(1 + 3.5/1.5)
    ia, ic = np.log1p(0.5 / 4.5), np.log1p(3.5 / 1.5)
    w = lambda idf, tf, dl: np.float32(idf * tf / (tf + 1.2 * (0.25 + 0.75 * dl / 1.75)))  # noqa: E731
    s2 = np.float32(float(w(ia, 1, 3)) + float(w(ic, 2, 3)))
    assert got == [(2, float(s2)), (1, float(w(ia, 1, 1))), (3, float(w(ia, 1, 1)))]  # rows 1 and 3 tie: lower row first


def test_a_rare_word_stops_the_search_before_the_common_words_are_read() -> None:
    docs = [["흔한말", "보통말"] * 3 for _ in range(2000)] + [["드문말", "흔한말"]] * 3
    table = Table(docs)
    got = maxscore_top_k(table.query(["드문말", "흔한말", "보통말"]), 3, table.fetch, None, 10**9)
    assert [r for r, _ in got] == [2000, 2001, 2002]
    assert got == BM25Index.build(docs).search(["드문말", "흔한말", "보통말"], 3)
    assert table.read < 20  # the rare word's 3 postings and the candidates' others, not 4,000 common ones


def test_past_the_budget_it_leaves_the_query_to_sql() -> None:
    docs = [["흔한말"]] * 50 + [["다른말"]] * 50
    table = Table(docs)
    assert maxscore_top_k(table.query(["흔한말", "다른말"]), 10, table.fetch, None, 60) is None
    assert maxscore_top_k(table.query(["흔한말", "다른말"]), 10, table.fetch, None, 100) is not None
    assert maxscore_top_k(table.query(["없는말"]), 10, table.fetch, None, 100) == []


@pytest.mark.parametrize("ids", [[5, 2, 9, 3], [5, 2, 10**9, 3]])  # dense ids: a table; sparse: a search
def test_slot_rows_maps_a_versions_slots_to_rows_and_others_to_minus_one(ids: list[int]) -> None:
    from yakgwan.store.postgres.view import SlotRows

    rows_of = SlotRows(np.array(ids, dtype=np.int64))
    assert (rows_of.table is None) == (max(ids) > 10**6)
    probe = np.array([3, 5, 4, 0, ids[2], ids[2] + 1, 2], dtype=np.int64)
    assert rows_of(probe).tolist() == [3, 0, -1, -1, 2, -1, 1]
    assert SlotRows(np.zeros(0, dtype=np.int64))(probe).tolist() == [-1] * 7
