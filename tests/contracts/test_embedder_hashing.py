"""The deterministic hashing embedder (the unit tests' fake) passes the Embedder contract."""

from __future__ import annotations

import pytest
from embedder_contract import EmbedderContract, registered_embedder

from yakgwan.core.protocols import Embedder


@pytest.mark.unit
class TestHashingEmbedder(EmbedderContract):
    REGISTERED = "hashing"
    BATCH_ATOL = 0.0

    def make_embedder(self) -> Embedder:
        return registered_embedder("hashing")
