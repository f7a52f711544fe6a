"""BM25Index: hand-computed scores, agreement with rank_bm25, persistence, edge cases."""

from __future__ import annotations

import json
import math
import random
import time

import numpy as np
import pytest

from yakgwan.core.errors import IndexStoreError
from yakgwan.retrieval.scoring.bm25 import BM25Index

CORPUS = [["a", "b"], ["a", "c", "c"], ["d"]]  # N = 3, avgdl = 2


def lucene_idf(df: int, n: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


@pytest.mark.unit
def test_hand_computed_scores():
    index = BM25Index.build(CORPUS)  # k1 = 1.2, b = 0.75
    # "c": df 1 -> idf ln(1 + 2.5/1.5) = ln(8/3); d1 has tf 2, |d| 3: 2 / (2 + 1.2*(0.25 + 0.75*3/2))
    c_score = math.log(8 / 3) * 2 / (2 + 1.2 * (0.25 + 0.75 * 1.5))
    assert c_score == pytest.approx(0.537441, abs=1e-6)
    assert index.search(["c"], k=5) == [(1, pytest.approx(c_score, rel=1e-6))]
    # "a": df 2 -> idf ln(1.6); d0: 1/(1 + 1.2*1.0) = 1/2.2, d1: 1/(1 + 1.2*1.375) = 1/2.65
    hits = index.search(["a"], k=5)
    assert [row for row, _ in hits] == [0, 1]
    assert hits[0][1] == pytest.approx(math.log(1.6) / 2.2, rel=1e-6)
    assert hits[1][1] == pytest.approx(math.log(1.6) / 2.65, rel=1e-6)
    # a repeated query term counts twice; unknown terms add nothing
    assert index.search(["c", "c", "zzz"], k=1)[0][1] == pytest.approx(2 * c_score, rel=1e-6)


def _random_corpus(seed: int, n_docs: int, vocab: int) -> list[list[str]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocab)]
    weights = [1 / (i + 1) for i in range(vocab)]
    return [rng.choices(words, weights, k=rng.randint(1, 40)) for _ in range(n_docs)]


@pytest.mark.unit
def test_matches_rank_bm25_with_lucene_idf():
    rank_bm25 = pytest.importorskip("rank_bm25")

    class LuceneOkapi(rank_bm25.BM25Okapi):
        """rank_bm25's Okapi scoring with the Lucene idf (no negative idf, no epsilon floor)."""

        def _calc_idf(self, nd):
            for word, df in nd.items():
                self.idf[word] = lucene_idf(df, self.corpus_size)

    corpus = _random_corpus(7, 300, 120)
    ours = BM25Index.build(corpus, k1=1.2, b=0.75)
    ref = LuceneOkapi(corpus, k1=1.2, b=0.75)
    rng = random.Random(1)
    for _ in range(25):
        query = rng.sample([f"w{i}" for i in range(130)], 3)
        expected = ref.get_scores(query) / (1.2 + 1)  # rank_bm25 keeps Robertson's (k1 + 1)
        np.testing.assert_allclose(ours.scores(query), expected, rtol=2e-5, atol=1e-6)
        top = ours.search(query, k=10)
        order = sorted((i for i in range(len(corpus)) if expected[i] > 0), key=lambda i: (-expected[i], i))[:10]
        assert [row for row, _ in top] == order or np.allclose([s for _, s in top], expected[order], rtol=1e-5)


@pytest.mark.unit
def test_plain_okapi_ranks_agree_when_idf_is_positive():
    """With every df below N/2 the Robertson and Lucene idfs differ but both are positive;
    single-term rankings must then agree exactly."""
    rank_bm25 = pytest.importorskip("rank_bm25")
    corpus = _random_corpus(3, 200, 400)
    ours, ref = BM25Index.build(corpus), rank_bm25.BM25Okapi(corpus, k1=1.2, b=0.75)
    for term in ("w5", "w50", "w200"):
        df = sum(term in d for d in corpus)
        assert 0 < df < len(corpus) / 2
        mine = [row for row, _ in ours.search([term], k=len(corpus))]
        theirs = [i for i in np.argsort(-ref.get_scores([term]), kind="stable") if ref.get_scores([term])[i] > 0]
        assert mine == list(theirs)


@pytest.mark.unit
def test_search_order_ties_and_k():
    index = BM25Index.build([["x"], ["y"], ["x"], ["x", "x"]])
    hits = index.search(["x"], k=2)
    assert [row for row, _ in hits] == [3, 0]  # tf 2 first, then ties by row
    assert index.search(["nothing"], k=3) == []
    with pytest.raises(ValueError, match="k must be greater than 0"):
        index.search(["x"], k=0)


@pytest.mark.unit
def test_round_trip_through_plain_arrays(tmp_path):
    corpus = _random_corpus(11, 50, 60) + [["비급여", "의료비"], []]
    index = BM25Index.build(corpus, k1=0.9, b=0.4)
    arrays = index.to_arrays()
    assert all(isinstance(a, np.ndarray) and a.dtype != object for a in arrays.values())
    json.dumps(arrays["vocab"].tolist(), ensure_ascii=False)
    np.savez(tmp_path / "bm25.npz", **arrays)
    with np.load(tmp_path / "bm25.npz", allow_pickle=False) as loaded:
        again = BM25Index.from_arrays(dict(loaded))
    assert (again.k1, again.b, len(again)) == (0.9, 0.4, len(corpus))
    for query in (["w1", "w7"], ["비급여"], ["w3", "w3"]):
        assert again.search(query, 20) == index.search(query, 20)


@pytest.mark.unit
def test_empty_and_bad_inputs():
    assert BM25Index.build([]).search(["a"], 3) == []
    assert BM25Index.build([[], []]).search(["a"], 3) == []
    assert BM25Index.from_arrays(BM25Index.build([]).to_arrays()).search(["a"], 1) == []
    with pytest.raises(ValueError, match="b must be between 0 and 1"):
        BM25Index(b=1.5)
    with pytest.raises(IndexStoreError, match="lack"):
        BM25Index.from_arrays({"data": np.zeros(1)})


@pytest.mark.slow
def test_build_time_for_10k_chunks():
    corpus = _random_corpus(5, 10_000, 20_000)
    corpus = [doc * 4 for doc in corpus]  # ~80 terms per chunk
    start = time.perf_counter()
    BM25Index.build(corpus)
    assert time.perf_counter() - start < 3.0  # ~0.5-0.8 s on 2 shared cores
