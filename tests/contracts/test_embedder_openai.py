"""The OpenAI-compatible embedder, configured as a user would (base URL, model, key) against a
loopback ``/v1/embeddings`` server, passes the Embedder contract."""

from __future__ import annotations

from typing import Iterator

import pytest
from embedder_contract import EmbedderContract, registered_embedder
from stub_server import JsonHandler, serve

from yakgwan.core.protocols import Embedder

DIM = 48


class _Embeddings(JsonHandler):
    def do_POST(self) -> None:  # noqa: N802
        if not self.auth_or_embeddings(self.body(), "key", DIM):
            self.send_json(404, {"error": {"message": "only /embeddings here"}})


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serve(_Embeddings) as url:
        yield url


@pytest.mark.unit
class TestOpenAIEmbedder(EmbedderContract):
    REGISTERED = "openai"
    BATCH_ATOL = 0.0

    @pytest.fixture()
    def embedder(self, base_url: str) -> Embedder:
        return registered_embedder("openai", base_url=base_url, model="stub-embed", api_key="key")
