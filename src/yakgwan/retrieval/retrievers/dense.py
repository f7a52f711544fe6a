"""Dense retrieval: cosine similarity between the query vector and every chunk vector."""

from __future__ import annotations

from yakgwan.core.protocols import EmbedKind, Embedder, k_below_one_finds_nothing
from yakgwan.core.records import Hit
from yakgwan.store import IndexView


class DenseRetriever:
    name = "dense"

    def __init__(self, view: IndexView, embedder: Embedder, kind: EmbedKind = "query", name: str = "dense") -> None:
        if embedder.model_id != view.embedder:
            raise ValueError(f"index was embedded with {view.embedder!r}, not {embedder.model_id!r}")
        self.view = view
        self.embedder = embedder
        self.kind: EmbedKind = kind  # "passage" for a hypothetical document (HyDE)
        self.name = name

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        qvec = self.embedder.embed([query], self.kind)[0]
        pairs = self.view.dense_search(qvec, k)
        return [Hit(self.view.chunks[i], s, r, self.name) for r, (i, s) in enumerate(pairs, 1)]
