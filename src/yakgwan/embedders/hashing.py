"""A deterministic fake embedder for unit tests: hashed character bigrams, L2-normalised.

Texts that share character bigrams get similar vectors, so ranking tests are meaningful, but it
is not a language model and is never a default.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from yakgwan.core.protocols import EmbedKind


class HashingEmbedder:
    def __init__(self, dim: int = 256) -> None:
        if dim <= 0:
            raise ValueError(f"dim must be > 0, got {dim}")
        self.dim = dim
        self.model_id = f"hashing-bigram-{dim}"

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            t = "".join(text.split())
            for a, b in zip(t, t[1:]):
                h = int.from_bytes(hashlib.blake2b((a + b).encode(), digest_size=4).digest(), "little")
                out[row, h % self.dim] += 1.0
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out
