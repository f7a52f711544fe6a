"""What a search provider beyond the index is: the ``SearchProvider`` protocol, the
``WebResult`` it returns, and the ``SearchConfig`` that chooses one.

``config.env.search`` reads it from the environment (all optional): YAKGWAN_SEARCH = none
(default) | tavily | offline; YAKGWAN_SEARCH_API_KEY and YAKGWAN_SEARCH_BASE_URL (tavily; default
https://api.tavily.com); YAKGWAN_SEARCH_DIR (offline: a folder of Markdown/text files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


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
