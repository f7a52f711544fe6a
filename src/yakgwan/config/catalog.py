"""Every field the environment feeds, with its variable and its default, for the configuration
table (``scripts/config_table.py`` renders it into docs/configuration.md).

A field's variable is its :class:`EnvVar` metadata. ``LLMConfig`` and ``SearchConfig`` are defined
in ``llm/`` and ``websearch/``; their variables are declared in ``FOREIGN`` below. A default is
what ``config.env`` builds when the variable is unset (folders under ``$XDG_DATA_HOME`` and
``$XDG_CACHE_HOME`` shown as such), so the table cannot disagree with the code.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, fields
from typing import Any

import yakgwan.config.env as environment
from yakgwan.config.embedder import EmbedderConfig
from yakgwan.config.runtime import RuntimeConfig
from yakgwan.config.server import ServerConfig
from yakgwan.config.settings import Settings
from yakgwan.config.variables import EnvVar, env_var
from yakgwan.llm import LLMConfig
from yakgwan.websearch.provider import SearchConfig

PLACEHOLDERS = {"XDG_DATA_HOME": "$XDG_DATA_HOME", "XDG_CACHE_HOME": "$XDG_CACHE_HOME"}

FOREIGN: dict[tuple[type, str], EnvVar] = {
    (LLMConfig, "provider"): EnvVar(
        "YAKGWAN_LLM",
        "the LLM of the query techniques, `ask` and `eval --answers`, and appeal analysis: `none` (every "
        "technique runs its labelled deterministic fallback), `local` (a bundled GGUF model via "
        "llama.cpp), `openai` (an OpenAI-compatible endpoint: OpenAI, Upstage Solar, vLLM, Ollama, llama.cpp server)",
        choices="LLM provider",
    ),
    (LLMConfig, "model"): EnvVar(
        "YAKGWAN_LLM_MODEL",
        "the model: for `local` a bundled model (`qwen2.5-coder-1.5b` when unset), for `openai` the endpoint's (needed)",
        values="for `openai`, the endpoint's model name",
        choices="local model",
    ),
    (LLMConfig, "base_url"): EnvVar("YAKGWAN_LLM_BASE_URL", "for `openai`: the endpoint (needed)", values="a URL"),
    (LLMConfig, "api_key"): EnvVar("YAKGWAN_LLM_API_KEY", "for `openai`: the key", values="a key"),
    (LLMConfig, "logprobs"): EnvVar(
        "YAKGWAN_LLM_LOGPROBS",
        "`0` for an OpenAI-compatible endpoint that returns no token log-probabilities: the yes/no "
        "reranker then keeps the first-stage order, Self-RAG and extractive answers ask for structured yes/no answers",
    ),
    (SearchConfig, "provider"): EnvVar(
        "YAKGWAN_SEARCH",
        "the search beyond the index that corrective RAG falls back to: `none`, `tavily` (a Tavily-style "
        "HTTP API) or `offline` (the Markdown/text files of a folder, as passages of at most 600 characters)",
        choices="search provider",
    ),
    (SearchConfig, "api_key"): EnvVar("YAKGWAN_SEARCH_API_KEY", "for `tavily`: the key (needed)", values="a key"),
    (SearchConfig, "base_url"): EnvVar(
        "YAKGWAN_SEARCH_BASE_URL", "for `tavily`: the endpoint (`https://api.tavily.com` when unset)", values="a URL",
    ),
    (SearchConfig, "folder"): EnvVar("YAKGWAN_SEARCH_DIR", "for `offline`: the folder of `.md`/`.txt` files (needed)", values="a folder"),
}


@dataclass(frozen=True)
class Entry:
    """One variable: the config class and field it feeds, the field's type, and its default."""

    var: EnvVar
    config: str
    field: str
    type: Any
    default: Any


def _defaults() -> list[tuple[type, object]]:
    settings = Settings.from_env(PLACEHOLDERS)
    return [
        (Settings, settings),
        (EmbedderConfig, settings.embedder),
        (LLMConfig, settings.llm),
        (SearchConfig, settings.search),
        (ServerConfig, ServerConfig.from_env(settings, PLACEHOLDERS)),
        (RuntimeConfig, environment.runtime(PLACEHOLDERS)),
    ]


def entries() -> list[Entry]:
    """Every environment-fed field of every config, in the order of the configs and their fields."""
    out: list[Entry] = []
    for cls, built in _defaults():
        hints = typing.get_type_hints(cls)
        for f in fields(cls):  # type: ignore[arg-type]
            var = env_var(f) or FOREIGN.get((cls, f.name))
            if var is not None:
                out.append(Entry(var, cls.__name__, f.name, hints[f.name], getattr(built, f.name)))
    return out
