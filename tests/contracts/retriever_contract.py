"""The contract every ``Retriever`` passes (``yakgwan.core.protocols.Retriever``), run over the
tiny knowledge base of ``conftest.KB``. A subclass names its registered ``PIPELINE`` (or
overrides ``make_retriever``), states whether it orders hits by its own score and what it does
with an empty query, as its code defines it. Every retriever returns [] for a k below 1."""

from __future__ import annotations

import pytest

from yakgwan.config import Settings
from yakgwan.core.protocols import Embedder, Retriever
from yakgwan.core.records import Hit


def _key(hits: list[Hit]) -> list[tuple[str, float, int, str]]:
    return [(h.chunk.chunk_id, h.score, h.rank, h.produced_by) for h in hits]


class RetrieverContract:
    PIPELINE = ""
    QUERY = "자동차 사고 벌금 보상 한도는?"
    # whether the hits are ordered by their own ``score`` (first stages, fusion: scores are then
    # best-first); False for a stage that reorders its first stage's hits without scoring them
    # (they keep the first stage's score, ``Hit.score``), which ``first_stage`` must then give
    ORDERS_BY_OWN_SCORE = True
    # whether retrieve("", k) returns no hits (otherwise its hits still obey the contract)
    EMPTY_QUERY_FINDS_NOTHING = False

    def make_embedder(self) -> Embedder:
        """The embedder the index of ``kb`` was built with."""
        from yakgwan.embedders.hashing import HashingEmbedder

        return HashingEmbedder()

    @pytest.fixture()
    def kb(self, tiny_kb: Settings) -> Settings:
        """The settings of the index searched (``conftest.tiny_kb`` unless overridden)."""
        return tiny_kb

    def make_llm(self):  # type: ignore[no-untyped-def]
        """The LLM the pipeline gets (None: no LLM configured)."""
        return None

    def make_retriever(self, kb: Settings) -> tuple[Retriever, list]:  # type: ignore[type-arg]
        """The retriever and the chunks of the index it searches."""
        from yakgwan.pipelines import build_pipeline
        from yakgwan.services.context import open_context

        ctx = open_context(kb, embedder=self.make_embedder())
        ctx.cache_dir = None  # nothing a technique builds (RAPTOR's tree) is kept between tests
        llm = self.make_llm()
        ctx.make_llm = lambda: llm
        retriever, note = build_pipeline(self.PIPELINE, ctx)
        assert note is None, note
        return retriever, list(ctx.view.chunks)

    def first_stage(self, retriever: Retriever) -> Retriever:
        """The retriever whose hits ``retriever`` reorders (where ``ORDERS_BY_OWN_SCORE`` is False)."""
        return retriever.first  # type: ignore[attr-defined, no-any-return]

    @pytest.fixture()
    def built(self, kb: Settings) -> tuple[Retriever, list]:  # type: ignore[type-arg]
        return self.make_retriever(kb)

    def assert_valid(self, hits: list[Hit], k: int, chunks: list) -> None:  # type: ignore[type-arg]
        assert isinstance(hits, list) and all(isinstance(h, Hit) for h in hits)
        assert len(hits) <= k
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
        if self.ORDERS_BY_OWN_SCORE:
            scores = [h.score for h in hits]
            assert scores == sorted(scores, reverse=True), f"scores not best-first: {scores}"
        index = set(chunks)
        assert all(h.chunk in index for h in hits), "a hit's chunk is not in the index"
        ids = [h.chunk.chunk_id for h in hits]
        assert len(ids) == len(set(ids)), f"a chunk is returned twice: {ids}"
        assert all(isinstance(h.produced_by, str) and h.produced_by for h in hits)

    def test_has_a_name(self, built) -> None:  # type: ignore[no-untyped-def]
        retriever, _ = built
        assert isinstance(retriever, Retriever)
        assert isinstance(retriever.name, str) and retriever.name

    @pytest.mark.parametrize("k", [1, 3, 50])
    def test_at_most_k_hits_in_rank_order_from_the_index(self, built, k: int) -> None:  # type: ignore[no-untyped-def]
        retriever, chunks = built
        hits = retriever.retrieve(self.QUERY, k)
        self.assert_valid(hits, k, chunks)
        assert hits, "the query matches the index, yet nothing was found"
        assert len(hits) <= len(chunks)

    def test_deterministic_across_calls(self, built) -> None:  # type: ignore[no-untyped-def]
        retriever, _ = built
        assert _key(retriever.retrieve(self.QUERY, 5)) == _key(retriever.retrieve(self.QUERY, 5))

    @pytest.mark.parametrize("k", [3, 50])
    def test_each_score_is_the_score_of_the_stage_that_scored_the_hit(self, built, k: int) -> None:  # type: ignore[no-untyped-def]
        """Best-first where the retriever orders by its own score; otherwise (a stage that
        reorders without scoring) each hit keeps its first stage's score for that chunk."""
        retriever, _ = built
        hits = retriever.retrieve(self.QUERY, k)
        assert hits
        scores = [h.score for h in hits]
        if self.ORDERS_BY_OWN_SCORE:
            assert scores == sorted(scores, reverse=True), f"scores not best-first: {scores}"
        else:
            first = {h.chunk.chunk_id: h.score for h in self.first_stage(retriever).retrieve(self.QUERY, 50)}
            assert all(h.chunk.chunk_id in first for h in hits), "a reordered hit is not in the first stage's list"
            assert scores == [first[h.chunk.chunk_id] for h in hits]

    @pytest.mark.parametrize("k", [0, -1])
    def test_k_below_one(self, built, k: int) -> None:  # type: ignore[no-untyped-def]
        retriever, _ = built
        hits = retriever.retrieve(self.QUERY, k)
        assert hits == [], f"{len(hits)} hits for k={k}"

    def test_empty_query(self, built) -> None:  # type: ignore[no-untyped-def]
        retriever, chunks = built
        hits = retriever.retrieve("", 3)
        self.assert_valid(hits, 3, chunks)
        if self.EMPTY_QUERY_FINDS_NOTHING:
            assert hits == []
