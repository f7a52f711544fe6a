"""Multi-hop retrieval: the LLM splits the question into sub-questions, each is searched, and
after each hop the LLM reads what was found and says whether it is enough or which follow-up
query to search next, up to ``max_hops``. The hops' lists are fused by RRF with the original
question's list first and weighted double, so a hop can add evidence but not push the direct
hits far down. The chain (sub-questions, follow-ups, what each found) is kept in ``chains``.

Without an LLM the original question alone is searched, labelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.llm.prompts.multihop import NextHop, SubQuestions, decompose_messages, next_hop_messages
from yakgwan.core.protocols import Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Hit, HitStatus
from yakgwan.query.expander import shares_content_word
from yakgwan.retrieval.hit_lists import fuse_hit_lists, interleave
from yakgwan.text.tokenizer import Tokenizer

MAX_HOPS = 3
HOP_DEPTH = 20
DIRECT_WEIGHT = 2.0  # of the question's own list in the fusion with the hops' lists


@dataclass
class Hop:
    query: str
    found: list[str]  # chunk ids, best first


@dataclass
class MultiHopRetriever:
    name: str
    first: Retriever
    llm: LLM | None
    tokenizer: Tokenizer
    max_hops: int = MAX_HOPS
    chains: list[list[Hop]] = field(default_factory=list)

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        direct = self.first.retrieve(query, max(k, HOP_DEPTH))
        if self.llm is None:
            return [Hit(h.chunk, h.score, h.rank, self.name, h.components, status=HitStatus.NO_LLM_ONE_HOP, rejected=h.rejected, members=h.members) for h in direct[:k]]
        chain = [Hop(query, [h.chunk.chunk_id for h in direct])]
        self.chains.append(chain)
        lists = [direct]
        try:
            subs = self.llm.complete(decompose_messages(query), schema=SubQuestions, step="multihop_decompose").questions
        except StructuredOutputError:
            subs = []
        pending = [q for q in subs if q.strip() and q.strip() != query.strip() and shares_content_word(q, query, self.tokenizer)]
        seen = {query.strip()}
        while len(chain) <= self.max_hops:
            if not pending:  # the planned hops are done (or there were none): enough, or a follow-up?
                try:
                    nxt = self.llm.complete(next_hop_messages(query, _top_texts(lists, 6)), schema=NextHop, step="multihop_next")
                except StructuredOutputError:
                    break
                follow = nxt.query.strip()
                if nxt.enough or not follow or follow in seen:
                    break
                pending.append(follow)
            q = pending.pop(0).strip()
            if q in seen:
                continue
            seen.add(q)
            hits = self.first.retrieve(q, HOP_DEPTH)
            lists.append(hits)
            chain.append(Hop(q, [h.chunk.chunk_id for h in hits]))
        return fuse_hit_lists(self.name, lists, [DIRECT_WEIGHT] + [1.0] * (len(lists) - 1), k, {"hops": float(len(chain) - 1)})


def _top_texts(lists: list[list[Hit]], n: int) -> list[str]:
    """The best hit of each list in turn, without duplicates, up to ``n`` texts."""
    chunks = {h.chunk.chunk_id: h.chunk for hits in lists for h in hits}
    return [chunks[cid].text for cid, _ in interleave(lists)[:n]]
