"""Clause citations in Korean insurance text: "벌금 특별약관 제2조 제8호", "보통약관 제5조 제1항
제8호", "같은 약관 제3조의2 ②".

``parse_clause_refs`` finds them (pure, offsets into the text); ``resolve_yakgwan`` maps the 약관
name a notice writes (abbreviated, spaced differently, "특약" for "특별약관", Roman numerals as
letters) to the exact name printed in the policy, or None when no name fits — so that 제2조 of the
벌금 특별약관 is never taken for 제2조 of another 특약.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Iterable

from yakgwan.text.laws import NOT_LAWS

CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"  # how 약관 number their 항 (U+2460…2473; an article of several parts runs past ⑮)
CIRCLED_ALT = "➀➁➂➃➄➅➆➇➈➉"  # the dingbat forms some 특약 print their 항 with (U+2780…)
PARAGRAPH_MARKS = CIRCLED + CIRCLED_ALT
# how a 약관 titles the article that says what it pays (general 약관 vocabulary: 생명·상해 "보험금의
# 지급사유", 손해보험 "보상하는 손해", 실손 "보장종목별 보상내용")
COVERAGE_TITLES = ("지급사유", "보상하는 손해", "보상내용", "보장내용")
# a 항 starts a line with its circled number, or follows its article's heading, title and all, on
# the line ("제1조(보험금의 지급사유) ① 회사는 …"; a reference "제1조 ②에서" is not one); group 1 is the mark
PARAGRAPH_START = re.compile(rf"^[ \t]*(?:제\s*\d+\s*조(?:의\s*\d+)?\s*\([^()\n]{{1,40}}\)[ \t]*)?([{PARAGRAPH_MARKS}])", re.M)


def circled_number(mark: str) -> int:
    """The 항 number of a circled digit in either form ("②" or "➁" -> 2)."""
    return CIRCLED.index(mark) + 1 if mark in CIRCLED else CIRCLED_ALT.index(mark) + 1


_ARTICLE = re.compile(
    # "제3조 …", or "3조 1항" / "1조 3호" with the 제 left out (a part must follow: "3조" alone is not read)
    r"(?:제\s*|(?<![\d.,])(?=\d+\s*조\s*(?:제\s*)?\d+\s*[항호]))(?P<art>\d+)\s*조(?:\s*의\s*(?P<sub>\d+))?"
    r"(?:\s*\((?P<title>[^()\n]{1,40}(?:\n[^()\n]{1,40})?)\))?"  # a title may be broken over two lines
    r"(?:\s*(?:(?:제\s*)?(?P<para>\d+)\s*항|(?P<circ>[" + PARAGRAPH_MARKS + r"])(?:\s*항)?))?"  # "④" or "④항"
    r"(?:\s*(?:제\s*)?(?P<item>\d+)\s*호)?"
    r"(?:\s*(?P<mok>[가-하])\s*목)?"
)
# the 약관 name written just before an article: "…특별약관", "…특약", "보통약관", optionally in
# 「」/『』/quotes and followed by "의"
_NAME_BEFORE = re.compile(
    # a name's parentheses may hold commas: "대인형사합의실손비Ⅲ(중대법규위반,42일미만,운전자용) 특별약관"
    r"(?P<name>보통약관|[^\s「『\"'“”‘’,.;:·\n(](?:[^「『\"'“”‘’,.;:\n(]|\([^()\n]{0,40}\)){0,40}?(?:추가)?특별약관(?:\s*\([^()\n]{1,12}\))?"
    r"|[^\s「『\"'“”‘’,.;:·\n(](?:[^「『\"'“”‘’,.;:\n(]|\([^()\n]{0,40}\)){0,30}?특약(?:\s*\([^()\n]{1,30}\))?)"
    r"\s*[」』\"'”’]?\s*(?:의\s*)?$"
)
# a part cited after an article without repeating it: "같은 조 제3항 제2호", "같은 항 제4호", "그 제8호",
# "…제1항 제1호, 제2호" (the 호 of the same 항), "…제1항 및 제4항"
_PART_ONLY = re.compile(r"(?P<same>(?:(?:같은|동)\s*(?P<level>조|항)|(?<![가-힣])그(?=\s*제))\s*)?(?:제\s*(?P<para>\d+)\s*항(?:\s*(?:제\s*)?(?P<item>\d+)\s*호)?|제\s*(?P<item2>\d+)\s*호)")
# a statute cited the same way ("도로교통법 제44조", "「도로교통법」 제44조", "도로교통법상 제44조",
# "도로교통법(제44조)", "약관의 규제에 관한 법률 제5조"): not a clause of the policy
# (a law's name of words: "…에 관한 법률" after at most two words, none of them ending as a
# clause of the sentence does, 는/은/가/을/를/로/고/서/며/면, nor "및")
_STATUTE_BEFORE = re.compile(
    r"(?<![가-힣0-9])(?P<law>(?:[가-힣]+(?<![는은가을를로고서며면및])\s+){0,2}[가-힣]+에\s*관한\s*법률(?:\s*시행(?:령|규칙))?"
    r"|[가-힣]+(?:법|법률)(?:\s*시행(?:령|규칙))?|[가-힣]+(?:시행령|시행규칙))"
    r"[」』]?\s*(?:상|의)?\s*\(?\s*$")
STATUTE_WINDOW = 80  # characters before "제N조" a law's name is looked for in (a long line is not searched whole)


def _statute(before: str) -> str | None:
    """The law whose article follows ``before`` (the text before "제N조" on its line), if any."""
    m = _STATUTE_BEFORE.search(before[-STATUTE_WINDOW:])
    if m is None or m.group("law").endswith(NOT_LAWS):
        return None
    return m.group("law")
# what may stand between two articles of one 약관: "제13조 및 제15조", "제2조, 제3조"
# what joins two articles of one source: "제43조, 제44조 또는 제45조", "제3조 제2항 단서 및 제4조"
_JOINER = re.compile(r"^\s*(?:(?:단서|본문|전단|후단)\s*)?(?:및|또는|와|과|,|·|ㆍ|/)\s*$")
# "같은 특별약관", "이 특별약관", "동 특약", "같은 약관": refers back to the 약관 named last
_SAME = re.compile(r"^(?:.*\s)?(?:같은|이|동|해당)\s*(?:특별약관|특약|약관)$")
_ANY_NAME = re.compile(r"(?:[^\s「『\"'“”‘’,.;:()\[\]]+\s){0,5}[^\s「『\"'“”‘’,.;:\[\]]*(?:특별약관|특약)(?:\([^()\n]{1,12}\))?")
_ROMAN = {"Ⅰ": "I", "Ⅱ": "II", "Ⅲ": "III", "Ⅳ": "IV", "Ⅴ": "V"}


@dataclass(frozen=True)
class ClauseRef:
    """One cited clause. ``yakgwan`` is the text before the article up to a 약관 name's end, as
    written (it may begin with words of the sentence; :func:`resolve_yakgwan` finds the name in
    it), None when the line names no 약관; ``article`` e.g. "제2조" or "제29조의2"; ``paragraph`` "제1항"; ``item`` "제8호";
    ``subitem`` "가목"; ``title`` the article title when written ("제2조(보험금을 지급하지 않는
    사유) 제8호"); ``raw`` the matched text and ``start`` its offset."""

    yakgwan: str | None
    article: str
    paragraph: str | None
    item: str | None
    subitem: str | None
    raw: str
    start: int
    title: str | None = None
    statute: str | None = None  # "도로교통법" when the article is a law's, not the policy's
    end: int = 0

    @property
    def label(self) -> str:
        """"제2조 제1항 제8호" style, without the 약관 name."""
        return " ".join(p for p in (self.article, self.paragraph, self.item, self.subitem) if p)


