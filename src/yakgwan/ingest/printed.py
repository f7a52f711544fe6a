"""What a document prints about itself: its product, product type, insurer, document type and
version (판매시기 or 개정일), read from its own pages, each with the page and line it was read from.

- **product**, the first of: a labelled field on the first pages ("보험상품명 한화 다이렉트
  3400운전자보험 무배당"); the cover's title ("가나다운전자보험 약관", a name over a line that is
  only "상품요약서", "「가나다 여행보험」에 가입하신", a line alone on page 1 that ends in ``보험``
  and its suffixes: "(무배당)", "무배당2504", "(25.01)"); the name before ``보통약관`` in the
  보통약관's heading ("Ⅱ. 가나다운전자보험 보통약관"; not a sentence broken before
  ``보통약관``); a running header or footer (a line on many pages, page number aside); a name
  alone on a short back cover. A name that starts with punctuation, has unbalanced brackets or
  is an insurer's name is no product.
- **product_type**: the insurance word the product's name (else the title) contains
  (``PRODUCT_TYPES``: "…3400운전자보험" → 운전자보험, 해외여행자보험 → 해외여행보험).
- **insurer**, the first of: the party the document defines as '회사' ("한빛손해보험(이하
  '회사'라 합니다)"); a labelled field ("보험회사명 가나다손해보험"); an insurer's name on the
  first pages, in a running header or footer, or on the last page ("가나다손해보험주식회사
  고객콜센터"). A name counts when the lexicon (``text.insurers``) knows it, or when it is a legal
  name (…손해보험, …화재해상보험, …생명보험) — outside the 회사 definition and a labelled field
  only with its "주식회사" or "(주)". A generic party ("보험회사", a bare "손해보험") or a
  placeholder ("○○손해보험") names no one. The value is the lexicon's canonical name
  (삼성화재해상보험주식회사 → 삼성화재), else the legal name without "주식회사".
- **doc_type**: 약관, 상품요약서, 상품설명서 or 사업방법서, as a title line on the first pages
  prints it ("상품요약서", "가나다운전자보험 약관"); else 약관 when the document has the
  structure of one (보통약관 or 특별약관 headings and a 제1조); else nothing.
- **version**: a date labelled as the 판매시기, 판매개시일, 개정일, 시행일 or 적용일 ("판매시기:
  2024년 1월", "개정일 2024.04.01", "(2023.7.1 개정)"), or by a bare 판매, 개정 or 시행 ("개정
  2025.04.01", "2025.01.01 시행") on the first pages, where a 약관 prints it, or labelled
  판매시기/판매개시일 on the last page. The last page often quotes laws, whose 개정 and 시행 dates
  are not the 약관's version, so only a 판매 label counts there; a date in the body (a law's
  시행일) is never read, nor a product name's unlabelled YYMM suffix. Written ``YYYY-MM`` or
  ``YYYY-MM-DD``, so ``--filter version>=2024-01`` compares them as text.

Nothing here guesses: a value is read where the document prints it, or left out. What a user
sets at ingest (``--meta``) wins over what is printed.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterator

from yakgwan.core.records import Document
from yakgwan.text.insurers import canonical, insurer_mentions

FRONT_PAGES = 3  # the cover and the pages after it, where a 약관 prints its title and version
FIELD_PAGES = 10  # the first pages, where a 약관 요약서 prints its fields (보험상품명, 보험회사명)
RUNNING_SHARE = 0.3  # a line on this share of the pages (and on 3 at least) is a running header or footer
BACK_COVER_LINES = 8  # a last page with at most this many lines is a back cover

# how a 약관 names the insurer generically instead of by its name (insurance vocabulary: the
# standard 약관's "보험회사(이하 '회사'라 합니다)", and the kinds of insurer without a name)
GENERIC_PARTIES = frozenset({"보험회사", "회사", "보험자", "당사", "본사", "손해보험", "생명보험", "화재보험", "화재해상보험", "해상보험", "보험"})
PLACEHOLDER = re.compile(r"[○◯□△*＊]|OO|XX|ㅇㅇ", re.I)  # a template's blank for a company name

# the kinds of document an insurer publishes for a product (insurance vocabulary), as their
# covers title them; a title ending in 보통약관 or 특별약관 heads a part of a 약관, not a document
DOC_TYPES = ("상품요약서", "상품설명서", "사업방법서", "약관")
# product types by the words a product's name contains, the more specific first (insurance
# vocabulary: the lines of business Korean insurers sell)
PRODUCT_TYPES = (
    ("해외여행보험", ("해외여행보험", "해외여행자보험")), ("국내여행보험", ("국내여행보험", "국내여행자보험")),
    ("여행자보험", ("여행자보험", "여행보험")), ("운전자보험", ("운전자보험",)), ("자동차보험", ("자동차보험",)),
    ("실손의료비보험", ("실손의료비보험", "실손의료비보장보험", "실손의료보험", "실손보험")), ("치아보험", ("치아보험",)), ("암보험", ("암보험",)),
    ("어린이보험", ("어린이보험", "자녀보험", "태아보험")), ("펫보험", ("펫보험", "반려동물보험", "반려견보험", "반려묘보험")),
    ("화재보험", ("화재보험",)), ("간병보험", ("간병보험", "치매보험")), ("상해보험", ("상해보험",)),
    ("건강보험", ("건강보험",)), ("종합보험", ("종합보험",)), ("배상책임보험", ("배상책임보험",)), ("골프보험", ("골프보험",)),
    ("종신보험", ("종신보험",)), ("정기보험", ("정기보험",)), ("연금보험", ("연금보험",)), ("저축보험", ("저축보험",)),
)
# a type that a narrower one belongs to (a 해외여행보험 is a 여행자보험: a question saying
# 여행자보험 is about both kinds of travel policy)
BROADER = {"해외여행보험": "여행자보험", "국내여행보험": "여행자보험"}
# public programmes whose names hold a product type's word but name no product (general Korean)
NOT_PRODUCTS = ("국민건강보험", "노인장기요양보험", "고용보험", "산재보험", "산업재해보상보험")

# labels of a 약관's version, most specific first (insurance vocabulary); a sale label also
# counts on the last page; the bare 판매/개정/시행 only on the first pages
VERSION_LABELS = ("판매시기", "판매개시일", "판매개시", "판매일자", "판매일", "개정일자", "개정일", "시행일자", "시행일", "적용일자", "적용일", "판매", "개정", "시행")
SALE_LABELS = VERSION_LABELS[:5]
BARE_LABELS = VERSION_LABELS[-3:]
# a word ending in one of these is a sentence's, not a product name's last word (general Korean particles)
PARTICLE_ENDINGS = ("은", "는", "을", "를", "에", "의", "로", "과", "와", "및", "중", "서", "도")
# a sentence, not a name, starts with a demonstrative or has an object or adverbial word before
# its last (general Korean)
SENTENCE_STARTS = ("이", "그", "본", "위", "해당")
INNER_ENDINGS = ("을", "를", "에서", "에게", "으로", "하여")
MAX_NAME_WORDS = 6

_PRODUCT = re.compile(r"^[ \t]*(\S(?:[^\n]{0,58}\S)?)[ \t]+보통약관[ \t]*$", re.M)
_NUMBERING = re.compile(r"^(?:\d{1,2}|[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ]{1,4}|[IVX]{1,4})[.)]\s*|^[(（]\d{1,2}[)）]\s*")
_LEADER = re.compile(r"[·…․.]{3,}")
_PARTY = re.compile(r"([^\s()（）]{2,30})\s*[(（]\s*이하\s*[‘'\"“「]?\s*회사\s*[’'\"”」]?\s*(?:이?라고?)\s*(?:합니다|한다|함)\s*[)）]")
_DATE = r"(?<!\d)(\d{4})[ \t]*(?:[.\-/]|년)[ \t]*(\d{1,2})(?!\d)[ \t]*(?:(?:[.\-/]|월)[ \t]*(?:(\d{1,2})(?!\d)[ \t]*(?:일|\.)?)?)?"
_LABELLED = re.compile(r"(" + "|".join(VERSION_LABELS) + r")[ \t]*[:：]?[ \t]*" + _DATE)
_DATED_REVISION = re.compile(r"[(（][ \t]*" + _DATE + r"[ \t]*개정[ \t]*[)）]")
_DATED_LABEL = re.compile(_DATE + r"[ \t]*(" + "|".join(BARE_LABELS) + r")(?:일)?(?![가-힣])")
_CORPORATE = re.compile(r"주식회사|[(（]\s*주\s*[)）]|㈜")
_LEGAL_NAME = re.compile(r"[가-힣A-Za-z0-9]{1,15}?(?:손해보험|화재해상보험|해상화재보험|생명보험|생명)")
_CORPORATE_NAME = re.compile(r"(?:주식회사|[(（]주[)）]|㈜)[ \t]*([가-힣A-Za-z0-9]{2,24})|([가-힣A-Za-z0-9]{2,24})[ \t]*(?:주식회사|[(（]주[)）]|㈜)")
_INSURER_FIELD = re.compile(r"(?:보험)?회사명[ \t]*[:：]?[ \t]*([^\s,·]+(?:[ \t]*주식회사)?)")
_PRODUCT_FIELD = re.compile(r"(?:보험)?상품명[ \t]*[:：]?[ \t]+([^\n\t]+?)(?=[ \t]*(?:보험회사명|회사명|보험의?[ \t]*종목|[ \t]{2}|\t|$))", re.M)
_WRAPPED = re.compile(r"^\s*[(（\[【<〈]\s*(.+?)\s*[)）\]】>〉]\s*$")  # a line wholly in brackets
_QUALIFIERS = re.compile(r"^(?:\s*[(（][^()（）\n]{1,12}[)）])+\s*$")  # "(무배당)(25.01)": qualifiers of the name above
_TITLE = re.compile(r"^(.*?)[ \t]*(" + "|".join(DOC_TYPES) + r")$")
_JOINED = re.compile(r"「([^「」\n]{2,60})」[ \t]*(?:에|을|를)[ \t]*가입")
_PRODUCT_END = re.compile(r"보험(?:[ \t]*(?:무배당|유배당|\d{4}|[(\[][^()\[\]\n]{1,20}[)\]]))*$")
_PAGE_NUMBER = re.compile(r"^[-–\s]*\d{1,4}[-–\s]+|[-–\s]+\d{1,4}[-–\s]*$")
_BRACKETS = {")": "(", "]": "[", "」": "「", "）": "（", "】": "【", "』": "『"}


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


def _at(doc: Document, key: str, value: str, pos: int, end: int | None = None) -> Printed:
    return Printed(key, value, _page_of(doc, pos), _line_at(doc.text, pos, pos if end is None else end))


def _iso(year: str, month: str, day: str | None) -> str | None:
    """``YYYY-MM`` or ``YYYY-MM-DD``; None for a date that cannot be one."""
    y, m = int(year), int(month)
    if not (1900 <= y <= 2100 and 1 <= m <= 12):
        return None
    if day is None:
        return f"{y:04d}-{m:02d}"
    return f"{y:04d}-{m:02d}-{int(day):02d}" if 1 <= int(day) <= 31 else None


def _front(doc: Document, pages: int) -> list[tuple[int, str]]:
    """(offset, text) of the first ``pages`` pages; a document without pages: its first 3,000 characters."""
    if not doc.pages:
        return [(0, doc.text[:3000])]
    return [(p.start, doc.text[p.start:p.end]) for p in doc.pages[:pages]]


def _last(doc: Document) -> tuple[int, str] | None:
    """(offset, text) of the last page when it is not one of the first pages; a document
    without pages: its last 3,000 characters when it is longer."""
    if not doc.pages:
        return (len(doc.text) - 3000, doc.text[-3000:]) if len(doc.text) > 3000 else None
    last = doc.pages[-1]
    return (last.start, doc.text[last.start:last.end]) if len(doc.pages) > FRONT_PAGES else None


def _lines(parts: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """(offset, whitespace-collapsed text) of every non-empty line of ``parts``."""
    for offset, text in parts:
        for m in re.finditer(r"[^\n]+", text):
            if m.group(0).strip():
                yield offset + m.start() + len(m.group(0)) - len(m.group(0).lstrip()), " ".join(m.group(0).split())


def _running(doc: Document) -> list[tuple[int, str]]:
    """The running headers and footers: (offset of the first, text without its page number) of
    every line on ``RUNNING_SHARE`` of the pages, the most frequent first."""
    if len(doc.pages) < 3:
        return []
    count: Counter[str] = Counter()
    first: dict[str, int] = {}
    for p in doc.pages:
        seen = {}
        for pos, line in _lines([(p.start, doc.text[p.start:p.end])]):
            seen.setdefault(_PAGE_NUMBER.sub("", line).strip(), pos)
        for line, pos in seen.items():
            count[line] += 1
            first.setdefault(line, pos)
    least = max(3, RUNNING_SHARE * len(doc.pages))
    return [(first[line], line) for line, n in count.most_common() if n >= least and line]


def _balanced(name: str) -> bool:
    stack: list[str] = []
    for c in name:
        if c in _BRACKETS.values():
            stack.append(c)
        elif c in _BRACKETS and (not stack or stack.pop() != _BRACKETS[c]):
            return False
    return not stack


def _is_name(name: str) -> bool:
    """A product's or a heading's name: starts with a letter, a digit or an opening bracket,
    brackets balanced, a few words, not a sentence, not a contents line."""
    words = name.split()
    return (bool(words) and (name[0].isalnum() or name[0] in _BRACKETS.values()) and _balanced(name)
            and len(words) <= MAX_NAME_WORDS and not words[-1].endswith(PARTICLE_ENDINGS)
            and words[0] not in SENTENCE_STARTS and not any(w.endswith(INNER_ENDINGS) for w in words[:-1])
            and not _LEADER.search(name) and bool(re.search(r"[가-힣A-Za-z]{2}", name)))


def _product_like(name: str) -> str | None:
    """``name`` when it reads as a product's name: ends in 보험 and its suffixes, names more
    than a kind of insurance, and is no insurer's name."""
    name = " ".join(name.split()).strip(" \t,:：")
    core = _PRODUCT_END.sub("보험", name).replace(" ", "")
    if (not _is_name(name) or len(name) > 60 or not _PRODUCT_END.search(name) or canonical(name) or _LEGAL_NAME.fullmatch(core)
            or core in GENERIC_PARTIES or any(core in words for _, words in PRODUCT_TYPES)):
        return None
    return name


