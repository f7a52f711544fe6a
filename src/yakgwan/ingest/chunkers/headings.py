"""Headings of a 약관 in the forms insurers print them, and where each 약관 begins. Pure.

A 약관's articles are numbered from 제1조, so a 제1조 (or the 제1관 above it) where the numbering
starts again is where a 약관 begins; its name is the heading printed just above, which may be

- an **explicit title**: ends in 보통약관, 특별약관, 추가특별약관, 추가약관, 특약 or
  "특별약관 일반조항", maybe followed by a Roman numeral, up to three bracketed notes and a
  【…】 tag ("운동위험 특별약관(I)(전문등반 등)", "… 추가특별약관Ⅱ"); its numbering ("1-3.",
  "Ⅱ.", "가.", "1)") is not part of the name; it may be letter-spaced ("보 통 약 관"), set in
  brackets alone on its line ("【보통약관】", "[ 보통약관 ]"), or wrapped over two lines (the
  last line "특별약관" or "추가특별약관(…)", the line above not ending in a title word);
- a **numbered heading** without the word 약관 ("3. 보험료 자동납입", "1. 치석제거치료비【갱신계약】"):
  a short line that is not a sentence, under a heading number. Under a division heading that
  names the 보통약관 ("제2절 보통약관의 보장") such headings are parts of the 보통약관, not 약관
  of their own.

Between the heading and the 제1조 may stand 관/장/절/편 headings (bracketed or not), notes in
brackets, blank lines and running headers (a line printed ``REPEATED`` times or more in the
document, its numbers aside). A line ending like a sentence (…다, …다.) is never a heading.

In the appended laws (``law_heading``: "약관에서 인용된 법령", "관련 법규", "인용 법·규정") a
제1조 is a statute's: only an explicit title opens a 약관 there again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.text.laws import NOT_LAWS

# title words, longest first (insurance vocabulary: the names a 약관 gives its parts)
TITLE_WORDS = ("특별약관 일반조항", "추가특별약관", "보통약관", "특별약관", "추가약관", "추가특약", "특약")
MAX_TITLE = 90  # characters: longer lines are sentences
MAX_NUMBERED = 60
LOOKBACK = 8  # lines above a 제1조 searched for its heading
REPEATED = 5  # a line printed this many times is a running header or footer
BLURB = 3  # lines of a 약관's introduction between its title and its first 관 or 조

_NUMBERING = re.compile(r"^\s*(?:\d{1,2}(?:-\d{1,2}){0,2}[.)]|[가-하][.)]|[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ]{1,4}[.)]?|[IVX]{1,4}\.|\(\d{1,2}\)|제\s*\d+\s*[장절편부]\.?)\s*")
_SUFFIX = r"(?:\s*[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ]{1,3}|\s*[IVX]{1,3}(?![A-Za-z]))?(?:\s*[(（【\[][^()（）【】\[\]]{0,40}[)）】\]]){0,3}"
_EXPLICIT = re.compile(r"^(.{0,80}?)(" + "|".join(w.replace(" ", r"\s*") for w in TITLE_WORDS) + ")" + _SUFFIX + r"\s*$")
_BRACKETED = re.compile(r"^\s*[【\[<〈《「『]\s*(.+?)\s*[】\]>〉》」』]\s*$")
_SENTENCE_END = re.compile(r"(?:다|요|음|함|됨|임)\s*[.。]?\s*$|[.。]\s*$")
_DIVISION = re.compile(r"^\s*제\s*\d+\s*[편장절]\.?\s+\S")
_ARTICLE = re.compile(r"^\s*제\s*\d+\s*조")
# a sentence whose subject is a 약관 ("이 특별약관은", "… 특약은"): a 약관 introducing itself
_INTRODUCES = re.compile(r"(?:약관|특약)\s*[은는]\s")
_NOTE = re.compile(r"^\s*[(（※*].*[)）]?\s*$")
# appendix headings of the laws a 약관 quotes (insurance vocabulary): "약관에서 인용된 법령",
# "참고 : 약관에서 인용된 법·규정", "[부록] …", "【별표 3】 관련 법규"; a box "관련 법규" inside an
# article (a quoted statute beside a clause) names no appendix
_LAW_HEAD = re.compile(r"(?:인용|참고|부록|별표\s*\d*\s*[】\]>〉)]?\s*관련).{0,12}(?:법령|법규|법\s*[·ㆍ•․∙]\s*규정|법률)")
# a statute's name alone on its line: "상법", "「의료법」", "[법규1] 개인정보 보호법", "【법규3】민법",
# "국민건강보험법 시행령"
_STATUTE = re.compile(r"^\s*(?:[■□◆◇○●▶·∙\-]\s*|\[[^\]]{1,8}\]\s*|【[^】]{1,8}】\s*|\d{1,2}[.)]\s*)?[「『<]?\s*([가-힣·ㆍ ]{1,40}?(?:법률|법|령|규칙|규정)(?:\s*시행령|\s*시행규칙)?)\s*[」』>]?\s*$")


def _squash_spaced(line: str) -> str:
    """"보 통 약 관" -> "보통약관": a line whose words are all single letters is letter-spaced."""
    words = line.split()
    return "".join(words) if len(words) >= 3 and all(len(w) == 1 for w in words) else line


def heading_text(line: str) -> str:
    """A line as a heading reads: brackets around a lone heading, letter-spacing and the
    heading number taken off, whitespace collapsed (pure)."""
    s = " ".join(_squash_spaced(line.strip()).split())
    m = _BRACKETED.match(s)
    if m and _EXPLICIT.match(m.group(1)):
        s = m.group(1)
    return " ".join(_NUMBERING.sub("", s, count=1).split())


def is_sentence(line: str) -> bool:
    return bool(_SENTENCE_END.search(line.strip()))


def explicit_title(line: str) -> str | None:
    """The 약관 name an explicit title line prints (see the module docstring), or None."""
    s = heading_text(line)
    if not s or len(s) > MAX_TITLE or is_sentence(s) or _ARTICLE.match(s) or _DIVISION.match(line):
        return None
    return s if _EXPLICIT.match(s) else None


def numbered_heading(line: str) -> str | None:
    """The text of a numbered heading without a title word ("3. 보험료 자동납입"), or None."""
    s = " ".join(_squash_spaced(line.strip()).split())
    if not _NUMBERING.match(s) or _DIVISION.match(s) or _ARTICLE.match(s):
        return None
    text = heading_text(s)
    if not text or len(text) > MAX_NUMBERED or is_sentence(text) or not re.search(r"[가-힣]{2}", text):
        return None
    if re.search(r"[,:;]\s|\d+\s*(?:원|%|일|개월|년)\b", text):  # a list item's clause, an amount
        return None
    return text


def law_heading(line: str) -> bool:
    """Whether a line heads the appended laws (short, naming cited laws)."""
    s = "".join(line.split())
    return len(s) <= 40 and "\t" not in line and not is_sentence(line) and bool(_LAW_HEAD.search(s))


def statute_name(line: str) -> str | None:
    """The statute a short line names on its own ("상법", "「의료법」", "국민건강보험법 시행령")."""
    m = _STATUTE.match(line)
    if not m or is_sentence(line) or m.group(1).endswith(NOT_LAWS):
        return None
    return " ".join(m.group(1).split())


def division(line: str) -> str | None:
    """A 편/장/절 heading's text ("제2절 보통약관의 보장"), or None."""
    s = line.strip()
    return " ".join(s.split()) if _DIVISION.match(s) and not is_sentence(s) and len(s) <= MAX_TITLE else None


