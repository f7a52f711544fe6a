"""RAPTOR with the scripted provider: deterministic k-means, a tree whose nodes keep their leaf
chunks, the cache (built once), retrieval that expands summary nodes to real chunks and keeps
the first stage's list."""

from __future__ import annotations

import numpy as np
import pytest

from yakgwan.messages import msg
from yakgwan.services.context import open_context
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.llm import LLM
from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.pipelines import build_pipeline
from yakgwan.retrieval.retrievers.raptor import kmeans

pytestmark = pytest.mark.unit


def test_kmeans_separates_clear_groups_deterministically() -> None:
    a = np.array([[1.0, 0.0], [0.99, 0.14], [0.0, 1.0], [0.14, 0.99], [0.98, 0.2]])
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    labels = kmeans(a, 2)
    assert labels[0] == labels[1] == labels[4] and labels[2] == labels[3] and labels[0] != labels[2]
    assert np.array_equal(labels, kmeans(a, 2)) and set(kmeans(a, 9).tolist()) <= set(range(5))


def test_tree_built_once_and_retrieval_returns_real_chunks(small_index) -> None:  # type: ignore[no-untyped-def]
    s = small_index({f"d{i:02d}.md": f"# 문서 {i}\n\n{'환불' if i % 2 else '여권'} 안내 {i}번: 출발 {i}일 전 규정입니다." for i in range(14)})
    provider = ScriptedProvider(responder=lambda messages, schema: "환불과 여권 규정을 요약한 문단입니다.")

    def ctx():  # type: ignore[no-untyped-def]
        c = open_context(s, embedder=HashingEmbedder())
        llm = LLM(provider)
        c.make_llm = lambda: llm
        return c

    c1 = ctx()
    heard: list[tuple[str, int, int]] = []
    c1.sink = lambda stage, done, total: heard.append((stage, done, total))
    r, note = build_pipeline("raptor", c1)
    first_calls = len(provider.calls)
    assert note is None and first_calls >= 3  # 14 chunks -> 3 clusters at level 1 (ceil(14/6)), no level 2 at <= 3 nodes
    hits = r.retrieve("환불 규정", 5)
    ids = {c.chunk_id for c in c1.view.chunks}
    assert len(hits) == 5 and all(h.chunk.chunk_id in ids for h in hits) and hits[0].produced_by == "raptor"
    tree = r.tree  # type: ignore[attr-defined]
    assert all(set(leaves) <= ids for leaves in tree.leaves.values()) and sorted(c for n in tree.nodes if n.level == 1 for c in n.children) == sorted(ids)
    assert tree.size_bytes > 0 and tree.llm_calls == first_calls
    assert heard[0] == (msg("stage.raptor", level=1), 0, 3) and heard[-1] == (msg("stage.raptor", level=1), 3, 3)  # the tree's progress is reported
    built = r.built()  # type: ignore[attr-defined]
    assert built["nodes"] == 3 and built["llm_calls"] == first_calls and built["bytes"] == tree.size_bytes > 0 and "RAPTOR tree (3 summaries, 1 level(s))" == built["structure"]
    build_pipeline("raptor", ctx())
    assert len(provider.calls) == first_calls  # the cached tree is reused


def test_without_an_llm_the_first_stage_passes_through(small_index) -> None:  # type: ignore[no-untyped-def]
    s = small_index({"a.md": "# a\n\n환불 규정"})
    r, _ = build_pipeline("raptor", open_context(s, embedder=HashingEmbedder()))
    assert r.retrieve("환불", 1)[0].produced_by == "raptor(no LLM: first stage)"
