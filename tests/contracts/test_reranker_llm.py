"""The LLM rerankers (listwise permutation, gated yes/no), made by the reranker registry, pass
the Reranker contract with a scripted LLM, and without an LLM (their first-stage-order
fallbacks)."""

from __future__ import annotations

import pytest
from contract_llm import scripted_llm
from reranker_contract import QUERY, RerankerContract, first_stage_hits, registered_reranker

from yakgwan.core.protocols import Reranker

class _AsksTheLLM:
    def test_the_llm_reordered_the_hits(self, reranker: Reranker) -> None:
        hits = first_stage_hits()
        out = reranker.rerank(QUERY, hits, len(hits))
        assert [h.chunk.chunk_id for h in out] != [h.chunk.chunk_id for h in hits]


@pytest.mark.unit
class TestListwiseLLMReranker(RerankerContract, _AsksTheLLM):
    REGISTERED = "rerank_llm"

    def make_reranker(self) -> Reranker:
        return registered_reranker("rerank_llm", llm=scripted_llm())


@pytest.mark.unit
class TestListwiseRerankerWithoutLLM(RerankerContract):
    def make_reranker(self) -> Reranker:
        return registered_reranker("rerank_llm", llm=None)


@pytest.mark.unit
class TestGatedYesNoReranker(RerankerContract, _AsksTheLLM):
    REGISTERED = "rerank_yesno"
    def make_reranker(self) -> Reranker:
        return registered_reranker("rerank_yesno", llm=scripted_llm())


@pytest.mark.unit
class TestGatedYesNoRerankerWithoutLLM(RerankerContract):
    def make_reranker(self) -> Reranker:
        return registered_reranker("rerank_yesno", llm=None)
