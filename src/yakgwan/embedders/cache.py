"""Embedding cache keyed by (model_id, sha256 of the embedded text), in one SQLite file.

Shared by every index and eval run on the machine, so re-ingesting or re-evaluating the same
text never recomputes its vector.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from yakgwan.sqlite_kv import SharedDb


CACHE_FILE = "embeddings.sqlite"  # in the cache folder (``Settings.cache_dir``)


class EmbeddingCache(SharedDb):
    schema = "CREATE TABLE IF NOT EXISTS vec (model TEXT NOT NULL, key TEXT NOT NULL, dim INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (model, key))"

    @classmethod
    def in_folder(cls, cache_dir: Path) -> "EmbeddingCache":
        """The machine's embedding cache in ``cache_dir``."""
        return cls(Path(cache_dir) / CACHE_FILE)

    def get_many(self, model_id: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        db = self._db()
        for i in range(0, len(keys), 500):
            part = list(keys[i : i + 500])
            q = f"SELECT key, dim, data FROM vec WHERE model=? AND key IN ({','.join('?' * len(part))})"
            for key, dim, data in db.execute(q, [model_id, *part]):
                out[key] = np.frombuffer(data, dtype=np.float32, count=dim).copy()
        return out

    def put_many(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        db = self._db()
        with db:
            db.executemany(
                "INSERT OR REPLACE INTO vec(model, key, dim, data) VALUES (?, ?, ?, ?)",
                [(model_id, k, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()],
            )
