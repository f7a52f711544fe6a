"""Reading a claim denial notice (보험금 부지급/거절 안내) without a model: header fields,
the stated denial reasons and the clauses each reason cites.

Notices are letters, not forms, so the rules are forgiving: header fields are "label: value"
lines (labels spaced or not, several per line with " / "; a label one letter off a known one,
as OCR misreads it, still names its field); reasons are the sections whose heading names a
reason ("[부지급 사유]", "[사유 1] …", "2. 지급 거절 사유", a bare "사유:", "부지급사유:" or
"거절 사유" line, the heading never part of the reason's text), or, when there is no such
heading, the paragraphs that state a denial ("지급하지 않습니다", "보상하지 않는 손해", "지급할 수
없습니다", "보험금을 드릴 수 없습니다", "지급이 어렵습니다" …), less the header fields above them. A reason cites the clauses written in it; one without any gets the
clauses of the notice's "관련 약관"/"근거" section. A letter with none of this (a payment-delay
notice, say) has no denial reason, and that is an error naming the file, never an invented one.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Sequence

from yakgwan.appeal.citations import ClauseRef, parse_clause_refs
from yakgwan.core.errors import InputError
from yakgwan.messages import Message, msg
from yakgwan.ingest.pdf.ocr import OcrText

DENIAL_CUE = re.compile(
    r"지급하지\s*않|지급할\s*수\s*없|지급하여\s*드릴\s*수\s*없|지급이?\s*불가|보상하지\s*않|보상하여\s*드리지\s*않|보상할\s*수\s*없"
    r"|지급사유에\s*해당하지\s*않|(?:지급|보상)\s*대상이\s*아님|대상에\s*들지\s*않|보험금\s*미지급|(?:지급|보상)(?:하여|해)?\s*드리지\s*못|(?:지급|보상)하지\s*못|지급할\s*(?:보험금|금액)이\s*없|보상\s*범위에서\s*제외|지급되지\s*않|부지급|지급\s*대상이\s*아니|지급\s*대상에\s*해당하지\s*않|보상\s*대상에서\s*제외|보상\s*대상이\s*아니|지급을?\s*거절|면책"
    r"|(?:보험금을?|지원금을?|보상금을?)\s*(?:지급해\s*)?드릴\s*수\s*없|(?:지급|보상)(?:이|은|을\s*해\s*드리기가?|해\s*드리기가?)\s*어렵"
    r"|드리기(?:가|는)?\s*어렵|(?:지급|보상)\s*요건을?\s*충족하지\s*(?:못|않)|(?:지급|보상)(?:하여|해)?\s*드릴\s*수\s*없"
)
# how a letter opens its conclusion: the paragraph before it holds the reasoning
_CONCLUSION = re.compile(r"^\s*(?:따라서|그러므로|이에\s|이상과\s*같이|위와\s*같은|위와\s*같이|이러한\s*사유로)")
# closing lines of a letter: how to object, whom to call
BOILERPLATE = re.compile(r"이의\s*(?:가|를|는)?\s*(?:있|신청|제기)|분쟁\s*조정|(?<!전)문의|☎|가상 문서|재심사")
_BRACKET_HEADING = re.compile(r"^\s*[\[【<〈《‹](?P<head>[^\]】>〉》›]{1,30})[\]】>〉》›]\s*(?P<rest>.*)$")
_NUMBERED_HEADING = re.compile(r"^\s*(?:\d{1,2}[.)]|[■□▶●○◆]|[가-하][.)])\s*(?P<head>[^.。:：]{2,24})\s*$")
# the marks a list item of a letter starts with: bullets (ㅇ and o typed for ○, * for •), "1." "1)" "(1)" "가." "나)"
LIST_MARK = r"(?:[-·•■□▶●○◆*ㅇ]|o(?=\s)|\d{1,2}[.)]|\(\d{1,2}\)|[가-하][.)])"
_FIELD = re.compile(rf"^\s*(?:{LIST_MARK}\s*)?(?P<label>[가-힣][가-힣 ]{{0,12}}?)\s*[:：]\s*(?P<value>.*)$")
# "사유:", "부지급 사유 :", "관련 약관: 제4조…": a label line that heads a section when the label
# names a reason or the clauses (``_is_reason_heading``, ``_is_clause_heading``)
_COLON_HEADING = re.compile(r"^\s*(?:[-·•■□▶●○◆]\s*)?(?P<head>[가-힣][가-힣 ]{0,15}?)\s*[:：]\s*(?P<rest>.*)$")
# a line that is only a short label, with no colon, bracket or number: "거절 사유", "관련 약관"
_BARE_HEADING = re.compile(r"^\s*(?:[■□▶●○◆]\s*)?(?P<head>[가-힣][가-힣 ]{0,15})\s*$")

_INSURER = re.compile(r"([A-Za-z가-힣]*?(?:손해보험|생명보험|화재해상보험|해상화재보험|화재보험|생명|화재|보험))(?:\s*주식회사|\(주\))?(?=[\s\](]|$)")
_AMOUNT = re.compile(r"([\d,]+)\s*원")
_POLICY_NO = re.compile(r"증권\s*번호\s*[:：]?\s*([0-9][0-9-]{5,})|증권\s*번호[^\n]{0,40}?\b(\d-\d{4}-\d{4,})")
# a parenthesis that is part of a 약관's name: a qualifier of up to 12 letters ("(동승자 제외)", "(7일이상)",
# "(Ⅱ)"), never an amount ("(가입금액 1,000만원)", "(30만원)")
_NAME_QUALIFIER = r"\((?![^()\n]*(?:원|가입|금액))[^(),\n]{1,12}\)"
_ITEM_NAMED = re.compile(rf"^\s*(\S.*?(?:추가특별약관|특별약관|특약)(?:\s*{_NAME_QUALIFIER})?)(?=\s|$|[,(/]|의\s)")
# a claim named in the letter's prose: "… 특약으로 청구하신", "청구하신 담보는 … 특별약관", "… 특별약관(…)에 따른
# 보험금을 청구", "청구하신 …(택시 포함) 건"
_WORD = r"[^\s,.()]+(?:\([^()\n]{1,30}\))?"  # a word, with a parenthesis attached to it ("대인형사합의실손비Ⅲ(운전자용,비탑승중포함)")
_NAME = rf"{_WORD}(?:\s{_WORD}){{0,3}}?\s?(?:{_NAME_QUALIFIER}\s?)?(?:추가특별약관|특별약관|특약)(?:\s*{_NAME_QUALIFIER})?"
_PROSE_CLAIM = re.compile(rf"청구하신\s+(?:(?:담보|특약|보장)(?:는|은)\s+)?(?P<a>{_NAME})"
                          rf"|(?P<b>{_NAME})\s*(?:\([^()]*\))?\s*(?:으로|로|에\s*따른\s*보험금을)\s*청구"
                          r"|청구하신\s+(?P<c>[가-힣]{4,}(?:\s?[가-힣]+){0,2}(?:\s?\([^()\d,]{1,12}\))?)\s*건"
                          rf"|(?P<d>{_NAME})\s*청구\s*건")  # "… 지연 특약 청구 건의 심사"
PROSE_CHARS = 3000  # a letter names its claim near the top; the search stays short on a long text
_SENTENCE_END = re.compile(r"(?<=[.다])\s+")

FIELD_LABELS = {
    "상품명": "product",
    "상품": "product",
    "부가특별약관": "riders",
    "보험상품": "product",
    "증권번호": "policy_no",
    "접수번호": "claim_no",
    "사고접수번호": "claim_no",
    "청구번호": "claim_no",
    "청구담보": "claim_item",
    "청구담보및금액": "claim_item",
    "담보": "claim_item",
    "청구특약": "claim_item",
    "청구보장": "claim_item",  # what the claim is under, as 보장 (a product of 보장종목: 실손)
    "보장종목": "claim_item",
    "청구보장종목": "claim_item",
    "청구특별약관": "claim_item",
    "청구담보명": "claim_item",
    "청구내용": "claim_item",
    "청구": "claim_item",
    "청구금액": "amount",
    "사고일": "accident_date",
    "사고일시": "accident_date",
    "사고일자": "accident_date",
    "청구일": "claim_date",
    "청구일자": "claim_date",
    "서류접수일": "claim_date",
    "발송일": "notice_date",
    "안내일": "notice_date",
    "통지일": "notice_date",
    "통지일자": "notice_date",
    "진단명": "diagnosis",
    "진단": "diagnosis",
}


# labels that are words of a sentence as often: a field only with a colon ("청구 : …", never "청구 내용을 검토한 결과")
COLON_ONLY = {"청구", "청구내용"}
LABEL_RATIO = 0.85  # a label this close to one known label (difflib's ratio over jamo) is that label: 성구담보 for 청구담보


def field_key(label: str) -> str | None:
    """The header field a label names (spaces ignored), or None. A label of three or more
    letters one letter off a known one (a typo, an OCR misreading) names that field when no
    other known label is as close."""
    label = "".join(label.split())
    if label in FIELD_LABELS or len(label) < 3:
        return FIELD_LABELS.get(label)
    letters = unicodedata.normalize("NFD", label)
    scored = sorted(((SequenceMatcher(None, letters, unicodedata.normalize("NFD", k)).ratio(), k) for k in FIELD_LABELS if len(k) >= 3), reverse=True)
    if not scored or scored[0][0] < LABEL_RATIO or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return FIELD_LABELS[scored[0][1]]


@dataclass(frozen=True)
class DenialReason:
    """One stated ground for the denial: its text (whitespace collapsed), the heading it was
    under, and the clauses it cites (statutes left out)."""

    text: str
    heading: str | None
    refs: tuple[ClauseRef, ...]


@dataclass(frozen=True)
class DenialNotice:
    source: str
    text: str
    insurer: str | None
    product: str | None
    policy_no: str | None
    claim_no: str | None
    claim_items: tuple[str, ...]
    amount_won: int | None
    dates: dict[str, str] = field(default_factory=dict)
    diagnosis: str | None = None
    reasons: tuple[DenialReason, ...] = ()
    refs: tuple[ClauseRef, ...] = ()  # every clause the notice cites
    ocr: OcrText | None = None  # how the text was read when the notice is a picture (a scan, a photo)


@dataclass
class _Section:
    heading: str | None
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.lines).split())


class NoDenialReason(InputError):
    """A notice in which no denial reason was recognised; ``sentences`` are its text's sentences,
    for a reader to mark the reason among them (or type it) and analyse again with it given."""

    def __init__(self, path: str | None, reason: "str | Message", sentences: Sequence[str] = ()) -> None:
        super().__init__(path, reason)
        self.sentences = tuple(sentences)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.path, self.given_reason, self.sentences))


MAX_SENTENCES = 80  # offered to mark; a notice is a letter of a page or two


def notice_sentences(text: str) -> list[str]:
    """The sentences of a notice's text, whitespace collapsed, in order, each once: a line break
    or a Korean sentence end (다. 요. and a space before the next) ends one; the period of a list
    number ("1.") does not. Pure."""
    out: list[str] = []
    for line in text.splitlines():
        for piece in re.split(r"(?<=[다요]\.)\s+|(?<=[^\d\s][.!?])\s+(?=\S)", line):  # "1. 고의 2. 음주": a list, not sentences
            s = " ".join(piece.split())
            if len(s) >= 2 and s not in out:
                out.append(s)
    return out[:MAX_SENTENCES]


def parse_notice(text: str, source: str, given_reasons: Sequence[str] = ()) -> DenialNotice:
    """The notice in ``text`` (read from ``source``, named in errors). ``given_reasons``: the
    denial reasons as a reader marked or typed them, used instead of those recognised (each
    cites what it names, or what the notice's clause section lists). Raises ``InputError`` for an
    empty notice and :class:`NoDenialReason` for one that states no reason recognised."""
    if not text.strip():
        raise InputError(source, msg("load.notice_empty"))
    lines = text.splitlines()
    fields, items, amount = _fields(lines)
    if not items:  # no claim field: the 특약 the letter's prose says was claimed
        m = _PROSE_CLAIM.search(" ".join(text.split())[:PROSE_CHARS])
        items = [" ".join((m.group("a") or m.group("b") or m.group("c") or m.group("d")).split())] if m else []
    sections = _sections(lines)
    clause_refs = [r for s in sections if s.heading and _is_clause_heading(s.heading) for r in _policy_refs(s.heading + " " + s.text)]
    given = [" ".join(r.split()) for r in given_reasons if r.strip()]
    reasons = [DenialReason(r, None, _unique(_policy_refs(r) or clause_refs)) for r in given] if given else _reasons(sections, clause_refs)
    if not reasons:
        raise NoDenialReason(source, msg("error.no_reason"), notice_sentences(text))
    policy_no = fields.get("policy_no")
    m = _POLICY_NO.search(text)
    if m and (not policy_no or not re.match(r"[0-9]", policy_no)):
        policy_no = m.group(1) or m.group(2)
    product = fields.get("product") or _prose_product(text)
    if product:
        product = re.split(r"\s*[(/]", product)[0].strip() or None
    return DenialNotice(
        source=source,
        text=text,
        insurer=_insurer(lines),
        product=product,
        policy_no=policy_no.split()[0] if policy_no else None,
        claim_no=fields.get("claim_no", "").split()[0] if fields.get("claim_no") else None,
        claim_items=tuple(items),
        amount_won=amount,
        dates={k: v for k, v in fields.items() if k.endswith("_date")},
        diagnosis=fields.get("diagnosis"),
        reasons=tuple(reasons),
        refs=tuple(_policy_refs(text)),
    )


# a product named in prose: "…보험(증권번호 …", "…보험 / 1-2022-…", "고객님 (…보험)"
_PROSE_PRODUCT = re.compile(r"([A-Za-z]*[가-힣]+보험)\s*(?:\(\s*증권|/\s*(?:증권|\d-\d{4}))|\(([A-Za-z]*[가-힣]+보험)\)")


def _prose_product(text: str) -> str | None:
    """The product a letter without a product field names beside its policy number; an insurer's
    own name (…손해보험, …생명보험) is not a product."""
    for m in _PROSE_PRODUCT.finditer(text):
        name = m.group(1) or m.group(2)
        if not re.search(r"(?:손해|생명|화재)보험$", name):
            return name
    return None


def _policy_refs(text: str) -> list[ClauseRef]:
    return [r for r in parse_clause_refs(text) if r.statute is None]


def _insurer(lines: list[str]) -> str | None:
    for line in lines[:5]:
        m = _INSURER.search(line)
        if m:
            return m.group(1)
    return None


def _fields(lines: list[str]) -> tuple[dict[str, str], list[str], int | None]:
    """Header fields, the claimed items (담보/특약) and the claimed amount in won."""
    fields: dict[str, str] = {}
    items: list[str] = []
    amount: int | None = None
    for i, line in enumerate(lines[:40]):
        for part in re.split(r"\s+/\s+", line):
            m = _FIELD.match(part)
            key = field_key(m.group("label")) if m else None
            value = (m.group("value") or "").strip() if key else ""
            if key is None:
                key, value = _label_without_colon(part)
            if key is None:
                key, value = _heading_field(lines, i)
            if key is None or key in fields:
                continue
            fields[key] = value
            if key == "claim_item":
                bullets = [value] if value else []
                for nxt in lines[i + 1 : i + 8]:  # "청구 담보 및 금액:" followed by "- 특약 금액" lines
                    if not re.match(r"^\s*[-·•]\s*\S", nxt) or _is_field(nxt):
                        break
                    bullets.append(re.sub(r"^\s*[-·•]\s*", "", nxt))
                # a date or an amount first ("9.13~9.14 현지에서 구입한 …") is what was bought, not a 담보's name
                # the field's own value may list several ("대물배상(…원), 자기차량손해(…원)"); an amount is none of them
                parts = [*(_top_level_parts(value) if value else []), *bullets[1 if value else 0 :]]
                names = [_item_name(part) for part in parts if not _AMOUNT_ONLY.match(part)]
                # under a label that also heads what was bought ("청구 : 호텔 1실 …원"), only a 약관's name is the claim
                loose = "".join((m.group("label") if m else part).split()) in COLON_ONLY
                items += [n for n in names if n and not re.match(r"\d", n) and (not loose or _ITEM_NAMED.match(n) or not _SPENT.search(re.sub(r"\([^()]*\)", "", n)))]
            if key == "amount":
                am = _AMOUNT.search(value)
                amount = int(am.group(1).replace(",", "")) if am else None
    return fields, items, amount


def _label_without_colon(line: str) -> tuple[str | None, str]:
    """"상품명 KB스마트운전자보험 (…)", "청구 담보 및 금액": a known label of up to four words,
    then the value (maybe empty) after a space instead of a colon."""
    words = re.sub(r"^\s*[-·•]\s*", "", line).split()
    for k in range(min(4, len(words)), 0, -1):
        label = "".join(words[:k])
        key = FIELD_LABELS.get(label)  # exactly: without a colon, a label one letter off is a sentence's word
        if key is not None and label not in COLON_ONLY:
            return key, " ".join(words[k:])
    return None, ""


def _heading_field(lines: list[str], i: int) -> tuple[str | None, str]:
    """"1. 청구 내용", "【청구 담보】", "■ 청구내용": a line that is only a heading naming the claimed
    item, when the first line under it starts with a 약관's name (a heading alone is no sentence's
    word, so the labels that need a colon elsewhere count here); prose under it is left to the
    search for a claim named in the letter's prose."""
    m = _NUMBERED_HEADING.match(lines[i]) or _BRACKET_HEADING.match(lines[i])
    if m is None or (m.groupdict().get("rest") or "").strip() or field_key(m.group("head")) != "claim_item":
        return None, ""
    under = next((line.strip() for line in lines[i + 1 : i + 4] if line.strip()), "")
    return ("claim_item", under) if _ITEM_NAMED.match(under) and not _is_field(under) else (None, "")


