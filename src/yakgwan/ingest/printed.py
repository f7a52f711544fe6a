"""What a 약관 prints about itself: its product, its insurer and its version (판매시기 or 개정일),
read from the document's own structure, each with the page and line it was read from.

- **product**: the name before ``보통약관`` in the 보통약관's heading line ("KB스마트운전자보험
  보통약관" → "KB스마트운전자보험"); a Korean 약관 heads its 보통약관 with the product's name.
- **insurer**: the party the 보통약관 defines as '회사' ("한빛손해보험(이하 '회사'라 합니다)"),
  unless that party is named generically ("보험회사"): then the document does not say.
- **version**: a date labelled as the 판매시기, 판매개시일, 개정일, 시행일 or 적용일 ("판매시기:
  2024년 1월", "개정일 2024.04.01", "(2023.7.1 개정)") on the first pages or the last one, where
  a 약관 prints them (a date in the body, such as a law's 시행일, is not the 약관's version).
  Written ``YYYY-MM`` or ``YYYY-MM-DD``, so ``--filter version>=2024-01`` compares them as text.

Nothing here guesses: a value is read where the document prints it, or left out. What a user
sets at ingest (``--meta``) wins over what is printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.core.records import Document

FRONT_PAGES = 3  # the cover and the pages after it, where a 약관 prints its version

# how a 약관 names the insurer generically instead of by its name (insurance vocabulary: the
# standard 약관's "보험회사(이하 '회사'라 합니다)")
GENERIC_PARTIES = frozenset({"보험회사", "회사", "보험자", "당사", "본사"})

# labels of a 약관's version, most specific first (insurance vocabulary)
VERSION_LABELS = ("판매시기", "판매개시일", "판매일자", "판매일", "개정일자", "개정일", "시행일자", "시행일", "적용일자", "적용일")

_PRODUCT = re.compile(r"^[ \t]*(\S(?:[^\n]{0,58}\S)?)[ \t]+보통약관[ \t]*$", re.M)
_LEADER = re.compile(r"[·…․.]{3,}")
_PARTY = re.compile(r"([^\s()（）]{2,30})\s*[(（]\s*이하\s*[‘'\"“「]?\s*회사\s*[’'\"”」]?\s*(?:이?라)\s*(?:합니다|한다)\s*[)）]")
_DATE = r"(\d{4})[ \t]*(?:[.\-/]|년)[ \t]*(\d{1,2})[ \t]*(?:(?:[.\-/]|월)[ \t]*(?:(\d{1,2})[ \t]*(?:일|\.)?)?)?"
_LABELLED = re.compile(r"(" + "|".join(VERSION_LABELS) + r")[ \t]*[:：]?[ \t]*" + _DATE)
_DATED_REVISION = re.compile(r"[(（][ \t]*" + _DATE + r"[ \t]*(개정|시행)[ \t]*[)）]")


@dataclass(frozen=True)
class Printed:
    """One value a document prints about itself and where: its page (None without pages) and
    the line it stands in."""

    key: str
    value: str
    page: int | None
    line: str

    def where(self) -> str:
        return (f"p.{self.page}: " if self.page is not None else "") + self.line


def _page_of(doc: Document, pos: int) -> int | None:
    return next((p.page for p in doc.pages if p.start <= pos < max(p.end, p.start + 1)), None)


def _line_at(text: str, start: int, end: int) -> str:
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    return " ".join(text[a: b if b >= 0 else len(text)].split())[:120]


def _iso(year: str, month: str, day: str | None) -> str | None:
    y, m = int(year), int(month)
    if not (1900 <= y <= 2100 and 1 <= m <= 12):
        return None
    if day is None:
        return f"{y:04d}-{m:02d}"
    d = int(day)
    return f"{y:04d}-{m:02d}-{d:02d}" if 1 <= d <= 31 else f"{y:04d}-{m:02d}"


def product(doc: Document) -> Printed | None:
    """The product named in the first 보통약관 heading line (not a table-of-contents line)."""
    for m in _PRODUCT.finditer(doc.text):
        name = " ".join(m.group(1).split())
        if _LEADER.search(name) or name.startswith(("제", "[", "【", "<")) or name.endswith(("의", "및", "과", "와")):
            continue
        return Printed("product", name, _page_of(doc, m.start(1)), _line_at(doc.text, m.start(), m.end()))
    return None


def insurer(doc: Document) -> Printed | None:
    """The party the document defines as '회사', when it is named."""
    for m in _PARTY.finditer(doc.text):
        name = m.group(1).strip("‘’'\"“”「」,")
        if name in GENERIC_PARTIES or not re.search(r"[가-힣A-Za-z]", name):
            return None  # the 보통약관's definition names no one: the document does not say
        return Printed("insurer", name, _page_of(doc, m.start(1)), " ".join(m.group(0).split()))
    return None


def _front_and_back(doc: Document) -> list[tuple[int, str]]:
    """(offset, text) of the pages a 약관 prints its version on: the first ``FRONT_PAGES`` and
    the last; a document without pages: its first and last 3,000 characters."""
    if not doc.pages:
        head, tail = doc.text[:3000], doc.text[-3000:]
        return [(0, head)] + ([(len(doc.text) - len(tail), tail)] if len(doc.text) > 3000 else [])
    spans = list(doc.pages[:FRONT_PAGES]) + ([doc.pages[-1]] if len(doc.pages) > FRONT_PAGES else [])
    return [(p.start, doc.text[p.start:p.end]) for p in spans]


def version(doc: Document) -> Printed | None:
    """The version the front or back pages print, by the most specific label found."""
    found: list[tuple[int, int, Printed]] = []
    for offset, text in _front_and_back(doc):
        for m in _LABELLED.finditer(text):
            iso = _iso(m.group(2), m.group(3), m.group(4))
            if iso:
                pos = offset + m.start()
                found.append((VERSION_LABELS.index(m.group(1)), pos, Printed("version", iso, _page_of(doc, pos), " ".join(m.group(0).split()))))
        for m in _DATED_REVISION.finditer(text):
            iso = _iso(m.group(1), m.group(2), m.group(3))
            if iso:
                pos = offset + m.start()
                rank = VERSION_LABELS.index("개정일" if m.group(4) == "개정" else "시행일")
                found.append((rank, pos, Printed("version", iso, _page_of(doc, pos), " ".join(m.group(0).split()))))
    return min(found, key=lambda f: (f[0], f[1]))[2] if found else None


def printed_meta(doc: Document) -> dict[str, Printed]:
    """Every value of the module docstring this document prints, by key."""
    return {p.key: p for p in (product(doc), insurer(doc), version(doc)) if p is not None}
