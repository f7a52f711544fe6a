"""Sentence (or line) spans of a text: what compression keeps and LLM chunking numbers."""

from __future__ import annotations

import re

from yakgwan.text.spans import trim_span

_SENTENCE_END = re.compile(r"(?<=[.?!。])\s+|(?<=다\.)\s*|\n+")


_LETTER_END = re.compile(r"(?<=[.!?])\s+|(?<=니다)\s+")


def letter_sentences(text: str) -> list[str]:
    """The sentences of a letter's prose, its whitespace collapsed: a sentence ends at . ! ? or
    at a closing "…니다" followed by a space (letters often drop the full stop)."""
    return [s.strip() for s in _LETTER_END.split(" ".join(text.split())) if s.strip()]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of ``text``, whitespace trimmed, empties dropped."""
    spans, pos = [], 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    trimmed = (trim_span(text, s, e) for s, e in spans)
    return [(s, e) for s, e in trimmed if e > s]


# a line that starts a new unit of a 약관 clause: a 호 ("8."), a 항 ("①"), a 목 ("가."), a
# bullet, a note, a Markdown heading or table row, an article heading
_ITEM_START = re.compile(r"\s*(?:\d{1,2}\.\s|[①-⑳]|[가-하]\.\s|\(\d{1,2}\)|[-•※◦▪*#|>]|제\s*\d+\s*조(?:의\s*\d+)?\s*\()")
# a line that ends its unit: a sentence end, a colon, a closed heading, a 약관 title, or a
# Markdown thematic break ("---" on its own line)
_UNIT_END = re.compile(r"(?:[.?!:」』)|]|다|약관)\s*$|^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")


def clause_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of a clause whose lines were wrapped by the page (a PDF's
    line breaks inside a sentence do not end it): a unit ends where a line ends a sentence or a
    heading, at a blank line, or where the next line starts a 호, 항, 목 or heading; inside a
    line, after "다.".
    Spans are verbatim and whitespace-trimmed."""
    lines = [m for m in re.finditer(r"[^\n]*(?:\n|$)", text) if m.end() > m.start()]
    units: list[tuple[int, int]] = []
    start = None
    for i, m in enumerate(lines):
        line = m.group(0).rstrip("\n")
        if start is None:
            start = m.start()
        nxt = lines[i + 1].group(0) if i + 1 < len(lines) else ""
        if not nxt or not line.strip() or not nxt.strip() or _UNIT_END.search(line) or _ITEM_START.match(nxt):
            units.append((start, m.start() + len(line)))
            start = None
    out: list[tuple[int, int]] = []
    for s, e in units:
        pos = s
        for m in re.finditer(r"(?<=다\.)[ \t]+", text[s:e]):
            out.append((pos, s + m.start()))
            pos = s + m.end()
        out.append((pos, e))
    trimmed = (trim_span(text, s, e) for s, e in out)
    return [(s, e) for s, e in trimmed if e > s]
