"""Chunker selection: 약관 structure when the text has it, Markdown headers, else by length."""

from __future__ import annotations

from yakgwan.core.protocols import Chunker
from yakgwan.core.records import Document


def chunker_for(doc: Document) -> Chunker:
    from yakgwan.chunking.yakgwan_structure import YakgwanChunker, looks_like_yakgwan

    if looks_like_yakgwan(doc.text):
        return YakgwanChunker()
    if doc.kind in ("markdown", "html", "docx") or doc.text.lstrip().startswith("#"):
        from yakgwan.chunking.markdown import MarkdownChunker

        return MarkdownChunker()
    from yakgwan.chunking.recursive import RecursiveChunker

    return RecursiveChunker()