def _heading_product(line: str) -> str | None:
    """The product a 보통약관 heading's text before ``보통약관`` names, or None when it is not a
    heading (a contents line, an article, a sentence broken before ``보통약관``)."""
    name = " ".join(_NUMBERING.sub("", line).split())
    if not _is_name(name) or name.startswith(("제", "【", "<", "※")):
        return None
    return name


def _cover_product(doc: Document) -> Printed | None:
    """The product the first pages title or label: a field, a title line, a 가입 greeting."""
    front = list(_lines(_front(doc, FIELD_PAGES)))
    for pos, line in front:
        for m in _PRODUCT_FIELD.finditer(line):
            if (name := _product_like(m.group(1))) is not None:
                return _at(doc, "product", name, pos)
    cover_end = _front(doc, FRONT_PAGES)[-1]
    cover = [(pos, line) for pos, line in front if pos < cover_end[0] + len(cover_end[1])]
    first_page_end = doc.pages[0].end if doc.pages else min(len(doc.text), 500)
    for i, (pos, line) in enumerate(cover):
        after = cover[i + 1][1] if i + 1 < len(cover) else ""
        title = _TITLE.match(line)
        candidates = [
            # a name whose qualifiers wrapped onto the next line ("KB 다이렉트치아보험" / "(무배당)(25.01)")
            line.rstrip() + after.strip() if _QUALIFIERS.match(after) else None,
            title.group(1) if title and not title.group(1).endswith(("보통", "특별")) else None,
            line if after in DOC_TYPES else None,
            *(m.group(1) for m in _JOINED.finditer(line)),
            line if pos < first_page_end else None,
            # a title that is only the kind of document ("보험약관"), the product under it in brackets
            _WRAPPED.sub(r"\1", after) if title and title.group(1).strip() in ("", "보험") else None,
        ]
        for name in candidates:
            if name and (name := _product_like(name)) is not None:
                return _at(doc, "product", name, pos)
    return None


