"""POST JSON to an OpenAI-compatible endpoint with a timeout, retries with backoff, and errors a
user can act on (authentication, quota, timeout, bad response). Standard library only."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

from yakgwan.core.errors import ProviderError
from yakgwan.messages import msg

RETRY_STATUS = (408, 409, 429, 500, 502, 503, 504)


def post_json(url: str, body: dict[str, Any], api_key: str | None, timeout_s: float, retries: int) -> dict[str, Any]:
    """Returns the decoded JSON response; raises ``ProviderError`` naming the URL and reason.

    Retries (with exponential backoff 0.5, 1, 2 … s, capped at 8 s) on timeouts, connection
    errors and HTTP 408/409/429/5xx; never on 400/401/403/404.
    """
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    for attempt in range(retries + 1):
        try:
            req = urllib.request.Request(url, data=data, headers=headers, method="POST")
            with urllib.request.urlopen(req, timeout=timeout_s) as resp:
                payload = json.loads(resp.read())
            if not isinstance(payload, dict):
                raise ValueError("response is not a JSON object")
            return payload
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise ProviderError(msg("served.auth", url=url, code=exc.code)) from None
            if exc.code == 429 and attempt == retries:
                raise ProviderError(msg("served.rate", url=url, tries=retries + 1)) from None
            if exc.code not in RETRY_STATUS or attempt == retries:
                raise ProviderError(msg("served.http", url=url, code=exc.code, reason=str(exc.reason))) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            if attempt == retries:
                timed_out = isinstance(exc, TimeoutError) or "timed out" in str(exc)
                raise ProviderError(msg("served.timeout" if timed_out else "served.unreachable", url=url, tries=retries + 1, why=str(exc))) from None
        except ValueError as exc:
            raise ProviderError(msg("served.not_json", url=url, why=str(exc))) from None
        time.sleep(min(8.0, 0.5 * 2**attempt))
    raise AssertionError("unreachable")
