"""Answer units embedded ahead of the first question: every unit of the chunks once, as the
scorer reads it; a second warm-up, or a question about them, embeds nothing again."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pytest

from yakgwan.answer.extract_units import CachingEmbedder
from yakgwan.answer.select import read_as
from yakgwan.answer.unit_warm import BATCH, unit_texts, warm_units
from yakgwan.answer.units import hit_units
from yakgwan.core.records import Chunk, Hit
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.embedders.cache import EmbeddingCache

pytestmark = pytest.mark.unit


class Counting(HashingEmbedder):
    """The hashing embedder, counting the passages it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.passages = 0

    def embed(self, texts: Sequence[str], kind: str) -> np.ndarray:  # type: ignore[override]
        if kind == "passage":
            self.passages += len(texts)
        return super().embed(texts, kind)  # type: ignore[arg-type]


def _chunk(cid: str, text: str, article: str) -> Chunk:
    return Chunk(cid, "p.pdf", "p.pdf", "p", text, 0, len(text), (1,), yakgwan="보통약관", article=article, article_title="보험금의 청구")


CHUNKS = [_chunk(f"c{i}", f"제{i}조(보험금의 청구)\n① 회사는 서류를 받은 날부터 {i}영업일 이내에 지급합니다.\n② 청구서와 진단서를 냅니다.", f"제{i}조")
          for i in range(1, 90)]


def test_every_unit_is_embedded_once_and_then_read_from_the_caches(tmp_path) -> None:  # type: ignore[no-untyped-def]
    texts = unit_texts(CHUNKS)
    assert len(texts) == len(set(texts)) > BATCH  # more than one batch
    assert texts == list(dict.fromkeys(read_as(u) for u in hit_units([Hit(c, 0.0, 1, "t") for c in CHUNKS])))
    emb = Counting()
    vectors = CachingEmbedder(emb, EmbeddingCache.in_folder(tmp_path))
    seen: list[tuple[int, int]] = []
    assert warm_units(CHUNKS, vectors, sink=lambda stage, done, total: seen.append((done, total))) == len(texts)
    assert emb.passages == len(texts) and seen[0] == (0, len(texts)) and seen[-1] == (len(texts), len(texts))
    vectors.embed(texts[:5], "passage")  # what a question scores: already there
    assert warm_units(CHUNKS, vectors) == len(texts) and emb.passages == len(texts)
    # another process (a new in-memory cache) reads them from the machine's cache
    again = Counting()
    assert warm_units(CHUNKS, CachingEmbedder(again, EmbeddingCache.in_folder(tmp_path))) == len(texts) and again.passages == 0
