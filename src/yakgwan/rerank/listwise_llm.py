"""Listwise LLM reranking: the model returns a permutation of the candidates' numbers.

The answer is validated: numbers outside the list and repeats are dropped, candidates the model
left out keep their first-stage order after the ones it ranked. An answer that is not a usable
ranking (or no LLM) leaves the first-stage order unchanged, and the hits say so; so do the hits of
a ranking that is the first-stage order itself (a small model often copies the numbers as listed),
so that ``top_produced_by`` in the eval counts how often the model changed anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.core.records import Hit, HitStatus
from yakgwan.llm.prompts.rerank import Ranking, rerank_messages
from yakgwan.retrieval.hit_lists import at_rank
from yakgwan.messages import Message, msg
from yakgwan.core.errors import as_message


def apply_permutation(order: Sequence[int], n: int) -> tuple[list[int], int]:
    """0-based candidate order from the model's 1-based ``order``; returns (order, number of
    invalid or repeated entries dropped). Missing candidates follow in their original order."""
    seen: list[int] = []
    bad = 0
    for x in order:
        if 1 <= x <= n and (x - 1) not in seen:
            seen.append(x - 1)
        else:
            bad += 1
    return seen + [i for i in range(n) if i not in seen], bad


# A CPU model reads ~70 prompt tokens/s: five 240-character candidates keep one ranking to ~12 s.
RERANK_TOP_N = 5


@dataclass
class LLMListwiseReranker:
    llm: LLM | None
    top_n: int = RERANK_TOP_N
    warnings: list[Message] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 2 <= self.top_n <= 30:
            raise ValueError(f"top_n must be between 2 and 30, got {self.top_n}")

    def rerank(self, query: str, hits: Sequence[Hit], k: int) -> list[Hit]:
        head, tail = list(hits[: self.top_n]), list(hits[self.top_n :])
        order = list(range(len(head)))
        status = HitStatus.RANKED
        if self.llm is None:
            status = HitStatus.NO_LLM_FIRST_STAGE_ORDER
        elif len(head) > 1:
            try:
                answer = self.llm.complete(rerank_messages(query, [h.chunk.text for h in head]), schema=Ranking, step="rerank_llm")
                order, bad = apply_permutation(answer.order, len(head))
                if bad:
                    self.warnings.append(msg("rerank.invalid_numbers", query=query[:40], n=bad))
            except StructuredOutputError as exc:  # an unusable answer keeps the order; provider errors propagate
                self.warnings.append(msg("rerank.unusable", query=query[:40], why=as_message(exc)))
                status = HitStatus.FAILED
        if status is HitStatus.RANKED and order == list(range(len(head))):
            status = HitStatus.ORDER_UNCHANGED  # the model kept the first-stage order: the eval counts these
        reordered = [head[i] for i in order] + tail
        return [at_rank(h, r, "rerank_llm", status) for r, h in enumerate(reordered[:k], 1)]