def product(doc: Document) -> Printed | None:
    """The product the document names (module docstring), by the first source that names one."""
    found = _cover_product(doc)
    if found is not None:
        return found
    for m in _PRODUCT.finditer(doc.text):
        name = _heading_product(m.group(1))
        if name is not None:
            return _at(doc, "product", name, m.start(1), m.end())
    for pos, line in _running(doc):
        if (name := _product_like(line)) is not None:
            return _at(doc, "product", name, pos)
    last = _last(doc)
    back = list(_lines([last])) if last else []
    if 0 < len(back) <= BACK_COVER_LINES:
        for pos, line in back:
            if (name := _product_like(line)) is not None:
                return _at(doc, "product", name, pos)
    return None


def product_type(doc: Document, named: Printed | None) -> Printed | None:
    """The kind of insurance the product's name (else the document's title) says."""
    for source in ([named] if named else []) + [Printed("product_type", doc.title, None, f"title: {doc.title}")]:
        squashed = source.value.replace(" ", "")
        for kind, words in PRODUCT_TYPES:
            if any(w in squashed for w in words):
                return Printed("product_type", kind, source.page, source.line)
    return None


def types_in(text: str) -> tuple[str, ...]:
    """The product types ``text`` names (``PRODUCT_TYPES``; spacing ignored), the most specific
    word first and each span read once: "해외여행자보험" is 해외여행보험 only. Pure."""
    squashed = "".join(text.split())
    for public in NOT_PRODUCTS:
        squashed = squashed.replace(public, " ")
    found: dict[str, None] = {}
    for kind, words in PRODUCT_TYPES:
        for w in sorted(words, key=len, reverse=True):
            if w in squashed:
                found.setdefault(kind, None)
                squashed = squashed.replace(w, " ")
    return tuple(found)


