"""Structure-aware chunking of 약관 (insurance policy terms).

The text is read line by line. Each line is classified on its own (``classify_line``); a small
state machine then tracks which 약관 (보통약관 or a 특별약관 by its exact name), 관 and 조 the
line belongs to, and cuts the text into units: the article head (heading "제N조(제목)" plus any
lead-in), each 항 (①, ②, …), each 【용어】 box, each 별표/부표 table, the 목차 and plain text.

Chunks are character spans: ``chunk.text == doc.text[chunk.start:chunk.end]`` for every kind.
An article no longer than ``max_chars`` is one chunk (kind "article"). A longer one is cut at its
항: the first chunk starts at the heading (kind "article"), the others are one 항 each (kind
"paragraph"; the article number and title are in ``article``/``article_title``, not in the text).
A unit longer than ``max_chars`` is cut at line boundaries (lines are 호/목 items or table rows),
and a line longer than ``max_chars`` by length at sentence or word ends; every piece keeps the
unit's 약관, 조 and 항.

Guards against false structure:
* a 약관 title ("벌금 특별약관") counts only when a 제1조 or 제1관 heading follows within a few
  lines, so a sentence that ends in "특별약관" or a 목차 entry never opens a 약관;
* an article heading must stand at the start of a line; text may follow its title (the first
  sentence, "제3조(준용규정) 이 특별약관에 …") but not a particle or a list that makes the line a
  citation ("제3조(…)에 정한", "제3조(…) 에 따른", "제3조(…) 및 제4조"), and its number must grow
  within a 약관; a 제1조 after a higher number without a title opens an unnamed 약관; a heading
  that jumps ahead while a later heading goes on from the last number is a quotation (a law's
  article in a box inside the 약관), not an article of the 약관;
* 목차 lines (dot leaders followed by a page number) form "toc" chunks only in runs of three or
  more; before the first 약관 they carry no 약관. In the body a run must name a 조, 관 or 약관,
  a 항 or 조 line is never 목차, and the 약관 and 조 go on after it, so a form ("성명 ......")
  or a table with dot leaders stays in its article.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from yakgwan.ingest.chunkers.recursive import split_spans
from yakgwan.text.spans import trim_span
from yakgwan.ingest.chunkers.yakgwan_lines import (
    LineTag,
    classify_line,
    looks_like_yakgwan,
    openings,
    quoted_ahead,
    toc_lines,
)
from yakgwan.core.records import Chunk, Document, make_chunk_id

__all__ = ["ChunkPlan", "LineTag", "Unit", "YakgwanChunker", "build_units", "classify_line",
           "looks_like_yakgwan", "plan_chunks", "split_span"]


@dataclass(frozen=True)
class Unit:
    """A run of whole lines with one provenance."""

    kind: str
    start: int
    end: int
    yakgwan: str | None = None
    part: str | None = None
    article: str | None = None
    article_title: str | None = None
    paragraph: str | None = None
    section: str | None = None
    article_seq: int = -1  # which article (0, 1, …) the unit belongs to; -1 outside articles
    law: bool = False  # it lies in the appended laws (``section`` names the statute)
    follows: str | None = None  # a table's: the 약관 printed before it


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for line in text.split("\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


class _UnitBuilder:
    """Walks the tagged lines and emits units; all structural state lives here."""

    def __init__(self, tags: list[LineTag]) -> None:
        self.tags = tags
        self.units: list[Unit] = []
        self.cur: Unit | None = None
        self.cur_first = 0
        self.cur_last = 0
        self.yakgwan: str | None = None
        self.part: str | None = None
        self.article: tuple[str, str] | None = None
        self.last_no = 0.0
        self.seq = -1
        self.para: str | None = None
        self.prefix: int | None = None  # first line of title/관 lines waiting for their 제1조
        self.statute: str | None = None  # in the appended laws: the statute of the lines (else None)
        self.in_law = False
        # the 약관 a 별표 heading interrupted: (name, 관, last article number), resumed when the
        # numbering goes on after the table
        self.suspended: tuple[str | None, str | None, float] | None = None

    def close(self) -> None:
        if self.cur is not None:
            self.units.append(replace(self.cur, start=self.cur_first, end=self.cur_last))
        self.cur = None

    def open(self, i: int, kind: str, **meta: str | None) -> None:
        self.close()
        first = self.prefix if self.prefix is not None and kind == "head" else i
        if self.prefix is not None and kind != "head":
            self.units.append(self._unit("text", self.prefix, i - 1))
        self.prefix = None
        self.cur = self._unit(kind, first, i, **meta)
        self.cur_first, self.cur_last = first, i

    def _unit(self, kind: str, first: int, last: int, **meta: str | None) -> Unit:
        in_article = kind in ("head", "para", "definition") and self.article is not None
        section = self.statute if self.in_law and not meta.get("section") else meta.get("section")
        follows = self.suspended[0] if kind == "table" and self.suspended is not None else None
        return Unit(kind=kind, start=first, end=last, yakgwan=None if self.in_law else self.yakgwan, part=self.part, follows=follows,
                    article=self.article[0] if in_article else None,
                    article_title=self.article[1] if in_article else None,
                    paragraph=meta.get("paragraph", self.para if in_article else None),
                    section=section, article_seq=self.seq if in_article else -1, law=self.in_law)

    def extend(self, i: int) -> None:
        if self.cur is None:  # inside an article only after a 목차 in the body: the 항 goes on
            first = self.prefix if self.prefix is not None else i
            self.prefix = None
            kind = "para" if self.article is not None else "text"
            self.cur, self.cur_first = self._unit(kind, first, i), first
        self.cur_last = i

    def toc_line(self, i: int, in_body: bool) -> None:
        """A 목차 line: the chunk has no 약관; before the first 약관 the state is cleared, in the
        body the 약관, 관 and 조 go on after the 목차."""
        if self.cur is None or self.cur.kind != "toc":
            if not in_body:
                self.yakgwan, self.article = None, None
            self.open(i, "toc", section="목차")
            self.cur = replace(self.cur, yakgwan=None, part=None)
        self.extend(i)

    def start_yakgwan(self, i: int, name: str | None) -> None:
        self.close()
        self.yakgwan, self.part, self.article, self.last_no, self.para = name, None, None, 0.0, None
        self.in_law, self.statute, self.suspended = False, None, None
        self.prefix = i

    def enter_laws(self, i: int, label: str | None) -> None:
        """The appended laws begin: no 약관 until one opens again."""
        self.close()
        self.yakgwan, self.part, self.article, self.last_no, self.para = None, None, None, 0.0, None
        self.in_law, self.statute, self.suspended = True, None, None
        self.open(i, "text", section=label)

    def statute_line(self, i: int, name: str) -> None:
        """A statute's name in the appended laws: its articles follow."""
        self.statute, self.article, self.last_no, self.para = name, None, 0.0, None
        self.open(i, "text")

    def table(self, i: int, label: str | None) -> None:
        """A 별표 heading: the table stands outside any 약관 (a 약관 interrupted by it goes on
        when its numbering does)."""
        if self.yakgwan is not None and not self.in_law:
            self.suspended = (self.yakgwan, self.part, self.last_no)
        self.yakgwan, self.article, self.para = None, None, None
        self.open(i, "table", section=label)

    def article_line(self, i: int, tag: LineTag, restarts: frozenset[int] = frozenset()) -> bool:
        """Open an article if the heading fits the numbering; False means it is body text. In
        the appended laws every article heading opens one (a statute's numbers jump)."""
        if self.in_law:
            self.article, self.para, self.seq = (tag.label or "", tag.title or ""), None, self.seq + 1
            self.open(i, "head")
            return True
        if self.suspended is not None and self.yakgwan is None and tag.number > self.suspended[2]:
            self.yakgwan, self.part, self.last_no = self.suspended  # the 약관 goes on after its table
            self.suspended = None
        if tag.number <= self.last_no and tag.number != 1:
            return False
        if quoted_ahead(self.tags, i, self.last_no):
            return False  # an article quoted in a box ("관련 법규 … 제46조(…)"): the numbering resumes below it
        if tag.number == 1 and self.last_no >= 1 and self.prefix is None and i not in restarts:
            # numbering restarts without a title: a restated 제1조 stays in its 약관, else unnamed
            self.start_yakgwan(i, self.yakgwan if self.last_no == 1 else None)
        self.last_no, self.seq, self.para = tag.number, self.seq + 1, None
        self.article = (tag.label or "", tag.title or "")
        self.open(i, "head")
        return True


