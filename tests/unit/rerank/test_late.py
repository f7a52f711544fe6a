"""Late interaction: MaxSim hand-computed, the reranker with a fake token encoder, the token
vector cache (float16) and its size, and the real e5 encoder's token vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yakgwan.core.records import Chunk, Hit
from yakgwan.rerank.late import LateInteractionReranker, TokenVectorCache, maxsim


@pytest.mark.unit
def test_maxsim_hand_computed() -> None:
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    d = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, -1.0]])
    # query row 1: max(0.6, 1.0, 0.0) = 1.0; row 2: max(0.8, 0.0, -1.0) = 0.8
    assert maxsim(q, d) == pytest.approx(1.8)
    assert maxsim(q, np.zeros((0, 2))) == 0.0


class _FakeEncoder:
    model_id = "fake"

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def token_vectors(self, texts, kind):  # type: ignore[no-untyped-def]
        self.calls.append(tuple(texts))
        table = {"q": [[1.0, 0.0]], "apple": [[0.2, 0.98]], "banana": [[0.9, 0.436]]}
        return [np.asarray(table[t], dtype=np.float32) for t in texts]


@pytest.mark.unit
def test_reranker_orders_by_maxsim_and_caches_chunk_vectors(tmp_path: Path) -> None:
    hits = [Hit(Chunk(f"c{i}", "d", "d", "t", t, 0, 1), 1.0, i, "first") for i, t in enumerate(["apple", "banana"], 1)]
    cache = TokenVectorCache(tmp_path / "late.sqlite")
    enc = _FakeEncoder()
    out = LateInteractionReranker(enc, cache).rerank("q", hits, 2)
    assert [h.chunk.text for h in out] == ["banana", "apple"] and out[0].components["maxsim"] == pytest.approx(0.9, abs=1e-3)
    late = LateInteractionReranker(enc, cache)
    again = late.rerank("q", hits, 2)
    # two chunks of one 2-dim token vector each, float16: 2 tokens x 2 dims x 2 bytes
    assert late.built() == {"structure": "token vectors (float16)", "chunks": 2, "tokens": 2, "bytes": 8, "mb": 0.0}
    assert enc.calls == [("q",), ("apple", "banana"), ("q",)]  # chunk vectors from the cache the second time
    assert [h.score for h in again] == [h.score for h in out] and cache.size_bytes() > 0
    (v,) = cache.get("fake", ["banana"])
    assert v is not None and v.shape == (1, 2) and cache.get("other-model", ["banana"]) == [None]


@pytest.mark.integration
def test_real_e5_token_vectors_rank_the_matching_passage_first() -> None:
    from yakgwan.embedders.e5_numpy import E5Numpy

    enc = E5Numpy()
    docs = enc.token_vectors(["부산 지사의 직원은 8명입니다.", "출발 30일 전 취소 시 전액 환불합니다."], "passage")
    assert all(d.dtype == np.float32 and d.shape[1] == 384 for d in docs)
    assert np.allclose(np.linalg.norm(docs[0], axis=1), 1.0, atol=1e-4)
    q = enc.token_vectors(["부산 지사 직원 수"], "query")[0]
    assert maxsim(q, docs[0]) > maxsim(q, docs[1])
