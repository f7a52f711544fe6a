"""Typed settings, built once by the CLI (or the API) and passed explicitly; nothing global.

Environment variables (all optional):
  YAKGWAN_INDEX            default index folder (else $XDG_DATA_HOME/yakgwan/index)
  YAKGWAN_CACHE_DIR        embedding cache folder (else $XDG_CACHE_HOME/yakgwan)
  YAKGWAN_EMBEDDER         registry name: e5-small (default), e5-small-native, openai, hashing
  YAKGWAN_EMBED_BASE_URL   for "openai": the endpoint, e.g. http://127.0.0.1:8080/v1
  YAKGWAN_EMBED_MODEL      for "openai": the model name
  YAKGWAN_EMBED_API_KEY    for "openai": the key (never stored in the index)
  YAKGWAN_TOKENIZER        registry name of the Korean analyzer
  YAKGWAN_LLM              LLM provider for query techniques: none (default), local, openai
  YAKGWAN_LLM_MODEL, YAKGWAN_LLM_BASE_URL, YAKGWAN_LLM_API_KEY   its model, endpoint and key
  YAKGWAN_LLM_LOGPROBS     0 when an OpenAI-compatible endpoint returns no token log-probabilities
  YAKGWAN_SEARCH           search provider for corrective RAG's fallback: none (default), tavily, offline
  YAKGWAN_SEARCH_API_KEY, YAKGWAN_SEARCH_BASE_URL, YAKGWAN_SEARCH_DIR   its key, endpoint, or folder
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from yakgwan.websearch import SearchConfig

if TYPE_CHECKING:
    from yakgwan.llm import LLMConfig


def _default_llm() -> "LLMConfig":
    from yakgwan.llm import LLMConfig

    return LLMConfig()


def _llm_from_env(env: Mapping[str, str]) -> "LLMConfig":
    from yakgwan.llm import LLMConfig

    return LLMConfig.from_env(env)


def _xdg(env: Mapping[str, str], var: str, fallback: str) -> Path:
    base = env.get(var) or str(Path(env.get("HOME", str(Path.home()))) / fallback)
    return Path(base) / "yakgwan"


@dataclass(frozen=True)
class EmbedderConfig:
    name: str = "e5-small"
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Settings:
    index_dir: Path
    cache_dir: Path
    embedder: EmbedderConfig
    tokenizer: str
    quiet: bool = False
    llm: "LLMConfig" = field(default_factory=lambda: _default_llm())
    search: SearchConfig = field(default_factory=SearchConfig)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        from yakgwan.text.registry import DEFAULT_TOKENIZER

        return cls(
            index_dir=Path(env["YAKGWAN_INDEX"]) if env.get("YAKGWAN_INDEX") else _xdg(env, "XDG_DATA_HOME", ".local/share") / "index",
            cache_dir=Path(env["YAKGWAN_CACHE_DIR"]) if env.get("YAKGWAN_CACHE_DIR") else _xdg(env, "XDG_CACHE_HOME", ".cache"),
            embedder=EmbedderConfig(
                name=env.get("YAKGWAN_EMBEDDER", "e5-small"),
                base_url=env.get("YAKGWAN_EMBED_BASE_URL"),
                model=env.get("YAKGWAN_EMBED_MODEL"),
                api_key=env.get("YAKGWAN_EMBED_API_KEY"),
            ),
            tokenizer=env.get("YAKGWAN_TOKENIZER", DEFAULT_TOKENIZER),
            llm=_llm_from_env(env),
            search=SearchConfig.from_env(env),
        )

    def with_(self, **changes: object) -> "Settings":
        return replace(self, **changes)  # type: ignore[arg-type]
