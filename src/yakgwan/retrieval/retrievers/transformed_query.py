"""A retriever run on a rewritten query (a HyDE passage) instead of the query itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from yakgwan.core.protocols import Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Hit, HitStatus


@dataclass
class TransformedQueryRetriever:
    """``base`` run on ``rewrite(query)`` instead of the query (e.g. a HyDE passage)."""

    name: str
    base: Retriever
    rewrite: Callable[[str], str]
    status: HitStatus = HitStatus.RANKED  # what the hits say of this step (a fallback's)

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        return [Hit(h.chunk, h.score, h.rank, self.name, status=self.status, members=h.members) for h in self.base.retrieve(self.rewrite(query), k)]