def build_units(text: str) -> tuple[list[Unit], list[tuple[int, int]]]:
    """Units over line indices (start/end are first/last line) and the lines' character spans."""
    spans = _line_spans(text)
    lines = [text[a:b] for a, b in spans]
    tags = [classify_line(line) for line in lines]
    found = openings(tags, lines)
    opens = found.starts
    body_start = min(opens, default=next((i for i, t in enumerate(tags) if t.kind == "article"), len(tags)))
    toc = toc_lines(tags, lines, body_start)
    b = _UnitBuilder(tags)
    for i, tag in enumerate(tags):
        kind = b.cur.kind if b.cur is not None else None
        if kind == "toc" and i not in toc and i >= body_start:
            b.close()  # a 목차 in the body ends with its last entry
            kind = "para" if b.article is not None else None
        if i in toc:
            b.toc_line(i, i >= body_start)
        elif i in opens:
            b.start_yakgwan(i, opens[i])
        elif tag.kind in ("title", "blank") and b.prefix is not None:
            continue
        elif tag.kind == "law_head" and i >= body_start:
            b.enter_laws(i, tag.label)
        elif b.in_law and i in found.laws and found.laws[i] != b.statute and found.laws[i] is not None and tag.kind == "body":
            b.statute_line(i, found.laws[i])
        elif tag.kind == "part":
            b.close()
            b.part, b.article = f"{tag.label} {tag.title}", None
            b.prefix = i if b.prefix is None else b.prefix
        elif tag.kind == "article" and b.article_line(i, tag, found.restarts):
            continue
        elif tag.kind == "para" and b.article is not None and kind in ("head", "para", "definition"):
            b.para = tag.label
            b.open(i, "para", paragraph=tag.label)
        elif tag.kind == "box" and kind != "table":
            b.open(i, "definition", section=tag.label)
        elif tag.kind == "table":
            b.table(i, tag.label)
        elif tag.kind == "appendix":  # 부록, 주요 민원 사례: neither a 약관 nor a statute
            b.yakgwan, b.part, b.article, b.last_no = None, None, None, 0.0
            b.in_law, b.statute, b.suspended = False, None, None
            b.open(i, "text", section=tag.label)
        elif kind == "definition" and re.match(r"^\s*\d{1,2}\.\s", lines[i]):
            b.open(i, "para")
        else:
            b.extend(i)
    if b.prefix is not None:
        b.units.append(b._unit("text", b.prefix, len(tags) - 1))
    b.close()
    return b.units, spans




