"""Merging hit lists by chunk id: weighted RRF into ``k`` hits, turn-taking, padding to ``k``;
a hit at a new rank; marking a hit rejected.

The maths is :func:`yakgwan.retrieval.scoring.fusion.rrf`; these carry the hits' chunks and labels."""

from __future__ import annotations

from yakgwan.core.records import Chunk, Hit, HitStatus
from yakgwan.retrieval.scoring.fusion import ranked, rrf


def pad_to_k(hits: list[Hit], backup: list[Hit], k: int, name: str) -> list[Hit]:
    """Never return fewer than k results when the backup list has them."""
    seen = {h.chunk.chunk_id for h in hits}
    out = list(hits)
    for h in backup:
        if len(out) >= k:
            break
        if h.chunk.chunk_id not in seen:
            seen.add(h.chunk.chunk_id)
            out.append(Hit(h.chunk, 0.0, len(out) + 1, name, status=HitStatus.PADDED, members=h.members))
    return out


def fuse_hit_lists(name: str, lists: list[list[Hit]], weights: list[float], k: int, info: dict[str, float]) -> list[Hit]:
    """Weighted RRF of hit lists (by chunk id) as ``k`` hits labelled ``name`` carrying ``info``,
    padded from ``lists[0]`` (the original query's list) so that never fewer than k come back."""
    chunks: dict[str, Chunk] = {h.chunk.chunk_id: h.chunk for hits in lists for h in hits}
    members = members_by_id(lists)
    order = ranked(rrf([[h.chunk.chunk_id for h in hits] for hits in lists], weights=weights))
    out = [Hit(chunks[cid], s, r, name, dict(info), members=members.get(cid, ())) for r, (cid, s) in enumerate(order[:k], 1)]
    return pad_to_k(out, lists[0], k, name)


def members_by_id(lists: list[list[Hit]]) -> dict[str, tuple[Chunk, ...]]:
    """What a grouping stage folded into each hit, by chunk id (its first list's grouping)."""
    out: dict[str, tuple[Chunk, ...]] = {}
    for hits in lists:
        for h in hits:
            if h.members:
                out.setdefault(h.chunk.chunk_id, h.members)
    return out


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


def at_rank(
    h: Hit, rank: int, step: str, status: HitStatus = HitStatus.RANKED, score: float | None = None, components: dict[str, float] | None = None
) -> Hit:
    """``h`` at ``rank`` in the list ``step`` returns, with the ``status`` that step gives it (and
    its ``score`` and ``components``, when it gives new ones); the chunk, the evidence spans and
    the rejected mark go along unchanged."""
    return Hit(h.chunk, h.score if score is None else score, rank, step, h.components if components is None else components, h.evidence, status, h.rejected, h.members)


def rejected(step: str, h: Hit, components: dict[str, float]) -> Hit:
    """``h`` as a hit that ``step`` judged no evidence, unranked (0) until the caller ranks it;
    readers use ``Hit.rejected``; ``components["rejected"]`` shows it in ``search --json``."""
    return Hit(h.chunk, h.score, 0, step, components | {"rejected": 1.0}, h.evidence, HitStatus.REJECTED, True, h.members)
