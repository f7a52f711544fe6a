"""Fallback chunking: split by length, preferring paragraph, line, sentence and word boundaries."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.core.records import Chunk, Document, make_chunk_id
from yakgwan.text.spans import trim_span

SEPARATORS = ("\n\n", "\n", ". ", "다. ", "? ", "! ", " ")


def split_spans(text: str, start: int, end: int, max_chars: int, overlap: int) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` into spans of at most ``max_chars`` characters.

    Each cut is placed at the last separator (tried in ``SEPARATORS`` order) inside the window,
    falling back to a hard cut; consecutive spans overlap by up to ``overlap`` characters, and the
    next span starts on a word boundary where one exists. Leading/trailing whitespace is trimmed
    from every span; empty spans are dropped.
    """
    if max_chars <= 0 or overlap < 0 or overlap >= max_chars:
        raise ValueError(f"need max_chars > overlap >= 0; got max_chars={max_chars}, overlap={overlap}")
    spans: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        pos = _skip_space(text, pos, end)
        if pos >= end:
            break
        if end - pos <= max_chars:
            spans.append(trim_span(text, pos, end))
            break
        cut = _best_cut(text, pos, pos + max_chars)
        spans.append(trim_span(text, pos, cut))
        nxt = max(cut - overlap, pos + 1)
        if overlap:
            space = text.find(" ", nxt, cut)
            nxt = space + 1 if space != -1 else nxt
        pos = max(nxt, pos + 1) if nxt < cut else cut
    return [s for s in spans if s[1] > s[0]]


def _best_cut(text: str, lo: int, hi: int) -> int:
    floor = lo + (hi - lo) // 3
    for sep in SEPARATORS:
        i = text.rfind(sep, floor, hi)
        if i != -1:
            return i + len(sep)
    return hi


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


@dataclass(frozen=True)
class RecursiveChunker:
    max_chars: int = 800
    overlap: int = 100

    def __post_init__(self) -> None:
        if self.max_chars <= self.overlap or self.overlap < 0:
            raise ValueError(f"max_chars must exceed overlap >= 0; got max_chars={self.max_chars}, overlap={self.overlap}")

    def split(self, doc: Document) -> list[Chunk]:
        spans = split_spans(doc.text, 0, len(doc.text), self.max_chars, self.overlap)
        return chunks_from_spans(doc, [(s, e, None) for s, e in spans], kind="text")


def chunks_from_spans(doc: Document, spans: list[tuple[int, int, str | None]], kind: str) -> list[Chunk]:
    """Build chunks for ``(start, end, section)`` spans, with unique content-hash ids."""
    out: list[Chunk] = []
    seen: dict[str, int] = {}
    for s, e, section in spans:
        text = doc.text[s:e]
        ordinal = seen.get(text, 0)
        seen[text] = ordinal + 1
        out.append(
            Chunk(
                chunk_id=make_chunk_id(doc.doc_id, text, ordinal),
                doc_id=doc.doc_id,
                source=doc.source,
                title=doc.title,
                text=text,
                start=s,
                end=e,
                pages=doc.pages_for(s, e),
                kind=kind,
                section=section,
                doc_type=doc.doc_type,
            )
        )
    return out