def _key(line: str) -> str:
    return " ".join(re.sub(r"\d+", "#", line).split())


def repeated_lines(lines: list[str]) -> frozenset[int]:
    """Indices of the lines printed ``REPEATED`` times or more (numbers aside): running headers
    and footers that survived the reader (pure)."""
    counts: dict[str, int] = {}
    keys = [_key(line) for line in lines]
    for k in keys:
        if k:
            counts[k] = counts.get(k, 0) + 1
    return frozenset(i for i, k in enumerate(keys) if k and counts[k] >= REPEATED)


def _unbracketed(line: str) -> str:
    m = _BRACKETED.match(line.strip())
    return m.group(1) if m else line


def _wrapped(upper: str, lower: str) -> str | None:
    """A title wrapped over two lines: the lower line is a title whose words before the title
    word are none or only '추가', and the upper line is a heading that does not end in one."""
    name = explicit_title(lower)
    if name is None:
        return None
    head = heading_text(upper)
    m = _EXPLICIT.match(name)
    before = m.group(1).strip() if m else ""
    if before not in ("", "추가") and not name.startswith(("특별약관", "추가특별약관", "추가약관")):
        return None
    if not head or is_sentence(head) or len(head) > MAX_TITLE or explicit_title(upper) or _ARTICLE.match(head):
        return None
    return f"{head} {name}"


@dataclass(frozen=True)
class Heading:
    """The heading found above a 제1조: its name, the line it starts on, and whether it is an
    explicit title (a numbered heading without a title word is not)."""

    name: str
    line: int
    explicit: bool


def heading_above(lines: list[str], i: int, repeated: frozenset[int] = frozenset(), lookback: int = LOOKBACK) -> Heading | None:
    """The heading of the 약관 whose first 제1조 (or 제1관) is line ``i``: the nearest heading
    line above, past blank lines, 관/장/절/편 headings, bracketed notes and the ``repeated``
    lines (running headers, ``repeated_lines``) that are not headings themselves."""
    j = i - 1
    seen = 0
    while j >= 0 and seen < lookback:
        line = lines[j]
        bare = _unbracketed(line)
        passing = (not line.strip() or division(bare) or re.match(r"^\s*제\s*\d+\s*관\.?\s", bare)
                   or (_NOTE.match(line) and not explicit_title(line))
                   or (j in repeated and not explicit_title(line) and not numbered_heading(line)))
        if passing:
            j -= 1
            seen += 1
            continue
        name = explicit_title(line)
        if name is not None:
            if j > 0 and (joined := _wrapped(lines[j - 1], line)) is not None:
                return Heading(joined, j - 1, True)
            return Heading(name, j, True)
        numbered = numbered_heading(line)
        if numbered is not None:
            return Heading(numbered, j, False)
        return _above_blurb(lines, j)
    return None


def _above_blurb(lines: list[str], j: int) -> Heading | None:
    """An explicit title above a short blurb that ends at line ``j`` and introduces the 약관
    ("… 특별약관은 … 보상하는 상품입니다."): at most ``BLURB`` lines, the last a sentence, the
    first naming a 약관 as its subject."""
    if not is_sentence(lines[j]):
        return None
    for k in range(j - 1, max(j - 1 - BLURB, -1), -1):
        name = explicit_title(lines[k])
        if name is not None:
            return Heading(name, k, True) if _INTRODUCES.search(lines[k + 1]) else None
        if not lines[k].strip() or is_sentence(lines[k]):
            return None
    return None

