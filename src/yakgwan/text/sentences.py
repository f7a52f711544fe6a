"""Sentence (or line) spans of a text: what compression keeps and LLM chunking numbers."""

from __future__ import annotations

import re

from yakgwan.chunking.recursive import trim_span

_SENTENCE_END = re.compile(r"(?<=[.?!。])\s+|(?<=다\.)\s*|\n+")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of ``text``, whitespace trimmed, empties dropped."""
    spans, pos = [], 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    trimmed = (trim_span(text, s, e) for s, e in spans)
    return [(s, e) for s, e in trimmed if e > s]
