"""The LLM-technique pipelines, each run with a scripted LLM whose answers fit its schemas,
pass the Retriever contract. ``ASKS_LLM``: the technique must have asked the LLM (so the
contract ran the technique, not its no-LLM fallback). ``ORDERS_BY_OWN_SCORE`` is False for the
stages that reorder the first stage's hits by an LLM's judgement without scoring them: their
hits keep the first stage's scores (``Hit.score``)."""

from __future__ import annotations

import pytest
from contract_llm import scripted_llm
from retriever_contract import RetrieverContract

from yakgwan.config import Settings


class LLMRetrieverContract(RetrieverContract):
    ASKS_LLM = True

    def make_llm(self):  # type: ignore[no-untyped-def]
        self.llm = scripted_llm()
        return self.llm

    def test_the_technique_asked_the_llm(self, kb: Settings) -> None:
        retriever, _ = self.make_retriever(kb)
        retriever.retrieve(self.QUERY, 3)
        asked = self.llm.stats.calls + len(self.llm.provider.calls)
        assert (asked > 0) is self.ASKS_LLM, f"{self.PIPELINE}: {self.llm.stats.as_dict()}"


@pytest.mark.unit
class TestRewrite(LLMRetrieverContract):
    PIPELINE = "rewrite"


@pytest.mark.unit
class TestMultiQuery(LLMRetrieverContract):
    PIPELINE = "multiquery"


@pytest.mark.unit
class TestFusion(LLMRetrieverContract):
    PIPELINE = "fusion"


@pytest.mark.unit
class TestExpansion(LLMRetrieverContract):
    PIPELINE = "expansion"
    ORDERS_BY_OWN_SCORE = False  # the merged list reranked by the listwise LLM


@pytest.mark.unit
class TestHyde(LLMRetrieverContract):
    PIPELINE = "hyde"


@pytest.mark.unit
class TestReverseHyde(LLMRetrieverContract):
    PIPELINE = "reverse_hyde"


@pytest.mark.unit
class TestHybridHyde(LLMRetrieverContract):
    PIPELINE = "hybrid_hyde"


@pytest.mark.unit
class TestRerankLLM(LLMRetrieverContract):
    PIPELINE = "rerank_llm"
    ORDERS_BY_OWN_SCORE = False  # the listwise LLM's permutation


@pytest.mark.unit
class TestRerankYesNo(LLMRetrieverContract):
    PIPELINE = "rerank_yesno"
    ORDERS_BY_OWN_SCORE = False  # the LLM's P(yes), when the gate opens


@pytest.mark.unit
class TestCompress(LLMRetrieverContract):
    PIPELINE = "compress"


@pytest.mark.unit
class TestCorrectiveRAG(LLMRetrieverContract):
    PIPELINE = "crag"
    ORDERS_BY_OWN_SCORE = False  # kept hits by the LLM's grade, then the rejected ones


@pytest.mark.unit
class TestMultiHop(LLMRetrieverContract):
    PIPELINE = "multihop"


@pytest.mark.unit
class TestSelfRAG(LLMRetrieverContract):
    PIPELINE = "self_rag"
    ORDERS_BY_OWN_SCORE = False  # relevant hits first, most probable first


@pytest.mark.unit
class TestAgentic(LLMRetrieverContract):
    PIPELINE = "agentic"


@pytest.mark.unit
class TestRaptor(LLMRetrieverContract):
    PIPELINE = "raptor"