def type_covers(asked: str, held: str) -> bool:
    """Whether a document of type ``held`` is one of the type ``asked`` (itself or narrower). Pure."""
    return asked == held or BROADER.get(held) == asked


def _insurer_name(name: str, corporate: bool) -> str | None:
    """The canonical name of the insurer ``name`` names, or its legal name; None for a generic
    or a placeholder name, or (``corporate``) a legal name printed without 주식회사."""
    if PLACEHOLDER.search(name):
        return None
    known = canonical(name)
    if known is not None:
        return known
    bare = "".join(_CORPORATE.sub(" ", name).split())
    if bare in GENERIC_PARTIES or (corporate and not _CORPORATE.search(name)):
        return None
    return bare if _LEGAL_NAME.fullmatch(bare) else None


def _named_insurer(doc: Document, lines: list[tuple[int, str]]) -> Printed | None:
    """The first insurer the lines name: a name the lexicon knows or a legal name with 주식회사."""
    for pos, line in lines:
        if PLACEHOLDER.search(line):
            continue
        known = insurer_mentions(line, brands=False)
        legal = [n for m in _CORPORATE_NAME.finditer(line) if (n := _insurer_name(m.group(0), True))]
        if known or legal:
            return _at(doc, "insurer", (known or tuple(legal))[0], pos)
    return None


