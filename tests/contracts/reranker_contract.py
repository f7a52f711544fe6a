"""The contract every ``Reranker`` passes (``yakgwan.core.protocols.Reranker``): a subclass
gives ``make_reranker()`` and inherits every test. A reranker reorders the hits it is given: it
adds no chunk, drops none while k allows, returns at most k, ranked 1..n."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pytest

from yakgwan.core.protocols import Reranker
from yakgwan.core.records import Chunk, Hit

QUERY = "자동차 사고로 받은 벌금은 얼마까지 보상하나요?"
TEXTS = [
    "회사는 자동차 사고로 선고받은 벌금액을 2천만원 한도로 보상합니다.",
    "회사는 자동차 사고로 선고받은 벌금액을 3천만원 한도로 보상합니다.",
    "음주운전 중 생긴 사고로 선고받은 벌금은 보상하지 않습니다.",
    "출발 30일 전까지 취소하면 전액 환불합니다.",
    "비급여 치료비는 보상하지 않습니다.",
    "골절 진단을 받으면 골절진단비를 지급합니다.",
]
# the first stage's best scores are close (so a gated reranker judges them), then fall away
SCORES = [1.0, 0.99, 0.98, 0.5, 0.4, 0.3]


def first_stage_hits() -> list[Hit]:
    chunks = [Chunk(f"c{i}", f"d{i}.md", f"kb/d{i}.md", f"문서 {i}", t, 0, len(t)) for i, t in enumerate(TEXTS)]
    return [Hit(c, s, r, "hybrid_cc", {"hybrid_cc": s}, evidence=((0, 5),) if r == 2 else ()) for r, (c, s) in enumerate(zip(chunks, SCORES), 1)]


@dataclass(frozen=True)
class Sources:
    """What a registered reranker is made from (``yakgwan.rerank.sources.RerankerSources``)."""

    llm: object = None
    embedder: object = None
    cache_dir: Path | None = None


def registered_reranker(name: str, llm: object = None, embedder: object = None) -> Reranker:
    """The reranker the registry makes under ``name``, as a pipeline would get it."""
    from yakgwan.rerank.registry import RERANKERS

    return RERANKERS.get(name).make(Sources(llm, embedder))  # type: ignore[arg-type]


def _key(hits: Sequence[Hit]) -> list[tuple[str, float, int, str]]:
    return [(h.chunk.chunk_id, h.score, h.rank, h.produced_by) for h in hits]


class RerankerContract:
    """Inherit and implement ``make_reranker``; ``REGISTERED`` names the backend in
    ``yakgwan.rerank.registry.RERANKERS`` (empty: a variant, such as a fallback)."""

    REGISTERED = ""

    def make_reranker(self) -> Reranker:
        raise NotImplementedError

    @pytest.fixture()
    def reranker(self) -> Reranker:
        return self.make_reranker()

    def test_is_a_reranker(self, reranker: Reranker) -> None:
        assert isinstance(reranker, Reranker)

    @pytest.mark.parametrize("k", [1, 3, 6, 10])
    def test_at_most_k_of_the_given_hits_ranked_from_1(self, reranker: Reranker, k: int) -> None:
        hits = first_stage_hits()
        out = reranker.rerank(QUERY, hits, k)
        assert isinstance(out, list) and all(isinstance(h, Hit) for h in out)
        assert len(out) == min(k, len(hits))
        assert [h.rank for h in out] == list(range(1, len(out) + 1))
        given = {h.chunk.chunk_id: h.chunk for h in hits}
        assert all(given.get(h.chunk.chunk_id) == h.chunk for h in out), "a reranker returned a chunk it was not given"
        assert len({h.chunk.chunk_id for h in out}) == len(out), "a chunk is returned twice"
        assert all(isinstance(h.produced_by, str) and h.produced_by for h in out)

    def test_with_room_for_all_it_returns_a_permutation(self, reranker: Reranker) -> None:
        hits = first_stage_hits()
        out = reranker.rerank(QUERY, hits, len(hits))
        assert sorted(h.chunk.chunk_id for h in out) == sorted(h.chunk.chunk_id for h in hits)

    def test_keeps_each_hits_evidence(self, reranker: Reranker) -> None:
        hits = first_stage_hits()
        out = reranker.rerank(QUERY, hits, len(hits))
        assert {h.chunk.chunk_id: h.evidence for h in out} == {h.chunk.chunk_id: h.evidence for h in hits}

    def test_deterministic_across_calls(self) -> None:
        first = self.make_reranker().rerank(QUERY, first_stage_hits(), 6)
        second = self.make_reranker().rerank(QUERY, first_stage_hits(), 6)
        assert _key(first) == _key(second)

    def test_no_hits_give_no_hits(self, reranker: Reranker) -> None:
        assert reranker.rerank(QUERY, [], 5) == []

    def test_k_zero_gives_no_hits(self, reranker: Reranker) -> None:
        assert reranker.rerank(QUERY, first_stage_hits(), 0) == []

    def test_a_single_hit_comes_back_ranked_first(self, reranker: Reranker) -> None:
        hit = first_stage_hits()[3]
        out = reranker.rerank(QUERY, [hit], 3)
        assert [(h.chunk, h.rank) for h in out] == [(hit.chunk, 1)]
