"""Retrievers built from query transforms: multi-query merging, RRF fusion, and a retriever
that runs on a transformed query (HyDE)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from yakgwan.core.protocols import Retriever
from yakgwan.core.records import Chunk, Hit
from yakgwan.retrieval.fusion import ranked, rrf


class Transform(Protocol):
    def transform(self, query: str) -> list[str]: ...


def pad_to_k(hits: list[Hit], backup: list[Hit], k: int, name: str) -> list[Hit]:
    """Never return fewer than k results when the backup list has them."""
    seen = {h.chunk.chunk_id for h in hits}
    out = list(hits)
    for h in backup:
        if len(out) >= k:
            break
        if h.chunk.chunk_id not in seen:
            seen.add(h.chunk.chunk_id)
            out.append(Hit(h.chunk, 0.0, len(out) + 1, f"{name}(padded)"))
    return out


@dataclass
class MultiQueryRetriever:
    """Runs ``base`` for every query of ``transform`` (original first) and merges the lists:
    ``merge="rrf"`` is Reciprocal Rank Fusion (the original query weighted ``original_weight``),
    ``merge="interleave"`` takes the lists' hits in turn, best first, without duplicates."""

    name: str
    base: Retriever
    transform: Transform
    merge: str = "rrf"
    depth: int = 50
    original_weight: float = 1.0

    def retrieve(self, query: str, k: int) -> list[Hit]:
        queries = self.transform.transform(query)
        lists = [self.base.retrieve(q, max(k, self.depth)) for q in queries]
        info = {"queries": float(len(queries))}
        if self.merge == "rrf":
            return fuse_hit_lists(self.name, lists, [self.original_weight] + [1.0] * (len(lists) - 1), k, info)
        chunks: dict[str, Chunk] = {h.chunk.chunk_id: h.chunk for hits in lists for h in hits}
        out = [Hit(chunks[cid], s, r, self.name, info) for r, (cid, s) in enumerate(interleave(lists)[:k], 1)]
        return pad_to_k(out, lists[0], k, self.name)


def fuse_hit_lists(name: str, lists: list[list[Hit]], weights: list[float], k: int, info: dict[str, float]) -> list[Hit]:
    """Weighted RRF of hit lists (by chunk id) as ``k`` hits labelled ``name`` carrying ``info``,
    padded from ``lists[0]`` (the original query's list) so that never fewer than k come back."""
    chunks: dict[str, Chunk] = {h.chunk.chunk_id: h.chunk for hits in lists for h in hits}
    order = ranked(rrf([[h.chunk.chunk_id for h in hits] for hits in lists], weights=weights))
    out = [Hit(chunks[cid], s, r, name, dict(info)) for r, (cid, s) in enumerate(order[:k], 1)]
    return pad_to_k(out, lists[0], k, name)


def interleave(lists: list[list[Hit]]) -> list[tuple[str, float]]:
    """The lists' hits in turn, best first, without duplicates: (chunk id, 1/rank)."""
    seen: set[str] = set()
    out: list[tuple[str, float]] = []
    for rank in range(max((len(x) for x in lists), default=0)):
        for hits in lists:
            if rank < len(hits) and hits[rank].chunk.chunk_id not in seen:
                seen.add(hits[rank].chunk.chunk_id)
                out.append((hits[rank].chunk.chunk_id, 1.0 / (rank + 1)))
    return out


@dataclass
class TransformedQueryRetriever:
    """``base`` run on ``rewrite(query)`` instead of the query (e.g. a HyDE passage)."""

    name: str
    base: Retriever
    rewrite: Callable[[str], str]

    def retrieve(self, query: str, k: int) -> list[Hit]:
        return [Hit(h.chunk, h.score, h.rank, self.name) for h in self.base.retrieve(self.rewrite(query), k)]