def insurer(doc: Document) -> Printed | None:
    """The insurer the document names (module docstring), by the first source that names one."""
    m = _PARTY.search(doc.text)
    if m is not None and (name := _insurer_name(m.group(1).strip("‘’'\"“”「」,"), False)) is not None:
        return Printed("insurer", name, _page_of(doc, m.start(1)), " ".join(m.group(0).split()))
    fields = list(_lines(_front(doc, FIELD_PAGES)))
    for pos, line in fields:
        for f in _INSURER_FIELD.finditer(line):
            if (name := _insurer_name(f.group(1), False)) is not None:
                return _at(doc, "insurer", name, pos)
    last = _last(doc)
    for lines in (list(_lines(_front(doc, FRONT_PAGES))), _running(doc), list(_lines([last])) if last else []):
        found = _named_insurer(doc, lines)
        if found is not None:
            return found
    return None


def doc_type(doc: Document) -> Printed | None:
    """The kind of document a title line on the first pages prints, else 약관 for a document
    with a 약관's structure."""
    for pos, line in _lines(_front(doc, FRONT_PAGES)):
        title = _TITLE.match(line)
        if title and len(line) <= 40 and not _LEADER.search(line) and not title.group(1).endswith(("보통", "특별")):
            if not title.group(1) or _product_like(title.group(1)) or title.group(2) != "약관":
                return _at(doc, "doc_type", title.group(2), pos)
    if not re.search(r"^[ \t]*제1조", doc.text, re.M):
        return None
    for m in re.finditer(r"^[ \t]*(?:(\S[^\n]{0,50}?)[ \t]*)?(?:보통|특별)약관[ \t]*$", doc.text, re.M):
        if m.group(1) is None or _heading_product(m.group(1)) is not None:
            return Printed("doc_type", "약관", _page_of(doc, m.start()), "structure: " + " ".join(m.group(0).split()))
    return None