def _is_field(line: str) -> bool:
    m = _FIELD.match(line)
    return bool(m and field_key(m.group("label")))


def _item_name(value: str) -> str:
    """"벌금 특별약관 (보험가입금액 2,000만원)" -> "벌금 특별약관"; "골절발생위로금(II) 특별약관
    1,000,000원" -> "골절발생위로금(II) 특별약관"; "신주말교통 상해위험 특별약관 사망보험금 (보험
    가입금액" -> the name up to its 특별약관/특약 and a parenthesis of the name's own ("(동승자 제외)",
    no figure in it)."""
    named = _ITEM_NAMED.match(value)
    if named:
        return " ".join(named.group(1).split())
    value = value.split(" : ")[0].split(":")[0] if "특별약관" in value.split(":")[0] else value
    value = _NOT_NAME_PAREN.sub("", value)
    value = re.sub(r"\s+[\d,]+\s*원.*$", "", value)
    return " ".join(value.split())


# what was bought, not a coverage: a count, a time or a sum in a currency outside parentheses ("호텔 1실(00:40
# 입실 …) 1,950,000동"; a name's own "(연간1회한)" is none)
_SPENT = re.compile(r"\d+\s*(?:실|박|매|회|건|개)|\d{1,2}:\d{2}|[\d,]{4,}\s*(?:원|동|달러|엔|위안|유로|바트)|USD|EUR|JPY")

