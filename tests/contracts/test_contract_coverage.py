"""Every backend a registry names runs its protocol's contract: a backend added to a registry
without a contract class fails here, naming it."""

from __future__ import annotations

import pytest
import test_chat_local
import test_chat_openai
import test_embedder_e5
import test_embedder_hashing
import test_embedder_openai
import test_reranker_late
import test_reranker_llm
import test_retriever_first_stages
import test_retriever_late
import test_retriever_llm_techniques
from chat_contract import ChatProviderContract
from embedder_contract import EmbedderContract
from reranker_contract import RerankerContract
from retriever_contract import RetrieverContract

SUITES = (test_chat_local, test_chat_openai, test_embedder_e5, test_embedder_hashing, test_embedder_openai, test_reranker_late,
          test_reranker_llm, test_retriever_first_stages, test_retriever_late, test_retriever_llm_techniques)


def _covered(base: type, attribute: str) -> set[str]:
    """The backend names that the contract classes of ``SUITES`` derived from ``base`` run."""
    names = set()
    for module in SUITES:
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, base) and value.__name__.startswith("Test"):
                names.add(getattr(value, attribute))
    return names - {""}


@pytest.mark.unit
def test_every_registered_pipeline_runs_the_retriever_contract() -> None:
    from yakgwan.pipelines import PIPELINES

    # a pipeline over an index built with LLM ingest steps searches with hybrid_cc, which runs it
    searched_as_built = {name for name in PIPELINES if PIPELINES.get(name).ingest_steps}
    assert searched_as_built == {"llm_chunk", "preprocess"}
    assert set(PIPELINES) - searched_as_built - _covered(RetrieverContract, "PIPELINE") == set()


@pytest.mark.unit
def test_every_registered_reranker_runs_the_reranker_contract() -> None:
    from yakgwan.rerank.registry import RERANKERS

    assert set(RERANKERS) - _covered(RerankerContract, "REGISTERED") == set()


@pytest.mark.unit
def test_every_registered_embedder_runs_the_embedder_contract() -> None:
    from yakgwan.embedders import EMBEDDERS

    assert set(EMBEDDERS) - _covered(EmbedderContract, "REGISTERED") == set()


@pytest.mark.unit
def test_every_registered_chat_provider_runs_the_chat_provider_contract() -> None:
    from yakgwan.llm import PROVIDERS

    assert set(PROVIDERS) - _covered(ChatProviderContract, "REGISTERED") == set()
