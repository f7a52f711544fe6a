"""Chat with any OpenAI-compatible endpoint (OpenAI, Upstage Solar, vLLM, Ollama, llama.cpp
server): base_url, model and key are configuration, not code."""

from __future__ import annotations

import json
import time
from typing import Any, Sequence

from yakgwan.core.errors import ProviderError
from yakgwan.messages import msg
from yakgwan.llm.types import Completion, GenParams, Message
from yakgwan.openai_http import post_json


class OpenAIChatProvider:
    provider = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        retries: int = 3,
        json_schema_mode: bool = True,
        logprobs: bool = True,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if not model:
            raise ValueError("model must be a non-empty model name")
        if timeout_s <= 0 or retries < 0:
            raise ValueError(f"bad timeout_s={timeout_s} or retries={retries}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.retries = retries
        self.supports_schema = json_schema_mode
        self.supports_logprobs = logprobs

    def chat(self, messages: Sequence[Message], params: GenParams, schema: dict[str, Any] | None = None) -> Completion:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.as_dict() for m in messages],
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
            "seed": params.seed,
        }
        if params.stop:
            body["stop"] = list(params.stop)
        if schema is not None and self.supports_schema:
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}
        url = f"{self.base_url}/chat/completions"
        t0 = time.perf_counter()
        data = post_json(url, body, self.api_key, self.timeout_s, self.retries)
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
            usage = data.get("usage") or {}
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderError(msg("llm.not_chat", url=url, why=repr(exc))) from None
        return Completion(
            text=text,
            finish_reason=str(choice.get("finish_reason") or "stop"),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            latency_ms=(time.perf_counter() - t0) * 1000,
        )

    def option_logprobs(self, messages: Sequence[Message], options: Sequence[str]) -> Completion:
        """Log-probabilities of the options from the endpoint's ``top_logprobs`` for a one-token
        answer. An option whose first token is not among the top 20 gets ``MISSING_LOGPROB``;
        when none is there, every option is ``None`` (the answer carries no preference)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.as_dict() for m in messages],
            "temperature": 0.0,
            "max_tokens": 1,
            "logprobs": True,
            "top_logprobs": 20,
        }
        url = f"{self.base_url}/chat/completions"
        t0 = time.perf_counter()
        data = post_json(url, body, self.api_key, self.timeout_s, self.retries)
        try:
            top = data["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
            pairs = [(str(t["token"]).strip(), float(t["logprob"])) for t in top]
            usage = data.get("usage") or {}
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ProviderError(msg("llm.no_answer_logprobs", url=url, why=repr(exc))) from None
        found = {o: max((lp for tok, lp in pairs if tok and o.startswith(tok)), default=None) for o in options}
        out = found if all(v is None for v in found.values()) else {o: MISSING_LOGPROB if v is None else v for o, v in found.items()}
        return Completion(json.dumps(out), "logprobs", int(usage.get("prompt_tokens") or 0), 0, (time.perf_counter() - t0) * 1000)


MISSING_LOGPROB = -100.0
