"""Multi-query retrieval: the first stage run for every query a transform gives, the lists merged
by RRF or by turns."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.core.protocols import QueryTransform, Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Chunk, Hit
from yakgwan.retrieval.hit_lists import fuse_hit_lists, interleave, members_by_id, pad_to_k

MULTI_QUERY_DEPTH = 50  # hits searched per query


@dataclass
class MultiQueryRetriever:
    """Runs ``base`` for every query of ``transform`` (original first) and merges the lists:
    ``merge="rrf"`` is Reciprocal Rank Fusion (the original query weighted ``original_weight``),
    ``merge="interleave"`` takes the lists' hits in turn, best first, without duplicates."""

    name: str
    base: Retriever
    transform: QueryTransform
    merge: str = "rrf"
    depth: int = MULTI_QUERY_DEPTH
    original_weight: float = 1.0

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        queries = self.transform.transform(query)
        lists = [self.base.retrieve(q, max(k, self.depth)) for q in queries]
        info = {"queries": float(len(queries))}
        if self.merge == "rrf":
            return fuse_hit_lists(self.name, lists, [self.original_weight] + [1.0] * (len(lists) - 1), k, info)
        chunks: dict[str, Chunk] = {h.chunk.chunk_id: h.chunk for hits in lists for h in hits}
        members = members_by_id(lists)
        out = [Hit(chunks[cid], s, r, self.name, info, members=members.get(cid, ())) for r, (cid, s) in enumerate(interleave(lists)[:k], 1)]
        return pad_to_k(out, lists[0], k, self.name)