def parse_clause_refs(text: str) -> list[ClauseRef]:
    """Every "제N조…" citation in ``text``, in order, with the 약관 name written before it on the
    same line (if any); and every part cited after one without its article ("같은 조 제3항",
    "제1항 제1호, 제2호"), which takes the article (and, for a lone 호, the 항) of the one before."""
    out: list[ClauseRef] = []
    articles = list(_ARTICLE.finditer(text))
    taken = [(m.start(), m.end()) for m in articles]
    parts = [m for m in _PART_ONLY.finditer(text) if not any(s <= m.start() < e for s, e in taken)]
    for m in sorted(articles + parts, key=lambda x: x.start()):
        if m.re is _PART_ONLY:
            ref = _part_ref(text, m, out[-1] if out else None)
            if ref is not None:
                out.append(ref)
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text[line_start : m.start()]
        statute = _statute(before)
        name_m = None if statute else _NAME_BEFORE.search(before)
        name = " ".join(name_m.group("name").split()) if name_m else None
        if name is not None and _SAME.match(name):  # "같은 특별약관 제2조": the 약관 named last before it
            name = _antecedent(text[: line_start + name_m.start()]) or name  # type: ignore[union-attr]
        prev = out[-1] if out else None
        if name is None and statute is None and prev is not None and prev.end >= line_start and _JOINER.match(text[prev.end : m.start()]):
            name = prev.yakgwan  # "보통약관 제13조 및 제15조": the same 약관
            statute = prev.statute  # "도로교통법 제44조 및 제148조의2": the same law
        para = f"제{m.group('para')}항" if m.group("para") else paragraph_label(m.group("circ"))
        article = f"제{m.group('art')}조" + (f"의{m.group('sub')}" if m.group("sub") else "")
        out.append(
            ClauseRef(
                yakgwan=name,
                article=article,
                paragraph=para,
                item=f"제{m.group('item')}호" if m.group("item") else None,
                subitem=f"{m.group('mok')}목" if m.group("mok") else None,
                raw=text[(line_start + name_m.start()) if name_m else m.start() : m.end()].strip(),
                start=m.start(),
                title=" ".join(m.group("title").split()) if m.group("title") else None,
                statute=statute,
                end=m.end(),
            )
        )
    return out