# a listed part that is only an amount: "가입금액 20만원", "1사고당 2,000만원 한도"
_AMOUNT_ONLY = re.compile(r"^\s*(?:(?:보험)?가입금액|보상한도|한도|1사고당|자기부담금)?\s*[\d,]+\s*(?:백|천|만|억)*\s*원")

# a parenthesis that is no part of a name: an amount, a number or a date ("(청구번호 L2025-…)",
# "(앞차 수리비 2,870,000원)", "(가입금액 …" cut off), not a qualifier ("(7일이상)", "(연간1회한)")
_NOT_NAME_PAREN = re.compile(r"\s*\((?=[^()]*(?:원|번호|금액|\d{4}))[^()]*(?:\)|$)")


def _top_level_parts(text: str) -> list[str]:
    """``text`` split at each comma outside parentheses: "대물배상(수리비 2,870,000원), 자기차량손해" -> two."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0 and text[i + 1 : i + 2].isspace():
            parts.append(text[start:i])
            start = i + 1
    return [p.strip() for p in [*parts, text[start:]] if p.strip()]


# quotation marks a notice opens a quoted clause with, and their closing pairs
_OPENS, _CLOSES = "「『“", "」』”"


def _sections(lines: list[str]) -> list[_Section]:
    """The notice in sections, each under its heading; a line inside a quotation still open (a
    clause quoted over several lines, its own "[…]" box title or "1." item among them) heads none."""
    sections = [_Section(None)]
    quoting = 0
    for line in lines:
        m = None if quoting > 0 else _BRACKET_HEADING.match(line) or _NUMBERED_HEADING.match(line)
        for form in (_COLON_HEADING, _BARE_HEADING):
            if m is None and quoting <= 0 and (c := form.match(line)) and (_is_reason_heading(c.group("head")) or _is_clause_heading(c.group("head"))):
                m = c
        quoting = max(0, quoting + sum(line.count(ch) for ch in _OPENS) - sum(line.count(ch) for ch in _CLOSES))
        if m:
            sections.append(_Section(" ".join(m.group("head").split())))
            rest = m.groupdict().get("rest")
            if rest:
                sections[-1].lines.append(rest)
            continue
        if line.strip():
            sections[-1].lines.append(line)
        elif sections[-1].lines:
            sections[-1].lines.append("")  # a paragraph break inside a section
    return sections


# headings of the section that gives the insurer's reasoning, in a notice's own words (general Korean
# of claim letters: the review's content, findings or opinion; "심사결과" states the decision, not why)
REASON_HEADINGS = ("판단", "판단내용", "판단이유", "검토결과", "검토내용", "검토의견", "심사내용", "심사의견", "거절이유")


def _is_reason_heading(head: str) -> bool:
    """"부지급 사유", "지급하지 않는 사유"; also "부지급 근거" / "거절 이유": a ground or reason
    headed with a word of refusal (a heading "관련 약관" or "근거 조항" alone lists clauses)."""
    head = "".join(head.split())  # "사    유", spaced out to align a form's colons
    if any(w in head for w in ("지연", "연장", "통지")):
        return False
    if "사유" in head or head in REASON_HEADINGS:
        return True
    return any(w in head for w in ("근거", "이유")) and any(w in head for w in ("부지급", "거절", "불가", "면책", "지급하지"))


def _is_review_heading(head: str | None) -> bool:
    """A heading over the insurer's review ("검토 내용", "판단"), not over its reasons ("부지급 사유")."""
    squashed = "".join((head or "").split())
    return squashed in REASON_HEADINGS and not any(w in squashed for w in ("사유", "이유"))


