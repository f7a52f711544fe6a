"""Search providers beyond the index, for corrective RAG's fallback: a protocol, a Tavily-style
HTTP provider and an offline provider over a local folder.

Environment (all optional): YAKGWAN_SEARCH = none (default) | tavily | offline;
YAKGWAN_SEARCH_API_KEY and YAKGWAN_SEARCH_BASE_URL (tavily; default https://api.tavily.com);
YAKGWAN_SEARCH_DIR (offline: a folder of Markdown/text files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Protocol

from yakgwan.core.errors import InputError


@dataclass(frozen=True)
class WebResult:
    url: str  # where it came from (a file path for the offline provider)
    title: str
    content: str


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, k: int) -> list[WebResult]: ...


@dataclass(frozen=True)
class SearchConfig:
    provider: str = "none"
    api_key: str | None = field(default=None, repr=False)
    base_url: str | None = None
    folder: Path | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "SearchConfig":
        folder = env.get("YAKGWAN_SEARCH_DIR")
        return cls(env.get("YAKGWAN_SEARCH", "none"), env.get("YAKGWAN_SEARCH_API_KEY"), env.get("YAKGWAN_SEARCH_BASE_URL"), Path(folder) if folder else None)


def make_search(cfg: SearchConfig) -> SearchProvider | None:
    if cfg.provider == "none":
        return None
    if cfg.provider == "tavily":
        from yakgwan.websearch.tavily import TavilySearch

        if not cfg.api_key:
            raise InputError(None, "YAKGWAN_SEARCH=tavily needs YAKGWAN_SEARCH_API_KEY")
        return TavilySearch(cfg.api_key, cfg.base_url or "https://api.tavily.com")
    if cfg.provider == "offline":
        from yakgwan.websearch.offline import OfflineSearch

        if cfg.folder is None:
            raise InputError(None, "YAKGWAN_SEARCH=offline needs YAKGWAN_SEARCH_DIR (a folder of .md/.txt files)")
        return OfflineSearch(cfg.folder)
    raise InputError(None, f"unknown YAKGWAN_SEARCH {cfg.provider!r}; available: none, tavily, offline")
