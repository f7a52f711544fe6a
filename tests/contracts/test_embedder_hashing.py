"""The deterministic hashing embedder (the unit tests' fake) passes the Embedder contract."""

from __future__ import annotations

import pytest
from embedder_contract import EmbedderContract

from yakgwan.core.protocols import Embedder
from yakgwan.embedders.hashing import HashingEmbedder


@pytest.mark.unit
class TestHashingEmbedder(EmbedderContract):
    BATCH_ATOL = 0.0

    def make_embedder(self) -> Embedder:
        return HashingEmbedder(dim=64)