def split_span(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` at line boundaries into pieces of at most ``max_chars``, except that
    a short last piece joins the one before up to 5/4 of ``max_chars``; a piece holding a line
    longer than ``max_chars`` is cut by length at sentence or word ends (``split_spans``). Pieces
    are trimmed, never empty and never overlap (pure)."""
    out: list[tuple[int, int]] = []
    for a, b in _line_pieces(text, start, end, max_chars):
        if b - a > max_chars and _longest_line(text, a, b) > max_chars:
            if out and out[-1][1] - out[-1][0] < max_chars // 4:
                a = out.pop()[0]  # a heading or short lead-in goes with the first piece
            out += split_spans(text, a, b, max_chars, 0)
        elif b > a:
            out.append((a, b))
    return out


def _longest_line(text: str, start: int, end: int) -> int:
    return max(len(line) for line in text[start:end].split("\n"))


def _line_pieces(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    a, pos = start, start
    while pos < end:
        nl = text.find("\n", pos, end)
        line_end = end if nl < 0 else nl
        if line_end - a > max_chars and pos > a:
            pieces.append((a, pos))
            a = pos
        pos = line_end + 1
    pieces.append((a, end))
    if len(pieces) > 1 and end - pieces[-2][0] <= max_chars * 5 // 4 and end - a < max_chars // 4:
        pieces[-2:] = [(pieces[-2][0], end)]  # no tiny tail piece
    return [trim_span(text, s, e) for s, e in pieces]


@dataclass(frozen=True)
class ChunkPlan:
    """A span with its provenance, before ids and pages are attached."""

    unit: Unit
    kind: str
    start: int
    end: int


def plan_chunks(text: str, max_chars: int = 800, min_head: int = 200) -> list[ChunkPlan]:
    """Units -> chunk spans: short articles whole, long ones cut at 항 (see module docstring)."""
    units, spans = build_units(text)
    plans: list[ChunkPlan] = []
    i = 0
    while i < len(units):
        u = units[i]
        if u.article_seq < 0:
            kind = "law" if u.law and u.kind != "toc" else {"toc": "toc", "table": "table", "definition": "definition"}.get(u.kind, "text")
            plans += [ChunkPlan(u, kind, a, b) for a, b in
                      split_span(text, spans[u.start][0], spans[u.end][1], max_chars)]
            i += 1
            continue
        j = i
        while j + 1 < len(units) and units[j + 1].article_seq == u.article_seq:
            j += 1
        planned = _plan_article(text, spans, units[i:j + 1], max_chars, min_head)
        plans += [replace(p, kind="law") for p in planned] if u.law else planned
        i = j + 1
    return plans


def _plan_article(text: str, spans: list[tuple[int, int]], units: list[Unit], max_chars: int,
                  min_head: int) -> list[ChunkPlan]:
    if units[0].kind != "head":  # the rest of an article after a 목차 in the body
        return [ChunkPlan(u, "definition" if u.kind == "definition" else "paragraph", a, b) for u in units
                for a, b in split_span(text, spans[u.start][0], spans[u.end][1], max_chars)]
    start, end = trim_span(text, spans[units[0].start][0], spans[units[-1].end][1])
    if end - start <= max_chars:
        return [ChunkPlan(replace(units[0], paragraph=None), "article", start, end)]
    plans: list[ChunkPlan] = []
    k = 0
    head = units[0]
    head_end = spans[head.end][1]
    if head.kind == "head" and len(units) > 1 and head_end - spans[head.start][0] < min_head:
        k = 1  # a bare heading joins its first 항 or box
        head = replace(units[1], kind="head", section=units[1].section)
        head_end = spans[units[1].end][1]
    for n, (a, b) in enumerate(split_span(text, spans[units[0].start][0], head_end, max_chars)):
        plans.append(ChunkPlan(head, "article" if n == 0 else "paragraph", a, b))
    for u in units[k + 1:]:
        kind = "definition" if u.kind == "definition" else "paragraph"
        plans += [ChunkPlan(u, kind, a, b) for a, b in
                  split_span(text, spans[u.start][0], spans[u.end][1], max_chars)]
    return plans


class YakgwanChunker:
    """Chunker for documents with 약관 structure (see the module docstring for the rules)."""

    def __init__(self, max_chars: int = 800, min_head: int = 200) -> None:
        if max_chars < 100:
            raise ValueError(f"max_chars must be at least 100. Currently, max_chars is {max_chars}")
        if not 0 <= min_head <= max_chars:
            raise ValueError(f"min_head must be between 0 and max_chars ({max_chars}). Currently, "
                             f"min_head is {min_head}")
        self.max_chars = max_chars
        self.min_head = min_head

    def split(self, doc: Document) -> list[Chunk]:
        seen: dict[str, int] = {}
        chunks = []
        for plan in plan_chunks(doc.text, self.max_chars, self.min_head):
            body = doc.text[plan.start:plan.end]
            ordinal = seen.get(body, 0)
            seen[body] = ordinal + 1
            u = plan.unit
            chunks.append(Chunk(
                chunk_id=make_chunk_id(doc.doc_id, body, ordinal), doc_id=doc.doc_id, source=doc.source,
                title=doc.title, text=body, start=plan.start, end=plan.end,
                pages=doc.pages_for(plan.start, plan.end), kind=plan.kind, section=u.section,
                yakgwan=u.yakgwan, part=u.part, article=u.article, article_title=u.article_title,
                paragraph=u.paragraph, doc_type=doc.doc_type, follows=u.follows))
        return chunks