def _version_pages(doc: Document) -> list[tuple[int, str, bool]]:
    """(offset, text, is the last page) of the pages a 약관 prints its version on."""
    last = _last(doc)
    return [(o, t, False) for o, t in _front(doc, FRONT_PAGES)] + ([(*last, True)] if last else [])


def version(doc: Document) -> Printed | None:
    """The version the first pages (any label) or the last page (a 판매 label) print, by the
    most specific label found."""
    found: list[tuple[int, int, Printed]] = []

    def add(label: str, m: re.Match, offset: int, date: tuple[str, str, str | None]) -> None:
        iso = _iso(*date)
        if iso:
            pos = offset + m.start()
            found.append((VERSION_LABELS.index(label), pos, Printed("version", iso, _page_of(doc, pos), " ".join(m.group(0).split()))))

    for offset, text, last in _version_pages(doc):
        for m in _LABELLED.finditer(text):
            if not last or m.group(1) in SALE_LABELS:
                add(m.group(1), m, offset, (m.group(2), m.group(3), m.group(4)))
        if not last:
            for m in _DATED_REVISION.finditer(text):
                add("개정일", m, offset, (m.group(1), m.group(2), m.group(3)))
            for m in _DATED_LABEL.finditer(text):
                add(m.group(4), m, offset, (m.group(1), m.group(2), m.group(3)))
    return min(found, key=lambda f: (f[0], f[1]))[2] if found else None


def printed_meta(doc: Document) -> dict[str, Printed]:
    """Every value of the module docstring this document prints, by key."""
    named = product(doc)
    found = (named, product_type(doc, named), insurer(doc), doc_type(doc), version(doc) or named_version(named))
    return {p.key: p for p in found if p is not None}


# a sale version in a product's name: "(25.01)", "(2025.01)" (the year and month the product
# went on sale, as insurers print it after the name)
_NAMED_VERSION = re.compile(r"[(（]\s*(?:20)?(\d{2})\s*[.\-]\s*(\d{1,2})\s*[)）]")


def named_version(named: Printed | None) -> Printed | None:
    """The version the product's name carries in brackets ("…(무배당)(25.01)" → 2025-01), when
    the document prints no labelled one."""
    m = _NAMED_VERSION.search(named.value) if named is not None else None
    if m is None or not 1 <= int(m.group(2)) <= 12:
        return None
    return Printed("version", f"20{m.group(1)}-{int(m.group(2)):02d}", named.page if named else None, named.line if named else "")
