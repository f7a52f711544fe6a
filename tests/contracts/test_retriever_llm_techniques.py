"""The LLM-technique pipelines, each run with a scripted LLM whose answers fit its schemas,
pass the Retriever contract. ``ASKS_LLM``: the technique must have asked the LLM (so the
contract ran the technique, not its no-LLM fallback). ``KNOWN_DEFECTS``: what each fails today."""

from __future__ import annotations

import pytest
from contract_llm import scripted_llm
from retriever_contract import KEEPS_FIRST_STAGE_SCORES, NEGATIVE_K, RetrieverContract

from yakgwan.config import Settings


class LLMRetrieverContract(RetrieverContract):
    ASKS_LLM = True
    KNOWN_DEFECTS = {"test_k_below_one[-1]": NEGATIVE_K}

    def make_llm(self):  # type: ignore[no-untyped-def]
        self.llm = scripted_llm()
        return self.llm

    def test_the_technique_asked_the_llm(self, kb: Settings) -> None:
        retriever, _ = self.make_retriever(kb)
        retriever.retrieve(self.QUERY, 3)
        asked = self.llm.stats.calls + len(self.llm.provider.calls)
        assert (asked > 0) is self.ASKS_LLM, f"{self.PIPELINE}: {self.llm.stats.as_dict()}"


REORDERS = {f"test_at_most_k_hits_ranked_from_1_best_first_from_the_index[{k}]": KEEPS_FIRST_STAGE_SCORES for k in (3, 50)}


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
    KNOWN_DEFECTS = {**LLMRetrieverContract.KNOWN_DEFECTS, **REORDERS, "test_empty_query": KEEPS_FIRST_STAGE_SCORES}


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
    KNOWN_DEFECTS = {**LLMRetrieverContract.KNOWN_DEFECTS, **REORDERS}


@pytest.mark.unit
class TestRerankYesNo(LLMRetrieverContract):
    PIPELINE = "rerank_yesno"
    KNOWN_DEFECTS = {**LLMRetrieverContract.KNOWN_DEFECTS, **REORDERS}


@pytest.mark.unit
class TestCompress(LLMRetrieverContract):
    PIPELINE = "compress"


@pytest.mark.unit
class TestCorrectiveRAG(LLMRetrieverContract):
    PIPELINE = "crag"


@pytest.mark.unit
class TestMultiHop(LLMRetrieverContract):
    PIPELINE = "multihop"


@pytest.mark.unit
class TestSelfRAG(LLMRetrieverContract):
    PIPELINE = "self_rag"
    KNOWN_DEFECTS = {**LLMRetrieverContract.KNOWN_DEFECTS, **REORDERS}


@pytest.mark.unit
class TestAgentic(LLMRetrieverContract):
    PIPELINE = "agentic"


@pytest.mark.unit
class TestRaptor(LLMRetrieverContract):
    PIPELINE = "raptor"
