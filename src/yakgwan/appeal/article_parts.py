"""The 항 and 호 an article prints, and which part of a citation it lacks.

A notice may cite "제2조 제9호" of a 특약 whose 제2조 ends at 제8호 (the wording copied from
another 특약's list), or "제3항" of an article with two. The article's own text says which parts
exist: a 항 starts a line with its circled number (①, ②, …; or follows the article's heading on
its line: "제1조(보험금의 지급사유) ① …"), a 호 starts a line with its number
and a full stop ("8. 피보험자가 …"). A 호 belongs to the 항 it follows (0: before any ①).

A part counts as missing only past the last number printed at its level: 약관 number their 항 and
호 without gaps, so a gap in what was read (a ⑤ the PDF's text lost, a list quoted from a statute
inside a 【용어해설】 box) never makes a cited part missing. An article printed without circled
numbers is one 항, so "제1항" of it is that article. A 목 (가목) is not checked: 약관 print 목 in
too many forms to tell a missing one from a misread one.

Some 약관 number the items of a list with circled numbers and print their 항 in a way the text
layer does not keep: the circled numbers then start again from ① within one article (①…⑪, then
①…⑳ under the next 항). Such an article's circled numbers are its 호 (``circled_items``): each run
is the list of one 항, in order, but which run a 항 is cannot be read for sure. So no 항 of it
counts as missing, and a 호 counts as missing only past the last number of every run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from yakgwan.appeal.citations import PARAGRAPH_START, ClauseRef, circled_number
from yakgwan.core.records import Chunk

_ITEM = re.compile(r"^[ \t]*(\d{1,2})\.(?!\d)[ \t]*\S", re.M)


@dataclass(frozen=True)
class ArticleParts:
    """``paragraphs``: the 항 numbers printed, in order (empty: no circled numbers); ``items``:
    per 항 number (0 before the first ①), the 호 numbers printed under it, in order."""

    paragraphs: tuple[int, ...]
    items: dict[int, tuple[int, ...]]
    circled_items: bool = False  # the circled numbers start again: they number 호, one run per 항

    def items_of(self, paragraph: int | None) -> tuple[int, ...]:
        """The 호 of one 항, or of the whole article when ``paragraph`` is None."""
        if paragraph is None:
            return tuple(n for ns in self.items.values() for n in ns)
        return self.items.get(0 if not self.paragraphs else paragraph, ())


def circled_runs(marks: Sequence[int]) -> list[list[int]]:
    """``marks`` (circled numbers in print order) cut where a number does not follow the one
    before it upward: one run per list (pure)."""
    runs: list[list[int]] = []
    for n in marks:
        if runs and n > runs[-1][-1]:
            runs[-1].append(n)
        else:
            runs.append([n])
    return runs


def article_parts(text: str) -> ArticleParts:
    """The 항 and 호 printed in an article's text (pure)."""
    marks = [(m.start(1), circled_number(m.group(1))) for m in PARAGRAPH_START.finditer(text)]
    runs = circled_runs([n for _, n in marks])
    if len(runs) > 1:  # circled numbers that start again number the 호 of each 항's list
        return ArticleParts(tuple(range(1, len(runs) + 1)), {i: tuple(r) for i, r in enumerate(runs, 1)}, circled_items=True)
    items: dict[int, list[int]] = {}
    for m in _ITEM.finditer(text):
        para = next((n for at, n in reversed(marks) if at <= m.start()), 0)
        items.setdefault(para, []).append(int(m.group(1)))
    return ArticleParts(tuple(n for _, n in marks), {p: tuple(ns) for p, ns in items.items()})


def parts_of_chunks(chunks: Sequence[Chunk]) -> ArticleParts:
    """The parts of an article printed across ``chunks`` (read in document order)."""
    ordered = sorted(chunks, key=lambda c: (c.doc_id, c.start))
    return article_parts("\n".join(c.text for c in ordered))


def _number(label: str | None, unit: str) -> int | None:
    m = re.fullmatch(rf"제(\d+){unit}", label or "")
    return int(m.group(1)) if m else None


def missing_part(ref: ClauseRef, parts: ArticleParts) -> str | None:
    """The first part of ``ref`` ("제3항", "제9호") past the last one its article prints at that
    level, or None when every cited part is there (or the citation names no 항 or 호)."""
    para = _number(ref.paragraph, "항")
    item = _number(ref.item, "호")
    if parts.circled_items:  # the 항 are not read: only a 호 past every run's last is missing
        return ref.item if item is not None and item > max(parts.items_of(None), default=0) else None
    if para is not None and para > max(parts.paragraphs, default=1):
        return ref.paragraph
    if item is not None and item > max(parts.items_of(para), default=0):
        return ref.item
    return None


def listing(numbers: Sequence[int], unit: str) -> str:
    """"제1호~제8호" for a run from 1 without gaps, "제1호, 제3호" otherwise; "없음" when empty."""
    if not numbers:
        return "없음"
    ns = sorted(set(numbers))
    if len(ns) > 2 and ns == list(range(ns[0], ns[-1] + 1)):
        return f"제{ns[0]}{unit}~제{ns[-1]}{unit}"
    return ", ".join(f"제{n}{unit}" for n in ns)


def what_is_printed(ref: ClauseRef, parts: ArticleParts) -> str:
    """A sentence saying what the article prints at the level ``ref`` cites too deep: its 항, or
    the 호 of the cited 항 (or of the article)."""
    if ref.paragraph is not None and missing_part(ref, parts) == ref.paragraph:
        if not parts.paragraphs:
            return f"{ref.article}는 항으로 나뉘어 있지 않습니다"
        return f"{ref.article}에는 {listing(parts.paragraphs, '항')}만 있습니다"
    para = _number(ref.paragraph, "항")
    if parts.circled_items and para not in parts.items:  # a 항 whose run is not read: the article's lists
        para = None
    where = f"{ref.article} {ref.paragraph}" if para is not None and parts.paragraphs else ref.article
    items = parts.items_of(para)
    return f"{where}에는 {listing(items, '호')}만 있습니다" if items else f"{where}에는 호가 없습니다"
