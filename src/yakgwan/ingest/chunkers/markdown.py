"""Markdown chunking: one chunk per header section (the header path kept as ``section``),
long sections split by length with overlap."""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.ingest.chunkers.recursive import chunks_from_spans, split_spans
from yakgwan.core.records import Chunk, Document

_HEADER = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)


def header_sections(text: str, max_level: int) -> list[tuple[int, int, str | None]]:
    """Split ``text`` at Markdown headers of level ≤ ``max_level`` (ignoring headers inside code
    fences). Returns (start, end, header path " > "-joined) per section; text before the first
    header gets section None."""
    fences = [m.start() for m in _FENCE.finditer(text)]
    headers = []
    for m in _HEADER.finditer(text):
        inside_fence = sum(1 for f in fences if f < m.start()) % 2 == 1
        if not inside_fence and len(m.group(1)) <= max_level:
            headers.append((m.start(), len(m.group(1)), m.group(2).strip()))
    sections: list[tuple[int, int, str | None]] = []
    if not headers or headers[0][0] > 0:
        sections.append((0, headers[0][0] if headers else len(text), None))
    path: list[tuple[int, str]] = []
    for i, (pos, level, title) in enumerate(headers):
        path = [(lv, t) for lv, t in path if lv < level] + [(level, title)]
        end = headers[i + 1][0] if i + 1 < len(headers) else len(text)
        sections.append((pos, end, " > ".join(t for _, t in path)))
    return sections


@dataclass(frozen=True)
class MarkdownChunker:
    max_chars: int = 800
    overlap: int = 100
    max_level: int = 3
    min_chars: int = 40

    def split(self, doc: Document) -> list[Chunk]:
        spans: list[tuple[int, int, str | None]] = []
        pending: tuple[int, str | None] | None = None
        for s, e, section in header_sections(doc.text, self.max_level):
            if pending is not None:
                s, section = pending[0], section if section else pending[1]
                pending = None
            body = doc.text[s:e].strip()
            if len(body) < self.min_chars and e < len(doc.text):
                pending = (s, section)  # a bare header: merge it with the next section
                continue
            for a, b in split_spans(doc.text, s, e, self.max_chars, self.overlap):
                spans.append((a, b, section))
        if pending is not None:
            spans.extend((a, b, pending[1]) for a, b in split_spans(doc.text, pending[0], len(doc.text), self.max_chars, self.overlap))
        return chunks_from_spans(doc, spans, kind="section")
