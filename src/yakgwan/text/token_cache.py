"""Index terms kept by (analyser spec, sha256 of the text), in one SQLite file in the cache folder.

A cold process that needs the terms of many short texts it has read before (the title field of
every chunk, which the clause stage scores) reads them here instead of running the analyser on
each again. Shared by every index and process on the machine; a text is analysed once per spec.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from yakgwan.core.records import sha256_hex
from yakgwan.sqlite_kv import SharedDb
from yakgwan.text.tokenizer import Tokenizer

CACHE_FILE = "tokens.sqlite"  # in the cache folder (``Settings.cache_dir``)
BATCH = 500  # keys per SQL query


class TokenCache(SharedDb):
    schema = "CREATE TABLE IF NOT EXISTS tok (spec TEXT NOT NULL, key TEXT NOT NULL, terms TEXT NOT NULL, PRIMARY KEY (spec, key))"

    @classmethod
    def in_folder(cls, cache_dir: Path) -> "TokenCache":
        """The machine's token cache in ``cache_dir``."""
        return cls(Path(cache_dir) / CACHE_FILE)

    def get_many(self, spec: str, keys: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        db = self._db()
        for i in range(0, len(keys), BATCH):
            part = list(keys[i : i + BATCH])
            q = f"SELECT key, terms FROM tok WHERE spec=? AND key IN ({','.join('?' * len(part))})"
            for key, terms in db.execute(q, [spec, *part]):
                got = json.loads(terms)
                if isinstance(got, list) and all(isinstance(t, str) for t in got):
                    out[key] = got
        return out

    def put_many(self, spec: str, items: dict[str, list[str]]) -> None:
        db = self._db()
        with db:
            db.executemany("INSERT OR REPLACE INTO tok(spec, key, terms) VALUES (?, ?, ?)",
                           [(spec, k, json.dumps(v, ensure_ascii=False)) for k, v in items.items()])


@dataclass
class CachingTokenizer:
    """``tokenizer`` whose ``tokenize_many`` reads the terms of texts seen before from ``store``
    (keyed by the analyser's spec, so another analyser or version never reads them) and keeps the
    ones it computes; ``tokenize`` (a question) is never kept."""

    tokenizer: Tokenizer
    store: TokenCache
    name: str = field(init=False)  # the analyser's
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # one SQLite connection, many threads

    def __post_init__(self) -> None:
        self.name = self.tokenizer.name

    @property
    def spec(self) -> str:
        """The analyser's: what the kept terms are keyed by."""
        return self.tokenizer.spec

    def tokenize(self, text: str) -> list[str]:
        return self.tokenizer.tokenize(text)

    def tokenize_many(self, texts: Sequence[str]) -> list[list[str]]:
        spec = self.spec
        key_of = {t: sha256_hex(t) for t in texts}  # each distinct text hashed once
        keys = [key_of[t] for t in texts]
        with self._lock:
            got = self.store.get_many(spec, list(key_of.values()))
        todo = [t for t, k in key_of.items() if k not in got]
        if todo:
            fresh = {key_of[t]: terms for t, terms in zip(todo, self.tokenizer.tokenize_many(todo))}
            with self._lock:
                self.store.put_many(spec, fresh)
            got |= fresh
        return [list(got[k]) for k in keys]

