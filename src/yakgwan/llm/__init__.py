"""The LLM layer: chat providers (local GGUF, OpenAI-compatible, scripted), a response cache,
and the ``LLM`` facade with validated structured output.

Provider registry: a name → a factory taking ``LLMConfig`` and the cache folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from yakgwan.core.errors import UnknownName, YakgwanError
from yakgwan.messages import msg
from yakgwan.llm.cache import ResponseCache
from yakgwan.llm.facade import LLM, StructuredOutputError
from yakgwan.llm.types import ChatProvider, Completion, GenParams, Message, OptionScorer, UsageStats

__all__ = ["LLM", "LLMConfig", "ChatProvider", "Completion", "GenParams", "Message", "OptionScorer", "UsageStats", "StructuredOutputError", "make_llm", "step_fingerprint"]


@dataclass(frozen=True)
class LLMConfig:
    """``provider``: local | openai | none. ``use_cache``: False bypasses the response cache.

    ``logprobs``: whether an OpenAI-compatible endpoint returns token log-probabilities (yes/no
    reranking, Self-RAG relevance and extractive answers read them; without them those steps use
    structured answers or the first-stage order).

    Environment: YAKGWAN_LLM, YAKGWAN_LLM_MODEL, YAKGWAN_LLM_BASE_URL, YAKGWAN_LLM_API_KEY,
    YAKGWAN_LLM_LOGPROBS (1 or 0).
    """

    provider: str = "none"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    use_cache: bool = True
    logprobs: bool = True


def _local(cfg: LLMConfig, cache_dir: Path) -> ChatProvider:
    from yakgwan.llm.local_llama import LocalLlamaProvider

    return LocalLlamaProvider(model_name=cfg.model or "qwen2.5-coder-1.5b", cache_dir=cache_dir)


def _openai(cfg: LLMConfig, cache_dir: Path) -> ChatProvider:
    from yakgwan.llm.openai_chat import OpenAIChatProvider

    if not cfg.base_url or not cfg.model:
        raise YakgwanError(msg("llm.openai_config"))
    return OpenAIChatProvider(cfg.base_url, cfg.model, cfg.api_key, logprobs=cfg.logprobs)


PROVIDERS: dict[str, Callable[[LLMConfig, Path], ChatProvider]] = {
    "local": _local,
    "openai": _openai,
}


def make_llm(cfg: LLMConfig, cache_dir: Path) -> LLM | None:
    """The configured LLM, or None for ``provider="none"`` (techniques then use their labelled
    deterministic fallbacks)."""
    if cfg.provider == "none":
        return None
    factory = PROVIDERS.get(cfg.provider)
    if factory is None:
        raise UnknownName("LLM provider", cfg.provider, [*PROVIDERS, "none"])
    cache = ResponseCache(cache_dir / "llm-responses.sqlite") if cfg.use_cache else None
    return LLM(factory(cfg, cache_dir), cache=cache)


def step_fingerprint(name: str, llm: LLM | None, messages: list[Message], params: str) -> str:
    """``name:model:hash`` of what an LLM ingest step's output depends on (model, a sample of its
    prompt, its bounds): an index built by another model or prompt is re-chunked."""
    from yakgwan.core.records import sha256_hex

    sample = "\n".join(f"{m.role}:{m.content}" for m in messages)
    return f"{name}:{llm.name if llm is not None else 'none'}:{sha256_hex(sample + '|' + params)[:12]}"
