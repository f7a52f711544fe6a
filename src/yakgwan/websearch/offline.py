"""An offline search provider: BM25 (the Korean analyzer) over the Markdown/text files of a local
folder, one result per file. For tests and for sites without network access."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yakgwan.errors import InputError
from yakgwan.websearch import WebResult


@dataclass
class OfflineSearch:
    folder: Path
    name: str = "offline"
    _index: Any = field(default=None, repr=False)

    def _load(self) -> tuple[Any, Any, list[WebResult]]:
        if self._index is None:
            from yakgwan.retrieval.bm25 import BM25Index
            from yakgwan.text.korean import DEFAULT_TOKENIZER, make_tokenizer

            if not self.folder.is_dir():
                raise InputError(str(self.folder), "the offline search folder does not exist")
            files = sorted(p for p in self.folder.rglob("*") if p.suffix.lower() in (".md", ".txt") and p.is_file())
            if not files:
                raise InputError(str(self.folder), "no .md or .txt files to search")
            docs = []
            for p in files:
                try:
                    text = p.read_text("utf-8")
                except UnicodeDecodeError:
                    raise InputError(str(p), "not UTF-8 text; the offline search folder holds UTF-8 .md/.txt files") from None
                title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.strip()), p.stem)
                docs.append(WebResult(str(p.relative_to(self.folder)), title, text))
            tok = make_tokenizer(DEFAULT_TOKENIZER)
            self._index = (BM25Index.build(tok.tokenize_many([d.content for d in docs])), tok, docs)
        return self._index

    def search(self, query: str, k: int) -> list[WebResult]:
        index, tok, docs = self._load()
        return [docs[i] for i, score in index.search(tok.tokenize(query), k) if score > 0]
