"""The service's shared models: concurrent embeddings share batched passes and equal direct ones."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.services.models import BatchingEmbedder

pytestmark = pytest.mark.unit


class _Slow(HashingEmbedder):
    """A hashing embedder whose passes take a while and are counted."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.calls: list[int] = []
        self.kinds: list[str] = []
        self.gate = threading.Event()

    def embed(self, texts, kind):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        self.kinds.append(kind)
        self.gate.wait(2)
        return super().embed(texts, kind)


def test_concurrent_queries_share_passes_and_get_their_own_rows() -> None:
    inner = _Slow()
    emb = BatchingEmbedder(inner, max_texts=64)
    texts = [f"질문 {i}" for i in range(40)]
    kinds = ["query" if i % 4 else "passage" for i in range(40)]
    with ThreadPoolExecutor(max_workers=40) as pool:
        futures = [pool.submit(emb.embed, [t], k) for t, k in zip(texts, kinds)]
        threading.Timer(0.3, inner.gate.set).start()  # the first pass is held while the others queue
        got = [f.result(timeout=10) for f in futures]
    ref = HashingEmbedder(dim=16)
    assert all(np.array_equal(g[0], ref.embed([t], k)[0]) for g, t, k in zip(got, texts, kinds))
    assert sum(inner.calls) == 40 and len(inner.calls) <= 4 and emb.batches == len(inner.calls)
    assert set(inner.kinds) == {"query", "passage"}  # one kind per pass: a batch never mixes them
    assert emb.model_id == inner.model_id and emb.dim == 16


def test_a_failed_pass_reaches_its_caller_and_the_next_pass_runs() -> None:
    class Broken(HashingEmbedder):
        def embed(self, texts, kind):  # type: ignore[no-untyped-def]
            if kind == "passage":
                raise RuntimeError("model died")
            return super().embed(texts, kind)

    emb = BatchingEmbedder(Broken(dim=8))
    with pytest.raises(RuntimeError, match="model died"):
        emb.embed(["a"], "passage")
    assert emb.embed(["a", "b"], "query").shape == (2, 8)
    with pytest.raises(ValueError, match="max_texts"):
        BatchingEmbedder(Broken(dim=8), max_texts=0)
