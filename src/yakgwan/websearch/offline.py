"""An offline search provider: BM25 (the Korean analyzer) over passages of the Markdown/text files
of a local folder. Like a web search API's snippets, a result is a passage — a header section
of at most ``PASSAGE_CHARS`` characters, longer sections cut at paragraph or sentence ends —
not a whole file; its ``url`` is ``<file>#<n>`` (n counts the file's passages from 1) and its
title the file's first line with the section's own heading. For tests and for sites without
network access."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yakgwan.ingest.chunkers.markdown import header_sections
from yakgwan.ingest.chunkers.recursive import split_spans
from yakgwan.core.errors import InputError
from yakgwan.websearch.provider import WebResult
from yakgwan.messages import msg

PASSAGE_CHARS = 600


def passages(name: str, text: str, max_chars: int = PASSAGE_CHARS) -> list[WebResult]:
    """``text`` cut into search results: header sections, long ones split; a piece holding only
    header lines is left out (a file of nothing else is one result)."""
    title = next((line.lstrip("# ").strip() for line in text.splitlines() if line.strip()), name)
    out: list[WebResult] = []
    for s, e, section in header_sections(text, 3):
        heading = section.split(" > ")[-1] if section else None
        for a, b in split_spans(text, s, e, max_chars, 0):
            if any(line.strip() and not line.lstrip().startswith("#") for line in text[a:b].splitlines()):
                out.append(WebResult(f"{name}#{len(out) + 1}", f"{title} — {heading}" if heading and heading != title else title, text[a:b]))
    return out or ([WebResult(f"{name}#1", title, text.strip())] if text.strip() else [])


@dataclass
class OfflineSearch:
    folder: Path
    name: str = "offline"
    _index: Any = field(default=None, repr=False)

    def _load(self) -> tuple[Any, Any, list[WebResult]]:
        if self._index is None:
            from yakgwan.retrieval.scoring.bm25 import BM25Index
            from yakgwan.text.registry import DEFAULT_TOKENIZER, make_tokenizer

            if not self.folder.is_dir():
                raise InputError(str(self.folder), msg("websearch.no_folder"))
            files = sorted(p for p in self.folder.rglob("*") if p.suffix.lower() in (".md", ".txt") and p.is_file())
            if not files:
                raise InputError(str(self.folder), msg("websearch.no_files"))
            docs: list[WebResult] = []
            for p in files:
                try:
                    text = p.read_text("utf-8")
                except UnicodeDecodeError:
                    raise InputError(str(p), msg("websearch.not_utf8")) from None
                docs += passages(str(p.relative_to(self.folder)), text)
            if not docs:
                raise InputError(str(self.folder), msg("websearch.no_text"))
            tok = make_tokenizer(DEFAULT_TOKENIZER)
            self._index = (BM25Index.build(tok.tokenize_many([f"{d.title}\n{d.content}" for d in docs])), tok, docs)
        return self._index

    def search(self, query: str, k: int) -> list[WebResult]:
        index, tok, docs = self._load()
        return [docs[i] for i, score in index.search(tok.tokenize(query), k) if score > 0]
