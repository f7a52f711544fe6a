"""The search provider registry: ``YAKGWAN_SEARCH`` names one of these factories.

Each factory takes the ``SearchConfig`` and checks the settings its provider needs; ``none``
(web search off) gives no provider. An unknown name's error lists the registered names.
"""

from __future__ import annotations

from typing import Callable

from yakgwan.core.errors import InputError
from yakgwan.core.registry import Registry
from yakgwan.websearch.offline import OfflineSearch
from yakgwan.websearch.provider import SearchConfig, SearchProvider
from yakgwan.websearch.tavily import TavilySearch
from yakgwan.messages import msg


def _none(cfg: SearchConfig) -> SearchProvider | None:
    return None


def _tavily(cfg: SearchConfig) -> SearchProvider | None:
    if not cfg.api_key:
        raise InputError(None, msg("websearch.tavily_key"))
    return TavilySearch(cfg.api_key, cfg.base_url or "https://api.tavily.com")


def _offline(cfg: SearchConfig) -> SearchProvider | None:
    if cfg.folder is None:
        raise InputError(None, msg("websearch.offline_dir"))
    return OfflineSearch(cfg.folder)


SEARCH_PROVIDERS: Registry[Callable[[SearchConfig], SearchProvider | None]] = Registry("search provider")
SEARCH_PROVIDERS.register("none", _none)
SEARCH_PROVIDERS.register("tavily", _tavily)
SEARCH_PROVIDERS.register("offline", _offline)


def make_search(cfg: SearchConfig) -> SearchProvider | None:
    """The provider ``cfg.provider`` names (None for ``none``); ``InputError`` for a bad setting."""
    if cfg.provider not in SEARCH_PROVIDERS:
        raise InputError(None, msg("websearch.unknown", value=repr(cfg.provider), available=", ".join(SEARCH_PROVIDERS.names())))
    return SEARCH_PROVIDERS.get(cfg.provider)(cfg)
