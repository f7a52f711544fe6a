"""Self-RAG, as a retriever and as an answer check.

Retriever: the LLM first decides whether the question needs the documents at all (a greeting
does not: the hits are then only labelled, and ``ask`` still answers from them or refuses); then each of the top ``top_n`` hits is judged relevant or not — P("예") from
log-probabilities when the provider gives them, else a yes/no JSON answer — and the relevant ones
come first (most probable first), the rest follow labelled ``self_rag(rejected)`` so that a
retrieval metric still sees k results and ``ask`` leaves them out. Decisions are kept in
``decisions``. Without an LLM the first stage passes through, labelled.

Answer check (:class:`yakgwan.answer.self_check.SelfCheckingAnswerer`): after the grounded answer, the LLM judges whether the
cited sentences support it and whether it answers the question; if either fails, the answer is
written once more with that feedback; if it still fails, an unsupported answer is refused and an
unhelpful one becomes partial. Each verdict is in the answer's notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.core.protocols import Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Hit, HitStatus
from yakgwan.llm.prompts.rerank import RELEVANCE_OPTIONS, relevance_messages
from yakgwan.llm.prompts.self_rag import YesNo, need_messages
from yakgwan.retrieval.hit_lists import rejected

SELF_RAG_TOP_N = 5
RELEVANT_FROM = 0.5
STEP = "self_rag"  # what rejected hits are labelled, whatever the pipeline is called
REJECTED = f"{STEP}({HitStatus.REJECTED.value})"  # their label


@dataclass
class SelfRagDecision:
    query: str
    retrieval_needed: bool
    relevance: list[tuple[str, float]] = field(default_factory=list)  # (chunk id, P(relevant))


@dataclass
class SelfRagRetriever:
    name: str
    first: Retriever
    llm: LLM | None
    top_n: int = SELF_RAG_TOP_N
    decisions: list[SelfRagDecision] = field(default_factory=list)

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        hits = self.first.retrieve(query, max(k, self.top_n))
        if self.llm is None:
            return [Hit(h.chunk, h.score, h.rank, self.name, h.components, status=HitStatus.NO_LLM_UNFILTERED, rejected=h.rejected, members=h.members) for h in hits[:k]]
        try:
            needed = self.llm.complete(need_messages(query), schema=YesNo, step="self_rag_need").yes
        except StructuredOutputError:
            needed = True  # no usable decision: search, as without Self-RAG
        d = SelfRagDecision(query, needed)
        self.decisions.append(d)
        if not needed:
            return [Hit(h.chunk, h.score, h.rank, self.name, h.components, status=HitStatus.RETRIEVAL_UNNEEDED, rejected=h.rejected, members=h.members) for h in hits[:k]]
        head, tail = hits[: self.top_n], hits[self.top_n :]
        p = [self._relevance(query, h.chunk.text) for h in head]
        d.relevance = [(h.chunk.chunk_id, round(x, 4)) for h, x in zip(head, p)]
        good = sorted((i for i in range(len(head)) if p[i] >= RELEVANT_FROM), key=lambda i: (-p[i], i))
        bad = [i for i in range(len(head)) if p[i] < RELEVANT_FROM]
        out = [Hit(head[i].chunk, head[i].score, 0, self.name, head[i].components | {"p_relevant": p[i]}, rejected=head[i].rejected, members=head[i].members) for i in good]
        out += [rejected(STEP, head[i], head[i].components | {"p_relevant": p[i]}) for i in bad]
        out += [rejected(STEP, h, h.components) for h in tail]  # not judged: not evidence either
        return [Hit(h.chunk, h.score, r, h.step, h.components, h.evidence, h.status, h.rejected, h.members) for r, h in enumerate(out[:k], 1)]

    def _relevance(self, query: str, text: str) -> float:
        msgs = relevance_messages(query, text)
        try:
            if self.llm.supports_logprobs:  # type: ignore[union-attr]
                return self.llm.option_probs(msgs, RELEVANCE_OPTIONS, step="self_rag_relevance")[RELEVANCE_OPTIONS[0]]  # type: ignore[union-attr]
            return 1.0 if self.llm.complete(msgs, schema=YesNo, step="self_rag_relevance").yes else 0.0  # type: ignore[union-attr]
        except StructuredOutputError:
            return 1.0  # no usable judgement: keep it, as the first stage would
