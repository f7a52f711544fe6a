"""Answer units: the spans of the retrieved passages an answer may quote, as the document is built.

A 약관 answers with its items: one 항 (``① 보험수익자는 다음의 서류를 제출하고 …``) together with
its 호 (``1. 청구서(회사 양식)`` …) and its provisos (``다만, …``), which the sentence splitter
cuts apart. So inside an article a unit runs from one 항 mark (①–⑳) to the next; elsewhere (a
Markdown page, a table, a 약관 article without 항 marks) each sentence or row is a unit. The
article's heading line (``제7조(보험금의 청구)``), a 약관's name line and a Markdown heading line
(``### 2008년 - 창립``) are never units: they are the unit's provenance (the chunk's heading or
section path, or, in a chunk that holds Markdown headings, the path of the headings it sits
under), shown beside it. Nor is a Markdown table's header row or its ``|---|`` rule: a row is read and shown
with its header ("연도: 2020, 연봉: 85,000,000원"), and quoted verbatim. Outside an article, a line that
introduces a list (it ends with a colon: "A: 마일리지 유효기간:") says nothing on its own: it is one unit
with the list items that follow it, as far as ``UNIT_CHARS``. Every unit is a verbatim span of its chunk.

A grouped hit (:mod:`yakgwan.retrieval.grouping`) brings the other pieces of its 조 as members:
their units count too, since one 조 is often indexed as several chunks. A question that asks an
exact kind of answer (a period, an amount, documents) reads the whole 조 of each hit
(:func:`with_article_pieces`): the hit that matched its words is often the 항 beside the one that
holds the figure (제18조⑥ on a disputed date, where ① gives the 15 days).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from yakgwan.answer.grounding.quotes import readable
from yakgwan.answer.passages import labels_only
from yakgwan.answer.records import Sentence
from yakgwan.core.records import Chunk, Hit
from yakgwan.text.instructions import without_instructions
from yakgwan.text.sentences import clause_spans

UNIT_CHARS = 600  # a 항 with its 호 longer than this is cut at the sentence that passes it
_HANG = re.compile(r"\s*[①-⑳➀-➉]")  # the 항 marks printed in Korean 약관 (➀ is the variant some PDFs carry)
_HEADING = re.compile(r"\s*제\s*\d+\s*조(?:\s*의\s*\d+)?\s*\([^)\n]*\)?\s*$")
_CONTENT = re.compile(r"[0-9A-Za-z가-힣]")
_MARKDOWN_HEADING_LINE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)  # ATX headings (CommonMark)
_INTRODUCES = re.compile(r":[*_]*\s*$")  # a line that ends with a colon (bold marks aside) introduces what follows
_LIST_ITEM = re.compile(r"\s*(?:[-*+•]|\d{1,2}[.)])\s")  # a bullet or numbered list item (CommonMark)
_TABLE_ROW = re.compile(r"\s*\|")  # a Markdown table row


@dataclass(frozen=True)
class Unit:
    """A quotable span of ``chunk`` (``text == chunk.text[start:end]``), from the hit ranked ``rank``."""

    chunk: Chunk
    start: int
    end: int
    text: str
    rank: int
    # the unit's own heading path when the chunk holds Markdown headings (:func:`heading_paths`);
    # empty: the chunk's heading is the unit's
    path: str = ""
    # the other 약관 · 조 that print these very words: the hit's clone 특약 (members of another 약관)
    # whose text holds the unit verbatim, whitespace aside
    also: tuple[str, ...] = ()

    def readable(self) -> str:
        """The unit as the answer shows it: without list and bold marks, a table row as "header:
        cell" pairs (:func:`~yakgwan.answer.grounding.quotes.readable`); its citation keeps ``text``."""
        return readable(Sentence("", self.chunk, self.text, self.start))

    def heading(self) -> str:
        """Where the unit sits: its own path (``… > 2. 필요 서류 > 의료비 청구``), else the chunk's heading."""
        return self.path or self.chunk.heading()


def chunk_units(chunk: Chunk) -> list[tuple[int, int]]:
    """The unit spans of one chunk (see the module docstring), in document order."""
    spans = [(s, e) for s, e in clause_spans(chunk.text) if _CONTENT.search(chunk.text[s:e])]
    lines = {chunk.yakgwan.replace(" ", "")} if chunk.yakgwan else set()
    spans = [(s, e) for s, e in spans if not _HEADING.match(chunk.text[s:e])
             and chunk.text[s:e].replace(" ", "") not in lines and not labels_only(Sentence("", chunk, chunk.text[s:e], s))]
    if not chunk.article:
        return _with_their_lists(chunk.text, spans)
    out: list[list[int]] = []
    for s, e in spans:
        if out and not _HANG.match(chunk.text[s:e]) and e - out[-1][0] <= UNIT_CHARS:
            out[-1][1] = e
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def member_kind(text: str) -> str | None:
    """Whether a unit's ``text`` is a member of a table (``"row"``) or of a list (``"item"``); None: neither."""
    return "row" if _TABLE_ROW.match(text) else "item" if _LIST_ITEM.match(text) else None