def _is_clause_heading(head: str) -> bool:
    head = "".join(head.split())
    return any(w in head for w in ("관련약관", "근거", "적용약관", "조항"))


def _reasons(sections: list[_Section], clause_refs: list[ClauseRef]) -> list[DenialReason]:
    found: list[tuple[str, str | None, list[ClauseRef]]] = []
    for s in sections:
        body = _strip_boilerplate(s.lines) if s.heading else ""
        # a reason heading, or one that gives reasons ("결정 및 그 이유") over a body that refuses
        if body and (_is_reason_heading(s.heading) or ("이유" in s.heading and DENIAL_CUE.search(body))):  # type: ignore[arg-type]
            found.append((body, s.heading, _policy_refs(body)))
    if any(DENIAL_CUE.search(b) for b, _, _ in found):
        # a review of the facts ("검토 내용") that neither refuses nor cites, beside a section that refuses, is no reason
        found = [f for f in found if DENIAL_CUE.search(f[0]) or f[2] or not _is_review_heading(f[1])]
    if not found:  # no reason heading: the prose that states a denial, one reason per section
        for s in sections:
            if s.heading and _is_clause_heading(s.heading):
                continue
            stated: list[str] = []
            bodies = []
            for para in _paragraphs(s.lines):
                fields = [i for i, line in enumerate(para) if _is_field(line)]
                bodies.append(_strip_boilerplate(para[fields[-1] + 1 :] if fields else para))  # a letter's header fields are not its reason
            for i, body in enumerate(bodies):
                if body and DENIAL_CUE.search(body) and re.search(r"(?:다|요)[.]?(?:\s|$)", body):  # a sentence, not a title
                    # "따라서 … 지급하지 않습니다" alone: the paragraph before it, citing the clause, says why
                    if _CONCLUSION.match(body) and i > 0 and bodies[i - 1] not in stated and _policy_refs(bodies[i - 1]):
                        stated.append(bodies[i - 1])
                    stated.append(body)
            if stated:
                body = " ".join(stated)
                found.append((body, s.heading, _policy_refs(body)))
    found = [part for f in found for part in _grounds(*f)]
    # a reason's own citations, with what "관련 약관" lists: in a letter of one reason, all of it; else
    # the parts of the same articles ("제2조 제1항, 제3항" there, "제2조 제1항" in the reason); a reason
    # that cites nothing gets everything listed there
    def listed(refs: list[ClauseRef]) -> list[ClauseRef]:
        if not refs:
            return clause_refs
        same = [r for r in clause_refs if len(found) == 1 or any(r.article == x.article for x in refs)]
        # "제1조 제2항 제3호" in the reason is the one "관련 약관" names ("…특별약관 제1조 제2항 제3호")
        # (and "제3조 제2호" is the one listed with its title, "제3조(보험금을 지급하지 않는 사유) 제2호")
        named = [next((r for r in same if r.label == x.label and ((r.yakgwan and not x.yakgwan) or (r.title and not x.title and r.yakgwan == x.yakgwan))), x)
                 for x in refs]
        return [*named, *(r for r in same if all(r.label != x.label for x in named))]

    return [DenialReason(text, head, _unique(listed(refs))) for text, head, refs in found]


