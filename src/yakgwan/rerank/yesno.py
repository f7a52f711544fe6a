"""Gated pointwise reranking: the LLM's probability that a passage answers the question,
read from its next-token log-probabilities ("예" vs "아니오"), no text generated.

Judging every pair is slow on a CPU (one forward pass over question + passage each) and a
small model's judgement is noisy: used on every query it lowers MRR where the first stage is
already right. So the step is gated: it only reorders the top ``top_m`` hits when the first
stage's two best scores are within ``margin`` of each other (relative to the best), i.e. when
the first stage itself is unsure. Otherwise the hits pass through unchanged, and say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.core.records import Hit, HitStatus
from yakgwan.llm.prompts.rerank import RELEVANCE_OPTIONS, relevance_messages

LABEL = "rerank_yesno"
GATE_MARGIN = 0.05
GATE_TOP_M = 3


def first_stage_is_close(scores: Sequence[float], margin: float) -> bool:
    """True when the best two scores differ by less than ``margin`` times the best one's size
    (scale-free: min-max fused scores in [0, 1] and RRF's ~1/60 are treated alike)."""
    if len(scores) < 2:
        return False
    top, second = scores[0], scores[1]
    size = abs(top)
    if size == 0.0:
        return True
    return (top - second) / size < margin


@dataclass
class GatedPointwiseReranker:
    llm: LLM | None
    top_m: int = GATE_TOP_M
    margin: float = GATE_MARGIN
    queries: int = field(default=0, init=False)
    gated: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if not 2 <= self.top_m <= 20:
            raise ValueError(f"top_m must be between 2 and 20, got {self.top_m}")
        if not 0.0 <= self.margin <= 1.0:
            raise ValueError(f"margin must be in [0, 1], got {self.margin}")

    def rerank(self, query: str, hits: Sequence[Hit], k: int) -> list[Hit]:
        self.queries += 1
        head, tail = list(hits[: self.top_m]), list(hits[self.top_m :])
        if self.llm is None:
            return _relabel(list(hits)[:k], HitStatus.NO_LLM_FIRST_STAGE_ORDER)
        if not self.llm.supports_logprobs:
            return _relabel(list(hits)[:k], HitStatus.NO_LOGPROBS)
        if len(head) < 2 or not first_stage_is_close([h.score for h in head], self.margin):
            return _relabel(list(hits)[:k], HitStatus.GATE_CLOSED)
        self.gated += 1
        yes = RELEVANCE_OPTIONS[0]
        try:
            p_yes = [self.llm.option_probs(relevance_messages(query, h.chunk.text), RELEVANCE_OPTIONS, step="rerank_yesno")[yes] for h in head]
        except StructuredOutputError:  # no usable judgement (e.g. no option among an endpoint's top tokens)
            return _relabel(list(hits)[:k], HitStatus.FAILED)
        order = sorted(range(len(head)), key=lambda i: (-p_yes[i], i))  # ties keep the first-stage order
        judged = [Hit(head[i].chunk, head[i].score, 0, LABEL, head[i].components | {"p_yes": p_yes[i]}, head[i].evidence, rejected=head[i].rejected, members=head[i].members) for i in order]
        return _relabel(judged + tail, None)[:k]


def _relabel(hits: list[Hit], status: HitStatus | None) -> list[Hit]:
    """``hits`` ranked 1.. in order; with a ``status``, labelled as this step's (else as they were)."""
    if status is None:
        return [Hit(h.chunk, h.score, r, h.step, h.components, h.evidence, h.status, h.rejected, h.members) for r, h in enumerate(hits, 1)]
    return [Hit(h.chunk, h.score, r, LABEL, h.components, h.evidence, status, h.rejected, h.members) for r, h in enumerate(hits, 1)]