def _part_ref(text: str, m: re.Match[str], prev: ClauseRef | None) -> ClauseRef | None:
    """A part cited without its article, completed from ``prev``: after "같은 조/항", or joined
    to ``prev`` by "," / "및" / "또는"; None otherwise (a bare "제2항" elsewhere is no citation)."""
    if prev is None or prev.statute is not None:
        return None
    if not m.group("same") and not _JOINER.match(text[prev.end : m.start()]):
        return None
    item = m.group("item") or m.group("item2")
    para = f"제{m.group('para')}항" if m.group("para") else prev.paragraph
    return ClauseRef(yakgwan=prev.yakgwan, article=prev.article, paragraph=para, item=f"제{item}호" if item else None, subitem=None,
                     raw=m.group(0).strip(), start=m.start(), title=prev.title, end=m.end())


def _antecedent(text: str) -> str | None:
    """The last 약관 name written in ``text`` that is not itself a back-reference."""
    for m in reversed(list(_ANY_NAME.finditer(text))):
        name = " ".join(m.group(0).split())
        if not _SAME.match(name):
            return name
    return None


def paragraph_label(paragraph: str | None) -> str | None:
    """"①" or "1" -> "제1항"; anything else as it is; None stays None."""
    if not paragraph:
        return None
    if len(paragraph) == 1 and paragraph in PARAGRAPH_MARKS:
        return f"제{circled_number(paragraph)}항"
    return f"제{paragraph}항" if paragraph.isascii() and paragraph.isdigit() else paragraph


def normalise_name(name: str) -> str:
    """A 약관 name reduced for matching: no spaces or middle dots, "특약" -> "특별약관",
    Roman numeral letters -> ASCII."""
    s = "".join(name.split()).replace("․", "").replace("·", "")
    for k, v in _ROMAN.items():
        s = s.replace(k, v)
    if s.endswith("특약") or "특약(" in s:
        s = s.replace("특약", "특별약관")
    return s


# a variant written as a bare digit after the name ("교통사고처리지원금 2"); "(1)" is left alone: it
# is how OCR reads (Ⅰ) and (Ⅱ) alike, and stays ambiguous
_VARIANT_DIGIT = re.compile(r"(?<=[가-힣])\s*([123])(?=\s|$|특별약관|특약)")


def _core(name: str) -> str:
    """A 약관 name without its kind (특별약관, 특약), brackets or commas, its variant numeral as a
    Roman letter whether printed Ⅱ, (II) or written as a bare 2: what tells one 특약 from another."""
    s = _VARIANT_DIGIT.sub(lambda m: "I" * int(m.group(1)), name)
    s = normalise_name(s)
    s = re.sub(r"추가특별약관|특별약관", "", s)
    return re.sub(r"[()\[\],]", "", s)


_GENERIC_NAMES = ("특별약관", "추가특별약관")  # what every 특약's name ends with: a section a document titles so names no 특약


# a written name that says it is a 약관 ("… 특약", "… 특별약관", "보통약관 …"); without it, a coverage's name
_KIND = re.compile(r"약관|특약")
# what a 약관's name carries beside the coverage it names: qualifiers, the contract's kind, brackets
_QUALIFIERS = re.compile(r"\([^()]*\)|【[^】]*】|\[[^\]]*\]|추가특별약관|특별약관")


def _bare(name: str) -> str:
    return _QUALIFIERS.sub("", normalise_name(name))


