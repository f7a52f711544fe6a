"""The chunker registry and the choice of a chunker for a document.

``chunker_name_for`` decides, in this order: 약관 structure when the text has it
(``looks_like_yakgwan``), Markdown headers for Markdown/HTML/DOCX documents or text that starts
with a header, else by length.
"""

from __future__ import annotations

from typing import Callable

from yakgwan.ingest.chunkers.markdown import MarkdownChunker
from yakgwan.ingest.chunkers.recursive import RecursiveChunker
from yakgwan.ingest.chunkers.yakgwan_structure import YakgwanChunker, looks_like_yakgwan
from yakgwan.core.protocols import Chunker
from yakgwan.core.records import Document
from yakgwan.core.registry import Registry

CHUNKERS: Registry[Callable[[], Chunker]] = Registry("chunker")
CHUNKERS.register("yakgwan", YakgwanChunker)
CHUNKERS.register("markdown", MarkdownChunker)
CHUNKERS.register("recursive", RecursiveChunker)

# document kinds whose loaders write Markdown headers for their headings
HEADED_KINDS = ("markdown", "html", "docx")


def chunker_name_for(doc: Document) -> str:
    """The registered chunker for ``doc``: ``yakgwan`` when its text has 약관 structure, else
    ``markdown`` when it is a Markdown/HTML/DOCX document or its text starts with ``#``, else
    ``recursive``."""
    if looks_like_yakgwan(doc.text):
        return "yakgwan"
    if doc.kind in HEADED_KINDS or doc.text.lstrip().startswith("#"):
        return "markdown"
    return "recursive"


def chunker_for(doc: Document) -> Chunker:
    """A new chunker (default settings) of the kind ``chunker_name_for`` picks for ``doc``."""
    return CHUNKERS.get(chunker_name_for(doc))()
