"""A first-stage retriever followed by a reranker (``yakgwan.rerank``) over its top hits."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.core.protocols import Reranker, Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Hit

RERANK_DEPTH = 20  # first-stage hits a reranker reorders, unless its registry entry says otherwise


@dataclass
class RerankedRetriever:
    """A first-stage retriever followed by a reranker over its top ``depth`` hits."""

    name: str
    first: Retriever
    reranker: Reranker
    depth: int = RERANK_DEPTH

    def built(self) -> dict | None:
        """What the reranker built while it ran (late interaction's token vectors), if anything."""
        built = getattr(self.reranker, "built", None)
        return built() if callable(built) else None

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        hits = self.first.retrieve(query, max(k, self.depth))
        head = self.reranker.rerank(query, hits[: self.depth], self.depth)
        return (head + [Hit(h.chunk, h.score, len(head) + i + 1, h.step, status=h.status, members=h.members) for i, h in enumerate(hits[self.depth :])])[:k]
