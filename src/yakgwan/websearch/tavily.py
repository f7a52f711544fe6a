"""A Tavily-style web search API: POST {base_url}/search with the key, query and result count;
answers ``{"results": [{"url", "title", "content"}]}``. Timeouts, retries and auth errors as for
the LLM endpoints."""

from __future__ import annotations

from dataclasses import dataclass, field

from yakgwan.core.errors import ProviderError
from yakgwan.openai_http import post_json
from yakgwan.websearch.provider import WebResult
from yakgwan.messages import msg


@dataclass
class TavilySearch:
    api_key: str = field(repr=False)
    base_url: str = "https://api.tavily.com"
    timeout_s: float = 20.0
    retries: int = 2
    name: str = "tavily"

    def search(self, query: str, k: int) -> list[WebResult]:
        url = self.base_url.rstrip("/") + "/search"
        out = post_json(url, {"api_key": self.api_key, "query": query, "max_results": k}, self.api_key, self.timeout_s, self.retries)
        rows = out.get("results")
        if not isinstance(rows, list):
            raise ProviderError(msg("websearch.no_results", url=url))
        return [WebResult(str(r.get("url", "")), str(r.get("title", "")), str(r.get("content", ""))) for r in rows[:k] if isinstance(r, dict) and r.get("content")]