def _with_their_lists(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` with each line that introduces a list joined to the list items right after it
    (the text between them blank), as far as ``UNIT_CHARS``."""
    out: list[list[int]] = []
    open_list = False
    for s, e in spans:
        if (open_list and member_kind(text[s:e]) == "item" and not text[out[-1][1]:s].strip() and e - out[-1][0] <= UNIT_CHARS):
            out[-1][1] = e
            continue
        out.append([s, e])
        open_list = bool(_INTRODUCES.search(text[s:e]))
    return [(s, e) for s, e in out]


def heading_paths(chunk: Chunk) -> list[tuple[int, str]]:
    """(offset, path) at each Markdown heading inside the chunk: the heading path in force from
    that offset on. The path starts with the chunk's section path up to the first part that is
    printed as a heading inside the chunk (a chunk that joins a short section to the next one is
    named after the later heading), then the headings inside the chunk by level: a heading closes
    those of its level and deeper (``여행자 보험 > 청구 방법 > 2. 필요 서류 > 의료비 청구``).
    Empty when the chunk holds no Markdown heading."""
    found = [(m.start(), len(m.group(1)), m.group(2).strip()) for m in _MARKDOWN_HEADING_LINE.finditer(chunk.text)]
    if not found:
        return []
    parts = [p.strip() for p in (chunk.section or "").split(">") if p.strip()]
    inside = {title for _, _, title in found}
    base = parts[: next((i for i, p in enumerate(parts) if p in inside), len(parts))]
    stack: list[tuple[int, str]] = []
    out: list[tuple[int, str]] = [(0, " > ".join(base))]  # text before the first heading: the section above it
    for pos, level, title in found:
        stack = [(lv, t) for lv, t in stack if lv < level]
        stack.append((level, title))
        out.append((pos, " > ".join([*base, *(t for _, t in stack)])))
    return out


def _path_at(paths: list[tuple[int, str]], start: int) -> str:
    """The heading path in force at ``start`` (see :func:`heading_paths`)."""
    now = ""
    for pos, path in paths:
        if pos > start:
            break
        now = path
    return now


ARTICLE_CHARS = 2000  # a 조 longer than this (a long list, a table) is not read whole

ArticleKey = tuple[str, str, str]  # document, 약관, 조


def article_key(c: Chunk) -> ArticleKey | None:
    """The 조 a chunk is a piece of; None outside a 약관's 조."""
    return (c.doc_id, c.yakgwan, c.article) if c.yakgwan and c.article else None


def with_article_pieces(hits: Sequence[Hit], pieces: Mapping[ArticleKey, Sequence[Chunk]], limit: int = ARTICLE_CHARS) -> list[Hit]:
    """``hits``, each whose 조 holds at most ``limit`` characters (``pieces``: every piece of each
    조 of the index) carrying the pieces no hit holds yet as members; the ranks and chunks are
    kept. Pure."""
    seen = {c.chunk_id for h in hits for c in (h.chunk, *h.members)}
    out: list[Hit] = []
    for h in hits:
        key = article_key(h.chunk)
        whole = pieces.get(key, ()) if key is not None else ()
        more = tuple(c for c in whole if c.chunk_id not in seen) if sum(len(c.text) for c in whole) <= limit else ()
        seen.update(c.chunk_id for c in more)
        out.append(replace(h, members=(*h.members, *more)) if more else h)
    return out


def _pieces(h: Hit) -> list[Chunk]:
    """The hit's chunk and the members that are further pieces of the same 조 (not clone 특약)."""
    same = [m for m in h.members if h.chunk.article and m.yakgwan == h.chunk.yakgwan and m.article == h.chunk.article]
    return sorted([h.chunk, *same], key=lambda c: (c.pages[0] if c.pages else 0, c.start))


def _flat(text: str) -> str:
    return "".join(text.split())


def clone_places(text: str, h: Hit) -> tuple[str, ...]:
    """The 약관 · 조 of the hit's members from other 약관 (clone 특약, :mod:`yakgwan.retrieval.grouping`)
    that print ``text`` verbatim, whitespace aside, in document order: the 특약 a quoted sentence
    applies to as well. A clone whose wording differs there (another amount) is not named."""
    flat = _flat(text)
    out = [f"{m.yakgwan} {m.article}" if m.article else str(m.yakgwan)
           for m in sorted(h.members, key=lambda c: (c.pages[0] if c.pages else 0, c.start))
           if m.yakgwan and m.yakgwan != h.chunk.yakgwan and flat in _flat(m.text)]
    return tuple(dict.fromkeys(out))


def hit_units(hits: Sequence[Hit]) -> list[Unit]:
    """Every unit of the hits (each hit's 조 pieces included), by hit rank then document order;
    a chunk that two hits carry is read once. A sentence that addresses its reader or a model
    (:mod:`yakgwan.text.instructions`) is cut out of its unit (:func:`~yakgwan.text.instructions.without_instructions`): it
    is never quoted as an answer."""
    seen: set[str] = set()
    out: list[Unit] = []
    for rank, h in enumerate(hits, 1):
        for c in _pieces(h):
            if c.chunk_id in seen:
                continue
            seen.add(c.chunk_id)
            paths = heading_paths(c)
            out.extend(Unit(c, s, e, c.text[s:e], rank, _path_at(paths, s), clone_places(c.text[s:e], h))
                       for us, ue in chunk_units(c) for s, e in without_instructions(c.text, us, ue))
    return out
