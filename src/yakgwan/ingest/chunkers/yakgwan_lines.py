"""Line-level reading of 약관 text: what each line looks like on its own, which lines open a 약관
and which form the 목차 (table of contents). Used by ``yakgwan_structure``; all functions are pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.ingest.chunkers.headings import Heading, division, explicit_title, heading_above, law_heading, repeated_lines, statute_name

# dot leaders and a page number: "제1조(목적) ········ 1"; leaders alone ("성명 ......") are a form
_LEADER = re.compile(r"(?:[·.…・]{4,}|…{2,})\s*\d{1,4}\s*$")
_BRACKETS = re.compile(r"^\s*[\[【<〈]\s*|\s*[\]】>〉]\s*$")  # "[ 제1 관 목적 및 용어의 정의 ]"
_PART = re.compile(r"^\s*제\s*(\d+)\s*관\.?\s+(\S.{0,40})$")
_ARTICLE = re.compile(r"^\s*(제\s*(\d+)\s*조(?:\s*의\s*(\d+))?)\s*\(((?:[^()]|\([^()]*\))*)\)(.*)$")
# what follows "제N조(제목)" when the line cites the article instead of opening it: a particle
# glued to the bracket ("…)에 정한"), a particle standing alone after a space ("…) 에 따른", as PDF
# text extraction leaves it), or a list of articles. A word after a space is the article's first
# sentence ("…) 이 특별약관에", "…) 가입자는"); 이 alone is the demonstrative there, not a particle.
_REF_TAIL = re.compile(
    r"^(?:에|의|와|과|을|를|이|가|은|는|로|으로|부터|까지|및|또는)"
    r"|^\s+(?:에|에서|에게|의|와|과|을|를|가|은|는|로|으로|부터|까지|등)(?=[\s.,]|$)"
    r"|^\s*(?:제\s*\d|및|또는|,|·|\.)")
_PARA = re.compile(r"^\s*([①-⑳➀-➉])")
_BOX = re.compile(r"^\s*【([^】]{1,40})】\s*$")
_TABLE_HEAD = re.compile(r"^\s*([<\[【〈]\s*(?:별표|부표|붙임|별첨)[^>\]】〉]{0,10}[>\]】〉].{0,40})$")
_TABLE_WORD = re.compile(r"(?:표|별표|부표)\s*[IVXⅠ-Ⅹ\d]*$")
_APPENDIX = re.compile(r"^\s*(약관에서\s*인용된\s*법.{0,10}|주요\s*민원.{0,30}|부\s*록)\s*$")
_TOC_HEAD = re.compile(r"^\s*목\s*차\s*$")
_ARTICLE_HEAD_LOOKAHEAD = 3
_TOC_GAP = 5  # 목차 lines at most this many lines apart belong to one run
_TOC_MIN_RUN = 3
_TOC_HEAD_BEFORE = 8  # how far above its first entry a "목 차" heading may stand
STANDING = 40  # lines of text: how far above a 제1조 a title no 조 has followed yet still names its 약관
# a contents entry without leaders: "제41조 청약의 철회" (a 조 printed without its bracketed title)
_CONTENTS_ENTRY = re.compile(r"^\s*제\s*\d+\s*조(?:\s*의\s*\d+)?\s+[^\s(（][^.。]{0,40}$")


def looks_like_yakgwan(text: str) -> bool:
    """Cheap test: at least two article headings "제N조(…)" at line starts and the word 약관 or a
    제N관 heading. Reads at most the first 200,000 characters."""
    head = text[:200_000]
    articles = len(re.findall(r"(?m)^\s*제\s*\d+\s*조(?:의\s*\d+)?\s*\(", head))
    return articles >= 2 and ("약관" in head or re.search(r"(?m)^\s*제\s*\d+\s*관\s", head) is not None)


@dataclass(frozen=True)
class LineTag:
    kind: str  # title, part, division, article, para, box, table, law_head, appendix, toc, toc_head, blank, body
    label: str | None = None  # 약관 name, "제2관", "제3조", "①", box term, table heading
    title: str | None = None  # 관 or 조 title
    number: float = 0.0  # 관/조 number (제29조의2 -> 29.002)


def classify_line(line: str) -> LineTag:
    """What a line of a 약관 looks like on its own, without context (pure)."""
    s = line.strip()
    if not s:
        return LineTag("blank")
    if _LEADER.search(s):
        return LineTag("toc")
    if _TOC_HEAD.match(s):
        return LineTag("toc_head")
    m = _ARTICLE.match(s)
    if m and (not m.group(5).strip() or not _REF_TAIL.match(m.group(5))):
        number = int(m.group(2)) + (int(m.group(3)) / 1000 if m.group(3) else 0)
        return LineTag("article", re.sub(r"\s+", "", m.group(1)), m.group(4).strip(), number)
    m = _PART.match(s) or _PART.match(_BRACKETS.sub("", s))
    if m and not s.endswith(("다.", "다")):
        return LineTag("part", f"제{m.group(1)}관", m.group(2).strip(), int(m.group(1)))
    m = _PARA.match(s)
    if m:
        return LineTag("para", _normalise_circled(m.group(1)))
    if law_heading(s):
        return LineTag("law_head", " ".join(s.split()))
    name = division(s)
    if name is not None:
        return LineTag("division", name)
    m = _TABLE_HEAD.match(s)
    if m:
        return LineTag("table", m.group(1).strip())
    m = _BOX.match(s)
    if m:
        term = m.group(1).strip()
        return LineTag("table" if _TABLE_WORD.search(term) else "box", term)
    if _APPENDIX.match(s):
        return LineTag("appendix", s)
    name = explicit_title(s)
    if name is not None:
        return LineTag("title", name)
    return LineTag("body")


QUOTE_REACH = 300  # lines: how far below a heading that jumps ahead the numbering may resume


def quoted_ahead(tags: list[LineTag], i: int, last: float) -> bool:
    """Whether the article heading at ``i`` jumps ahead of ``last`` (the 약관's last article) only
    to have the numbering go on from ``last`` below it: a later heading numbered between the two,
    before any heading past it, a 제1조 or a title, within ``QUOTE_REACH`` lines. Such a heading
    is a quoted article ("관련 법규 금융소비자보호법 제46조(청약의 철회) …" printed in a box
    inside 제18조), not an article of the 약관. Deleted articles leave gaps that the numbering
    never goes back into, so a plain gap stays an article (pure)."""
    number = tags[i].number
    if last < 1 or number <= last + 1:
        return False
    for tag in tags[i + 1:i + 1 + QUOTE_REACH]:
        if tag.kind in ("title", "law_head", "appendix"):
            return False
        if tag.kind != "article" or tag.number <= 1:
            if tag.kind == "article" and tag.number == 1:
                return False
            continue
        if last < tag.number < number:
            return True
        if tag.number > number:
            return False
    return False


def _normalise_circled(mark: str) -> str:
    if "➀" <= mark <= "➉":
        return chr(ord("①") + ord(mark) - ord("➀"))
    return mark


def yakgwan_name(title: str) -> str:
    """"KB스마트운전자보험 보통약관" -> "보통약관"; a 특별약관 keeps its exact name."""
    return "보통약관" if title.endswith("보통약관") else title


@dataclass(frozen=True)
class Openings:
    """Where each 약관 begins (line index -> its name; None: a 약관 whose heading was not found),
    the 제1조 lines that restart the numbering inside the 약관 they stand in (parts of the
    보통약관 under a division heading that names it), and the lines that lie in the appended
    laws, each with the statute it belongs to (None before the first statute's name)."""

    starts: dict[int, str | None]
    restarts: frozenset[int]
    laws: dict[int, str | None]


def openings(tags: list[LineTag], lines: list[str]) -> Openings:
    """The openings of the 약관 in a document's lines (``headings``: a 제1조, or the 제1관 above
    it, begins a 약관 named by the heading above it). In the appended laws only an explicit
    title begins a 약관 (a statute's 제1조 does not), and inside the 보통약관 (after its title,
    or under a division heading that names it, until a 특별약관's title or division) a numbered
    heading is a part of the 보통약관. A 제1조 with no heading just above belongs to the last
    explicit title no 조 has followed, when at most ``STANDING`` lines of text stand between
    (contents entries and headings aside: a title alone on a divider page, then an
    introduction; a title above the 약관's own contents). 목차 lines are skipped."""
    starts: dict[int, str | None] = {}
    restarts: set[int] = set()
    laws: dict[int, str | None] = {}
    in_law = in_base = False
    by_division = False  # the 보통약관 was named by a division heading ("제2절 보통약관의 보장")
    statute: str | None = None
    standing: int | None = None  # the last explicit title no 조 has followed yet
    standing_text = 0  # lines of text since (contents entries and headings aside)
    repeated = repeated_lines(lines)
    for i, tag in enumerate(tags):
        if tag.kind in ("toc", "toc_head"):
            continue
        if tag.kind == "law_head" and starts:  # the laws appended after a 약관 (not a contents page's mention)
            in_law, statute = True, None
        elif tag.kind == "appendix":  # another appendix (주요 민원 사례, 부록) ends the laws
            in_law, statute = False, None
        elif tag.kind == "division":
            squashed = "".join((tag.label or "").split())
            in_base = "보통약관" in squashed or (in_base and "특별약관" not in squashed and "특약" not in squashed)
            by_division = in_base and ("보통약관" in squashed or by_division)
        elif tag.kind == "title" and tag.label and yakgwan_name(tag.label) != "보통약관":
            in_base = False  # a 특별약관's title ends the 보통약관
        if tag.kind in ("article", "part") and tag.number == 1:
            heading = heading_above(lines, i, repeated)
            if heading is None and standing is not None and standing_text <= STANDING:
                # a title on a divider page or above an introduction longer than a blurb
                heading = Heading(tags[standing].label or "", standing, True)
            if heading is not None and (heading.explicit or not (in_law or in_base)):
                name = yakgwan_name(heading.name)
                starts.setdefault(heading.line, name)
                in_law = False
                in_base, by_division = name == "보통약관", False  # numbered headings below are its parts
            elif in_base and not in_law and tag.kind == "article" and (heading is not None or by_division):
                restarts.add(i)  # without a heading, a restart under the 보통약관's title alone opens an unnamed 약관
        if tag.kind == "title" and not in_law:
            standing, standing_text = i, 0
        elif tag.kind == "article":
            standing = None  # a title that 조 follow has been read (or was a line of the text)
        elif tag.kind in ("body", "para", "box", "table") and not _CONTENTS_ENTRY.match(lines[i]):
            standing_text += 1
        if in_law:
            name = statute_name(lines[i]) if tag.kind == "body" else None
            statute = name or statute
            laws[i] = statute
    return Openings(starts, frozenset(restarts), laws)


def _toc_runs(tags: list[LineTag], body_start: int) -> list[list[int]]:
    """Indices of toc-tagged lines grouped into runs; in the body a 항 or 조 line ends a run."""
    runs: list[list[int]] = []
    for i, tag in enumerate(tags):
        if tag.kind != "toc":
            continue
        last = runs[-1][-1] if runs else -_TOC_GAP - 1
        between = range(max(last + 1, body_start), i)
        if i - last <= _TOC_GAP and not any(tags[j].kind in ("para", "article") for j in between):
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _names_a_heading(line: str) -> bool:
    entry = _LEADER.sub("", line).strip()
    return classify_line(entry).kind in ("article", "part", "title")


def toc_lines(tags: list[LineTag], lines: list[str], body_start: int) -> set[int]:
    """Lines of the 목차: runs of at least three page-numbered dot-leader lines (up to four other
    lines between two of them) and the 목차 heading above a run. From ``body_start`` on (the first
    약관) a run must also name a 조, 관 or 약관 in one of its entries, so a form or a graded table
    with dot leaders stays body text."""
    found: set[int] = set()
    for run in _toc_runs(tags, body_start):
        if len(run) < _TOC_MIN_RUN:
            continue
        if run[-1] >= body_start and not any(_names_a_heading(lines[i]) for i in run):
            continue
        found.update(range(run[0], run[-1] + 1))
        for j in range(max(run[0] - _TOC_HEAD_BEFORE, 0), run[0]):
            if tags[j].kind == "toc_head":
                found.update(range(j, run[0]))
                break
    return {i for i in found if i < body_start or tags[i].kind not in ("para", "article")}
