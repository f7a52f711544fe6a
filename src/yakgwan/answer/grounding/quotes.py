"""Quotes: a citation's quote is a verbatim span of its chunk, and a shown sentence quoted as an
answer reads as the reader would read it (its markup dropped, a table row as header: cell)."""

from __future__ import annotations

import re

from yakgwan.answer.anchors import normalise
from yakgwan.answer.passages import header_row, row_cells
from yakgwan.answer.records import Citation, Generated, Sentence

_MARKUP = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+|\*\*|__")


def same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def quote_is_verbatim(c: Citation, chunk_text: str) -> bool:
    """The quote occurs in the chunk (whitespace normalised only)."""
    return " ".join(c.quote.split()) in " ".join(chunk_text.split())


def readable(sentence: Sentence) -> str:
    """A shown sentence as an answer reads it: without list markers and bold marks, and a
    table row as "header: cell" pairs when its table has a header row ("| 2020 | 85,000,000원 |"
    under "| 연도 | 연봉 |" → "연도: 2020, 연봉: 85,000,000원"); the citation keeps it verbatim."""
    if (head := header_row(sentence)) is not None:
        cells, names = row_cells(sentence.text), row_cells(head)
        if len(names) == len(cells):
            return ", ".join(f"{n}: {c}" if n else c for n, c in zip(names, cells) if c)
    return " ".join(_MARKUP.sub("", sentence.text).split())


def quoted_text(sentence: Sentence) -> str:
    """The sentence as a quoting answer shows it (:func:`readable`), after the last part of its
    heading when that says what the sentence does not ("2010년 — 9월: 본사 명동 하늘빌딩으로 이전")."""
    text = readable(sentence)
    last = sentence.chunk.heading().split(" > ")[-1].strip()
    return f"{last} — {text}" if last and normalise(last) not in normalise(text) else text


def quote(sentence: Sentence) -> Generated:
    """The answer that is the sentence itself (:func:`quoted_text`), cited."""
    text = quoted_text(sentence)
    return Generated("answered", f"{text} [1]", [Citation.of(1, sentence.chunk, sentence.text)], claims_text=text, quoted=True)
