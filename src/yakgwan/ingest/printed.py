"""What a 약관 prints about itself: its product, its insurer and its version (판매시기 or 개정일),
read from the document's own structure, each with the page and line it was read from.

- **product**: the name before ``보통약관`` in the 보통약관's heading line ("KB스마트운전자보험
  보통약관" → "KB스마트운전자보험"; a heading's numbering, "1." or "Ⅱ.", is not part of it); a
  Korean 약관 heads its 보통약관 with the product's name. A line that is a sentence broken before
  ``보통약관`` (it ends in a particle, or runs to many words) is not a heading.
- **insurer**: the first party the document defines as '회사' ("한빛손해보험(이하 '회사'라
  합니다)", in the 보통약관's 제1조 of a standard 약관), unless it is named generically
  ("보험회사", a bare "손해보험") or by a placeholder ("○○손해보험"): then the document does not say.
- **version**: a date labelled as the 판매시기, 판매개시일, 개정일, 시행일 or 적용일 ("판매시기:
  2024년 1월", "개정일 2024.04.01", "(2023.7.1 개정)") on the first pages, where a 약관 prints
  it, or labelled 판매시기/판매개시일 on the last page. The last page often quotes laws, whose
  개정 and 시행 dates are not the 약관's version, so only a 판매 label counts there; a date in
  the body (a law's 시행일) is never read. Written ``YYYY-MM`` or ``YYYY-MM-DD``, so ``--filter
  version>=2024-01`` compares them as text.

Nothing here guesses: a value is read where the document prints it, or left out. What a user
sets at ingest (``--meta``) wins over what is printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.core.records import Document

FRONT_PAGES = 3  # the cover and the pages after it, where a 약관 prints its version

# how a 약관 names the insurer generically instead of by its name (insurance vocabulary: the
# standard 약관's "보험회사(이하 '회사'라 합니다)", and the kinds of insurer without a name)
GENERIC_PARTIES = frozenset({"보험회사", "회사", "보험자", "당사", "본사", "손해보험", "생명보험", "화재보험", "화재해상보험", "해상보험", "보험"})
PLACEHOLDER = re.compile(r"[○◯□△*＊]|OO|XX|ㅇㅇ", re.I)  # a template's blank for a company name

# labels of a 약관's version, most specific first (insurance vocabulary); a sale label also
# counts on the last page
VERSION_LABELS = ("판매시기", "판매개시일", "판매일자", "판매일", "개정일자", "개정일", "시행일자", "시행일", "적용일자", "적용일")
SALE_LABELS = VERSION_LABELS[:4]
# a word ending in one of these is a sentence's, not a product name's last word (general Korean particles)
PARTICLE_ENDINGS = ("은", "는", "을", "를", "에", "의", "로", "과", "와", "및", "중", "서", "도")
MAX_NAME_WORDS = 6

_PRODUCT = re.compile(r"^[ \t]*(\S(?:[^\n]{0,58}\S)?)[ \t]+보통약관[ \t]*$", re.M)
_NUMBERING = re.compile(r"^(?:\d{1,2}|[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ]{1,4}|[IVX]{1,4})[.)]\s*|^[(（]\d{1,2}[)）]\s*")
_LEADER = re.compile(r"[·…․.]{3,}")
_PARTY = re.compile(r"([^\s()（）]{2,30})\s*[(（]\s*이하\s*[‘'\"“「]?\s*회사\s*[’'\"”」]?\s*(?:이?라고?)\s*(?:합니다|한다|함)\s*[)）]")
_DATE = r"(?<!\d)(\d{4})[ \t]*(?:[.\-/]|년)[ \t]*(\d{1,2})(?!\d)[ \t]*(?:(?:[.\-/]|월)[ \t]*(?:(\d{1,2})(?!\d)[ \t]*(?:일|\.)?)?)?"
_LABELLED = re.compile(r"(" + "|".join(VERSION_LABELS) + r")[ \t]*[:：]?[ \t]*" + _DATE)
_DATED_REVISION = re.compile(r"[(（][ \t]*" + _DATE + r"[ \t]*개정[ \t]*[)）]")


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
    """``YYYY-MM`` or ``YYYY-MM-DD``; None for a date that cannot be one."""
    y, m = int(year), int(month)
    if not (1900 <= y <= 2100 and 1 <= m <= 12):
        return None
    if day is None:
        return f"{y:04d}-{m:02d}"
    return f"{y:04d}-{m:02d}-{int(day):02d}" if 1 <= int(day) <= 31 else None


def _product_name(line: str) -> str | None:
    """The product a 보통약관 heading's text before ``보통약관`` names, or None when it is not a
    heading (a contents line, an article, a sentence broken before ``보통약관``)."""
    name = " ".join(_NUMBERING.sub("", line).split())
    words = name.split()
    if (not words or _LEADER.search(name) or name.startswith(("제", "【", "<", "※")) or len(words) > MAX_NAME_WORDS
            or words[-1].endswith(PARTICLE_ENDINGS) or not re.search(r"[가-힣A-Za-z]{2}", name)):
        return None
    return name


def product(doc: Document) -> Printed | None:
    """The product named in the first 보통약관 heading line."""
    for m in _PRODUCT.finditer(doc.text):
        name = _product_name(m.group(1))
        if name is not None:
            return Printed("product", name, _page_of(doc, m.start(1)), _line_at(doc.text, m.start(), m.end()))
    return None


def insurer(doc: Document) -> Printed | None:
    """The first party the document defines as '회사', when it is named."""
    for m in _PARTY.finditer(doc.text):
        name = m.group(1).strip("‘’'\"“”「」,")
        if name in GENERIC_PARTIES or PLACEHOLDER.search(name) or not re.search(r"[가-힣A-Za-z]", name):
            return None  # the definition names no one: the document does not say
        return Printed("insurer", name, _page_of(doc, m.start(1)), " ".join(m.group(0).split()))
    return None


def _version_pages(doc: Document) -> list[tuple[int, str, bool]]:
    """(offset, text, is the last page) of the pages a 약관 prints its version on: the first
    ``FRONT_PAGES`` and the last; a document without pages: its first and last 3,000 characters."""
    if not doc.pages:
        head, tail = doc.text[:3000], doc.text[-3000:]
        return [(0, head, False)] + ([(len(doc.text) - len(tail), tail, True)] if len(doc.text) > 3000 else [])
    front = [(p.start, doc.text[p.start:p.end], False) for p in doc.pages[:FRONT_PAGES]]
    last = doc.pages[-1]
    return front + ([(last.start, doc.text[last.start:last.end], True)] if len(doc.pages) > FRONT_PAGES else [])


def version(doc: Document) -> Printed | None:
    """The version the first pages (any label) or the last page (a 판매 label) print, by the
    most specific label found."""
    found: list[tuple[int, int, Printed]] = []

    def add(rank: int, m: re.Match, offset: int, iso: str | None) -> None:
        if iso:
            pos = offset + m.start()
            found.append((rank, pos, Printed("version", iso, _page_of(doc, pos), " ".join(m.group(0).split()))))

    for offset, text, last in _version_pages(doc):
        for m in _LABELLED.finditer(text):
            if not last or m.group(1) in SALE_LABELS:
                add(VERSION_LABELS.index(m.group(1)), m, offset, _iso(m.group(2), m.group(3), m.group(4)))
        if not last:
            for m in _DATED_REVISION.finditer(text):
                add(VERSION_LABELS.index("개정일"), m, offset, _iso(m.group(1), m.group(2), m.group(3)))
    return min(found, key=lambda f: (f[0], f[1]))[2] if found else None


def printed_meta(doc: Document) -> dict[str, Printed]:
    """Every value of the module docstring this document prints, by key."""
    return {p.key: p for p in (product(doc), insurer(doc), version(doc)) if p is not None}
