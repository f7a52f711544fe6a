"""The ``late`` pipeline (the default first stage reranked by MaxSim over e5 token vectors)
passes the Retriever contract over the contract knowledge base embedded with the bundled e5 model."""

from __future__ import annotations

import pytest
from contract_e5 import loaded_e5
from contract_kb import ingest_kb
from retriever_contract import RetrieverContract

from yakgwan.config import Settings
from yakgwan.core.protocols import Embedder


@pytest.fixture(scope="module")
def e5_kb(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingest_kb(tmp_path_factory.mktemp("contract_kb_e5"), loaded_e5(), "e5-small")


@pytest.mark.integration
class TestLateInteractionRetriever(RetrieverContract):
    PIPELINE = "late"

    def make_embedder(self) -> Embedder:
        return loaded_e5()

    @pytest.fixture()
    def kb(self, e5_kb: Settings) -> Settings:
        return e5_kb