# a sentence that adds a second ground to the first: "또한 같은 특별약관 제2조 제3호는 …"
_FURTHER = re.compile(r"(?<=[.다])\s+(?=(?:또한|아울러|이와\s*별도로|한편)\s)")


def _grounds(body: str, head: str | None, refs: list[ClauseRef]) -> list[tuple[str, str | None, list[ClauseRef]]]:
    """One reason's text as the separate grounds it states: split before "또한 …" when the text
    before cites a clause and the sentence after both cites one of its own and refuses or
    excludes by it ("또한 같은 특별약관 제2조 제3호는 … 보상하지 않는 사유로 정하고 있는데"); a
    sentence that only adds to the reading of the ground before it ("또한 … 친족피보험자(제1조
    제13호 나목)로 볼 수도 없습니다") stays with it. A closing "따라서 …" stays with the last ground."""
    parts = _FURTHER.split(body)
    if len(parts) < 2:
        return [(body, head, refs)]
    # each added ground cites and refuses in its own first sentence (a closing "(관련 약관: …)" is no ground)
    firsts = [re.split(r"(?<=다\.)\s", p, maxsplit=1)[0] for p in parts[1:]]
    if not _policy_refs(parts[0]) or not all(_policy_refs(f) and DENIAL_CUE.search(f) for f in firsts):
        return [(body, head, refs)]
    out, pos = [], 0
    for p in parts:  # each ground keeps the citations read in the whole body ("같은 특별약관" named before it)
        at = body.index(p, pos)
        out.append((p, head, [r for r in refs if at <= r.start < at + len(p)]))
        pos = at + len(p)
    return out


def _unique(refs: list[ClauseRef]) -> tuple[ClauseRef, ...]:
    """Each cited clause once (a notice often repeats it under "관련 약관"), first mention kept."""
    seen: dict[tuple[str | None, str], ClauseRef] = {}
    for r in refs:
        seen.setdefault((r.yakgwan, r.label), r)
    return tuple(seen.values())


def _paragraphs(lines: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for line in lines:
        if line == "":
            out.append([])
        else:
            out[-1].append(line)
    return [p for p in out if p]


def _strip_boilerplate(lines: list[str]) -> str:
    kept = [ln for ln in lines if ln and not BOILERPLATE.search(ln) and not ln.lstrip().startswith("※")]
    return " ".join(" ".join(kept).split())
