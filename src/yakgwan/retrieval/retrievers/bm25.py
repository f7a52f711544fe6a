"""Korean BM25 over the index's lexical postings."""

from __future__ import annotations

from yakgwan.core.protocols import k_below_one_finds_nothing
from yakgwan.core.records import Hit
from yakgwan.store import IndexView
from yakgwan.text.tokenizer import Tokenizer


class BM25Retriever:
    name = "bm25"

    def __init__(self, view: IndexView, tokenizer: Tokenizer) -> None:
        if tokenizer.name != view.tokenizer:
            raise ValueError(f"index was tokenised with {view.tokenizer!r}, not {tokenizer.name!r}")
        self.view = view
        self.tokenizer = tokenizer

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        pairs = self.view.lexical_search(self.tokenizer.tokenize(query), k)
        return [Hit(self.view.chunks[i], s, r, self.name) for r, (i, s) in enumerate(pairs, 1)]
