"""Page furniture and broken words, over the lines of every page in reading order (pure).

- Page numbers ("- 4 -", "4 / 168", "p. 4", "4쪽", a bare number that follows the page order)
  and lines repeated at the top or bottom of at least half the pages (running headers and
  footers) are removed from the first and last ``EDGE_LINES`` lines of each page.
- A word broken at the end of a full line ("청" + newline + "약을") is glued back, so the
  lexical index sees "청약을"; a line that ends in a space was wrapped at a word boundary and
  keeps its newline, and so does a line followed by one that starts more than ``OUTDENT`` row
  heights to the left of it (a table's label cell, not the continuation of a paragraph).
"""

from __future__ import annotations

import re
from collections import Counter

from yakgwan.ingest.pdf.columns import Line

EDGE_LINES = 2  # lines at the top and at the bottom of a page inspected for furniture
OUTDENT = 3.0  # a first-line indent is at most this many heights

_DECORATED_PAGE_NO = [
    re.compile(r"^[-–—]\s*(\d{1,4})\s*[-–—]$"),
    re.compile(r"^(\d{1,4})\s*/\s*\d{1,4}$"),
    re.compile(r"^(?:page|p\.)\s*(\d{1,4})(?:\s*(?:of|/)\s*\d{1,4})?$", re.IGNORECASE),
    re.compile(r"^(\d{1,4})\s*(?:쪽|페이지)$"),
]
_BARE_PAGE_NO = re.compile(r"^(\d{1,4})$")
_WRAP_TAIL = re.compile(r"[가-힣0-9]$")
_WRAP_HEAD = re.compile(r"^[가-힣0-9]")
_ITEM_MARKER = re.compile(r"^(?:\d{1,3}[.)]|[가-하][.)]|\(\d{1,3}\)|[①-⑳➀-➉]|제\s*\d+\s*[조관장절편])")
_LEADER = re.compile(r"[·.…・]{4,}|…{2,}")


def _page_number(line: str) -> tuple[int | None, bool]:
    """The page number a furniture line shows, and whether it is decorated ("- 4 -")."""
    s = line.strip()
    for pattern in _DECORATED_PAGE_NO:
        m = pattern.match(s)
        if m:
            return int(m.group(1)), True
    m = _BARE_PAGE_NO.match(s)
    return (int(m.group(1)), False) if m else (None, False)


def _edge_indices(n: int) -> list[int]:
    return sorted(set(range(min(EDGE_LINES, n))) | set(range(max(n - EDGE_LINES, 0), n)))


def _furniture_key(line: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", line)).strip()


def strip_furniture(pages: list[list[Line]]) -> list[list[Line]]:
    """Drop page numbers and running headers/footers from the edges of each page."""
    offsets: Counter[int] = Counter()
    keys: Counter[str] = Counter()
    for no, lines in enumerate(pages, 1):
        seen = set()
        for i in _edge_indices(len(lines)):
            value, decorated = _page_number(lines[i].text)
            if value is not None and not decorated:
                offsets[value - no] += 1
            seen.add(_furniture_key(lines[i].text))
        keys.update(k for k in seen if k)
    bare_offset = next((o for o, c in offsets.most_common(1) if c >= 3), None)
    repeated = {k for k, c in keys.items() if len(pages) >= 3 and c >= max(3, len(pages) / 2)}
    out = []
    for no, lines in enumerate(pages, 1):
        drop = set()
        for i in _edge_indices(len(lines)):
            value, decorated = _page_number(lines[i].text)
            if decorated or (value is not None and bare_offset is not None and value - no == bare_offset):
                drop.add(i)
            elif _furniture_key(lines[i].text) in repeated:
                drop.add(i)
        out.append([ln for i, ln in enumerate(lines) if i not in drop])
    return out


LABEL_CHARS = 15  # a table's label cell: at most this many characters on its line
LABEL_OUTDENT = 2.0  # ... standing at least this many row heights left of the cell beside it
_SENTENCE_END = re.compile(r"[.。:]\s*$")


def labels_first(lines: list[Line]) -> list[Line]:
    """A table's label cell set beside a cell that wraps over several lines is printed halfway
    down it, so reading by rows puts the label inside the other cell's sentence ("계약의 성립을
    증명하기 위하여 회사가 계약자" / "보험증권" / "에게 드리는 증서를 말합니다."). Such a label (a
    short line, not a table row, an item or a heading, standing left of the line before it,
    which breaks off mid-sentence and goes on in the line after it, at its x) is read before
    the cell it interrupts. Pure."""
    out = list(lines)
    i = 0
    while i + 2 < len(out):
        a, b, c = out[i], out[i + 1], out[i + 2]
        h = max(a.height, b.height)
        if (h > 0 and not (a.is_row or b.is_row or c.is_row) and len(b.text.strip()) <= LABEL_CHARS
                and b.x0 <= a.x0 - LABEL_OUTDENT * h and abs(c.x0 - a.x0) <= h
                and not _SENTENCE_END.search(a.text) and not _ITEM_MARKER.match(b.text.strip())):
            start = i
            while start > 0 and abs(out[start - 1].x0 - a.x0) <= h and not out[start - 1].is_row and not _SENTENCE_END.search(out[start - 1].text):
                start -= 1  # the label goes before the whole cell, from the cell's first line
            out[start:i + 2] = [b, *out[start:i + 1]]
            i += 2
            continue
        i += 1
    return out


def glue_wrapped_words(lines: list[Line]) -> list[str]:
    """Join a line broken inside a word with its continuation: the line is full, does not end
    in a space, ends in a Hangul syllable or digit, is not a 목차 line (dot leaders), and the
    next line starts with a Hangul syllable or digit and is not a list item or a heading."""
    out: list[str] = []
    prev: Line | None = None
    glue_next = False
    for ln in lines:
        text = ln.text.rstrip()
        continues = prev is not None and ln.x0 >= prev.x0 - OUTDENT * max(prev.height, ln.height)
        if glue_next and continues and _WRAP_HEAD.match(text) and not _ITEM_MARKER.match(text) and not ln.is_row:
            out[-1] += text
        else:
            out.append(text)
        glue_next = (not ln.is_row and ln.full and bool(_WRAP_TAIL.search(ln.text)) and not _LEADER.search(text))
        prev = ln
    return out