def resolve_yakgwan(written: str, known: Iterable[str]) -> str | None:
    """The policy's own name for the 약관 a text calls ``written`` (which may start with words
    of the sentence: "귀하의 청구는 벌금 특별약관"). Tries the written words' suffixes, longest
    first: an exact match after normalisation wins; otherwise the longest suffix that exactly
    one known name contains (an abbreviation). None when nothing fits or the fit is ambiguous
    ("변호사선임비용 특약" when three 특약 carry that name).

    A name written without saying it is a 약관 ("자기차량손해", "골절진단비(치아파절포함)") is a
    coverage's name: it is a 특약's only when the words are that 특약's whole name but for its
    qualifiers and kind (or with its variant written as a digit: "가족교통사고처리지원금 1") —
    "자기차량손해" is a coverage of the 보통약관, not "자기차량손해 단독사고 보상 특별약관"."""
    found = _resolve(written, known)
    if found is None or _KIND.search(written) or found == "보통약관":
        return found
    words = written.split()
    suffixes = [" ".join(words[i:]) for i in range(len(words))]
    return found if any(_bare(w) == _bare(found) or _core(w) == _core(found) for w in suffixes) else None


def _resolve(written: str, known: Iterable[str]) -> str | None:
    names = {normalise_name(k): k for k in known}
    words = written.split()
    suffixes = [normalise_name(" ".join(words[i:])) for i in range(len(words))]
    for target in suffixes:
        if target in names and target not in _GENERIC_NAMES:  # "…지연 특약"'s last word is no name of its own
            return names[target]
    cores: dict[str, list[str]] = {}
    for k in names.values():
        if _core(k):  # a name that is only "특별약관" has no core to match
            cores.setdefault(_core(k), []).append(k)
    for i in range(len(words)):  # "교통사고처리지원금 2", "부상치료비(택시 제외) 특약": the name's words, variant and all
        hits = cores.get(_core(" ".join(words[i:])), []) if _core(" ".join(words[i:])) else []
        if len(hits) == 1:
            return hits[0]
    for target in suffixes:
        if target in _GENERIC_NAMES:
            continue
        hits = [k for n, k in names.items() if target in n]
        if len(hits) == 1:
            return hits[0]
        if hits:
            break  # the shorter suffixes only match more; the written words, in order, may still tell
    for i in range(len(words)):  # "이륜자동차 보장제외 특별약관": every written word, in order, in one name
        parts = [normalise_name(w) for w in words[i:] if normalise_name(w) not in ("특별약관", "특약")]
        if not parts:
            break
        hits = [k for n, k in names.items() if _in_order(parts, n)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return None
    return _abridged(words, list(names.values())) or _nearest(suffixes, names)


def _abridged(words: list[str], known: list[str]) -> str | None:
    """The one name a written one abridges by leaving words out: "탈구진단위로금 특약" for
    "탈구,신경손상,압착손상진단위로금 특별약관" — every letter of the written name's core (four or
    more) found in order, in stretches of two letters or more, in exactly one name's core."""
    for i in range(len(words)):
        core = _core(" ".join(words[i:]))
        if len(core) < 4:
            break
        hits = [k for k in known if _covers(core, _core(k))]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return None
    return None


def _covers(short: str, long: str) -> bool:
    blocks = [b for b in SequenceMatcher(None, short, long, autojunk=False).get_matching_blocks() if b.size >= 2]
    return sum(b.size for b in blocks) == len(short)


TYPO_RATIO = 0.9  # a written name this close to one known name (difflib's ratio over jamo) is that name
TYPO_MARGIN = 0.04  # ... when the next closest is at least this much further


def _nearest(suffixes: list[str], names: dict[str, str]) -> str | None:
    """The known name a written one misspells (a typo, an OCR misreading: 김스치료비 for
    깁스치료비), when exactly one is that close. The written words' suffixes that end in a 약관
    kind are tried longest first; the first that comes close to any name decides."""
    for target in suffixes:
        if not target.endswith("약관") or target in ("특별약관", "추가특별약관"):
            continue
        letters = unicodedata.normalize("NFD", target)  # compared by jamo: 김 and 깁 differ in one of three
        scored = sorted(((SequenceMatcher(None, letters, unicodedata.normalize("NFD", n)).ratio(), k) for n, k in names.items()), reverse=True)
        if not scored or scored[0][0] < TYPO_RATIO:
            continue
        rival = scored[1][0] if len(scored) > 1 else 0.0
        return scored[0][1] if scored[0][0] - rival >= TYPO_MARGIN else None
    return None


def _in_order(parts: list[str], name: str) -> bool:
    pos = 0
    for p in parts:
        pos = name.find(p, pos)
        if pos < 0:
            return False
        pos += len(p)
    return True
