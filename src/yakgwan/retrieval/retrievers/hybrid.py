"""Hybrid retrieval: run several retrievers and fuse their lists (RRF or normalised scores)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from yakgwan.core.protocols import Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Chunk, Hit
from yakgwan.retrieval.hit_lists import members_by_id
from yakgwan.retrieval.scoring.fusion import RRF_K, minmax, ranked, rrf, weighted_sum

FusionMethod = Literal["rrf", "minmax"]

# Dense weight of the min–max convex combination (Bruch, Gai & Ingber, "An Analysis of Fusion
# Functions for Hybrid Retrieval", TOIS 2023), chosen on the two dev sets (skytravel dev,
# autorag_ko dev) with bench/fusion_study.py; the table is in the README. Used by hybrid_cc and
# by every technique that fuses a dense list with BM25 the same way.
CC_DENSE_WEIGHT = 0.3
FUSION_DEPTH = 100  # hits taken from each list


@dataclass
class FusionRetriever:
    """Fuses the top ``depth`` hits of each retriever.

    ``method="rrf"``: weighted Reciprocal Rank Fusion (k = ``rrf_k``, 1-based ranks).
    ``method="minmax"``: each list's scores min–max normalised to [0, 1], then a weighted sum.
    """

    name: str
    retrievers: Sequence[Retriever]
    weights: Sequence[float]
    method: FusionMethod = "rrf"
    depth: int = FUSION_DEPTH
    rrf_k: int = RRF_K

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.retrievers):
            raise ValueError(f"{self.name}: {len(self.weights)} weights for {len(self.retrievers)} retrievers")
        if self.depth <= 0:
            raise ValueError(f"{self.name}: depth must be > 0, got {self.depth}")
        if self.method not in ("rrf", "minmax"):
            raise ValueError(f"{self.name}: unknown fusion method {self.method!r}; available: minmax, rrf")

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        lists = [r.retrieve(query, max(k, self.depth)) for r in self.retrievers]
        chunks: dict[str, Chunk] = {}
        for hits in lists:
            for h in hits:
                chunks.setdefault(h.chunk.chunk_id, h.chunk)
        members = members_by_id(lists)  # what a grouping stage folded into a hit stays with it
        if self.method == "rrf":
            fused = rrf([[h.chunk.chunk_id for h in hits] for hits in lists], k=self.rrf_k, weights=self.weights)
        else:
            fused = weighted_sum([minmax({h.chunk.chunk_id: h.score for h in hits}) for hits in lists], self.weights)
        per_list = [{h.chunk.chunk_id: h.score for h in hits} for hits in lists]
        out: list[Hit] = []
        for rank, (cid, score) in enumerate(ranked(fused)[:k], start=1):
            comps = {r.name: pl[cid] for r, pl in zip(self.retrievers, per_list) if cid in pl}
            out.append(Hit(chunks[cid], score, rank, self.name, comps, members=members.get(cid, ())))
        return out
