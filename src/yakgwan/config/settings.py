"""The settings a command runs with, built once by the CLI (or the API) and passed explicitly;
nothing global. ``Settings.from_env`` builds them from the environment through ``config.env``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

import yakgwan.config.env as environment
from yakgwan.config.embedder import EmbedderConfig
from yakgwan.config.variables import EnvVar, env_field
from yakgwan.core.location import IndexLocation
from yakgwan.llm import LLMConfig
from yakgwan.websearch.provider import SearchConfig


@dataclass(frozen=True)
class Settings:
    """Where the index and the caches live, and the configs of the components a command builds.

    ``tokenizer`` is a ``TOKENIZERS`` registry name, checked when the analyser is built.
    ``quiet`` (no progress bars) comes from ``--quiet``, not from the environment.
    """

    index_dir: IndexLocation = env_field(EnvVar(
        "YAKGWAN_INDEX", "the index: a folder, or a PostgreSQL collection `postgresql://USER@HOST:PORT/DB?collection=NAME` "
        "(the `postgres` extra; see docs/scale.md) (`--index` overrides it)", values="a folder or a postgresql:// URI"))
    cache_dir: Path = env_field(EnvVar(
        "YAKGWAN_CACHE_DIR",
        "the caches: embeddings (of chunks and answer units), index terms of 조 titles, the default embedder's built graph, LLM responses, "
        "the local model's unpacked weights, and the indexes `eval` and `appeal` build",
        values="a folder",
    ))
    embedder: EmbedderConfig
    tokenizer: str = env_field(EnvVar(
        "YAKGWAN_TOKENIZER",
        "the Korean analyser for BM25: mecab-ko-dic (`mecab`), Kiwi (`kiwi`), or the terms of both merged (`mecab+kiwi`)",
        choices="tokenizer",
    ))
    quiet: bool = False
    language: str = env_field(EnvVar(
        "YAKGWAN_LANG",
        "the language of the command line's messages and progress: `ko` or `en`; unset, the locale decides "
        "(the first of `LC_ALL`, `LC_MESSAGES`, `LANG` that is set: `ko_KR.*` is Korean, anything else English). "
        "The web app and the HTTP API follow the reader instead (the toggle, `Accept-Language`)",
        values="`ko` or `en`",
    ), default="en")
    llm: LLMConfig = field(default_factory=LLMConfig)
    search: SearchConfig = field(default_factory=SearchConfig)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        e = environment.current(env)
        return cls(
            index_dir=environment.index_dir(e),
            cache_dir=environment.cache_dir(e),
            embedder=environment.embedder(e),
            tokenizer=environment.tokenizer(e),
            language=environment.language(e),
            llm=environment.llm(e),
            search=environment.search(e),
        )

    def with_(self, **changes: object) -> "Settings":
        return replace(self, **changes)  # type: ignore[arg-type]
