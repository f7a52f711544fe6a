"""Response cache: identical requests get identical answers, with no model call.

Keyed by sha256 over (provider, model, messages, schema, params); stored in one SQLite file
shared by every run on the machine, so an ``eval`` rerun repeats its numbers at no cost. Each
answer keeps its tokens and the time its call took, so a rerun can still say what it cost.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from yakgwan.llm.types import Completion, GenParams, Message
from yakgwan.core.records import sha256_hex
from yakgwan.sqlite_kv import SharedDb


def request_key(provider: str, model: str, messages: Sequence[Message], schema: dict[str, Any] | None, params: GenParams) -> str:
    payload = {
        "provider": provider,
        "model": model,
        "messages": [m.as_dict() for m in messages],
        "schema": schema,
        "params": params.as_dict(),
    }
    return sha256_hex(json.dumps(payload, ensure_ascii=False, sort_keys=True))


class ResponseCache(SharedDb):
    schema = "CREATE TABLE IF NOT EXISTS resp (key TEXT PRIMARY KEY, data TEXT NOT NULL)"

    def get(self, key: str) -> Completion | None:
        row = self._db().execute("SELECT data FROM resp WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        d = json.loads(row[0])
        # latency_ms: the time the call took when it was made (0.0: cached before times were kept)
        return Completion(d["text"], d["finish_reason"], d.get("prompt_tokens", 0), d.get("completion_tokens", 0), d.get("latency_ms", 0.0), cached=True)

    def put(self, key: str, c: Completion) -> None:
        data = {"text": c.text, "finish_reason": c.finish_reason, "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens,
                "latency_ms": c.latency_ms}
        db = self._db()
        with db:
            db.execute("INSERT OR REPLACE INTO resp(key, data) VALUES (?, ?)", (key, json.dumps(data, ensure_ascii=False)))
