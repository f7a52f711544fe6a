"""A clause's numeric conditions against the figures a notice states.

Clauses decide many claims by a figure: 42일 이상 치료를 요하는 진단, 상해급수 1급부터 3급까지,
혈중알코올농도 0.03% 이상, 날부터 30일 이내. A notice states the facts in figures (치료기간 3주,
부상등급 5급) and often restates the clause's threshold. Two things can go wrong, and both are
arithmetic, not judgement:
- the notice restates the threshold with another figure than the clause prints (``misstated``);
- the notice's own figures meet the clause's condition, and the denial says they do not (or an
  exclusion's condition is not met by them, and it is applied anyway).
The arithmetic is judged only where the notice relies on it: a sentence of the notice holds a
figure of that count together with a word of comparison (``COMPARISON``: 미치지 못, 미달, 지난,
초과 …); a letter that mentions a 10주 diagnosis while denying on another ground says nothing about
the threshold. A threshold the notice restates as the clause prints it (with or without its
comparator) is not a fact, and facts that disagree with each other (one meets the condition,
another does not: two diagnoses, two periods) leave the arithmetic open — unless the figures the
notice quotes from a document ("향후 6주(42일)간 치료를 요함") agree among themselves: the
document's own words decide over the insurer's count.

A condition is a figure with a unit (일, 주 as 7일, 개월, 년 as 12개월, 시간, 급, %, 세, 회) and a
comparator (이상, 이하, 이내, 미만, 초과, 넘는, a range "N~M", "N부터 M까지", or a list "1급, 2급 또는
3급", which only its own values meet; or a template's alternatives "만 21/24/26세 이상", printed in
ascending order, each a condition of its own: a contract takes one of them); a figure may be
followed by a parenthesis before its comparator ("42일(피해자 1인을 기준으로 합니다) 이상"). A
figure of the notice refers to a condition of the clause when it has the same unit and the two
share a content term within ``CONTEXT`` characters either side (치료, 진단, 상해, 입원 …); dates
("2024년 12월 3일"), article numbers (제2조, 제3항) and amounts of money are not figures here.
What the comparison means depends on the clause: for a 지급사유 (coverage) a condition met is a
ground to pay, for an exclusion a condition met is a ground to refuse.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from yakgwan.appeal.quotes import QUOTED
from yakgwan.text.dates import full_dates
from yakgwan.text.particles import josa
from yakgwan.text.tokenizer import Tokenizer

CONTEXT = 24  # characters either side of a figure whose terms say what it counts
LEAD = 10  # characters before a figure that name what it counts ("치료기간 28일", "사고일부터 180일")
# words by which a sentence compares a figure with a threshold, falling short of it or passing it
# (general Korean, as claim letters word it)
COMPARISON = ("미치지 못", "못 미", "미달", "부족", "이르지 못", "넘지 못", "넘지 않", "초과", "넘어", "넘은", "넘는",
              "지나", "지난", "경과", "벗어", "충족하지", "해당하지")
# a figure counted from a point the sentence has just named (general Korean: "그로부터", "그 뒤",
# "이후"), not from where the clause's condition counts
_ANAPHORIC = re.compile(r"그로부터|그\s*(?:후|뒤|이후)로?|그때부터")
_UNITS = {"일": ("일", 1.0), "주": ("일", 7.0), "개월": ("개월", 1.0), "년": ("개월", 12.0), "시간": ("시간", 1.0),
          "급": ("급", 1.0), "%": ("%", 1.0), "세": ("세", 1.0), "회": ("회", 1.0),
          # lengths (a scar's, a wound's), written in letters or as the ㎝/㎜ signs
          "cm": ("cm", 1.0), "㎝": ("cm", 1.0), "센티미터": ("cm", 1.0), "mm": ("cm", 0.1), "㎜": ("cm", 0.1)}
_NUM = r"(\d+(?:\.\d+)?)"
_UNIT = r"(일|주|개월|년|시간|급|%|세|회|cm|㎝|센티미터|mm|㎜)"
_PAREN = r"(?:\s*\([^()\n]{0,40}\))?"
_RANGE = re.compile(rf"(?<![\d제.]){_NUM}\s*{_UNIT}?\s*(?:~|∼|-|부터|에서)\s*(?:제\s*)?{_NUM}\s*{_UNIT}(?:\s*까지)?")
# alternatives of a template, one of which a contract takes: "만 21/24/26/30/35/43/48세 이상"
_ALTERNATIVES = re.compile(rf"(?<![\d제.]){_NUM}(?:\s*/+\s*{_NUM})+\s*{_UNIT}{_PAREN}\s*(이상|이하|이내|미만|초과)?")
_ALT_UNIT = 3  # the group of _ALTERNATIVES that holds the unit (the comparator follows it)
_LIST = re.compile(rf"(?<![\d제.]){_NUM}\s*{_UNIT}(?:\s*(?:,|또는|및|이나|혹은)\s*{_NUM}\s*{_UNIT})+")
_PAIR = re.compile(rf"{_NUM}\s*{_UNIT}")
_BOUND = re.compile(rf"(?<![\d제.]){_NUM}\s*{_UNIT}{_PAREN}\s*(이상|이하|이내|미만|초과|넘는|넘게|넘어|까지|내(?![가-힣])|안(?=에|\s|$))?")
# in a clause, a count that has to have passed is a lower bound: "치료가 종료된 날부터 180일이 경과하여 …
# 촬영을 받았을 때에는" (general Korean of 약관); a notice's "14개월이 지나" is a fact, not a condition
_ELAPSED = re.compile(rf"(?<![\d제.]){_NUM}\s*{_UNIT}{_PAREN}\s*[이가]\s*(?:경과|지난|지나)")
# a count the notice states between two dates it gives: "종료일(2025.01.21)부터 촬영일(2025.08.12)까지는 171일"
SPAN_GAP = 16  # characters at most between "…까지" and the count that follows it
# a 약관's name with figures in its parenthesis: "대인형사합의실손비Ⅲ(중대법규위반,42일미만,운전자용) 특별약관"
# names a 특약; its "42일미만" is no threshold the notice states
_NAME_PAREN = re.compile(r"\([^()\n]{1,40}\)\s*(?:추가)?(?:특별약관|특약)")
# not counts: dates, article numbers, money
_DATE = re.compile(r"\d{2,4}\s*[년.\-/]\s*\d{1,2}\s*[월.\-/]\s*\d{1,2}\s*일?|\d{1,2}\s*월\s*\d{1,2}\s*일|\d{4}\s*년|\d{2}\s*년\s*\d{1,2}\s*월")


@dataclass(frozen=True)
class Condition:
    """A numeric condition: the interval of values that meet it (``low``/``high``, each
    inclusive or not), its unit (normalised: 주 as 일, 년 as 개월), the words as printed and
    where they are in the text searched."""

    low: float
    high: float
    low_in: bool
    high_in: bool
    unit: str
    text: str
    start: int
    end: int
    bounded: bool  # printed with a comparator, as a range or as a list (a bare figure is a fact)
    values: frozenset[float] | None = None  # a list ("1급, 2급 또는 3급"): exactly these values meet it

    def meets(self, value: float) -> bool:
        if self.values is not None:
            return value in self.values
        above = value > self.low or (self.low_in and value == self.low)
        below = value < self.high or (self.high_in and value == self.high)
        return above and below

    @property
    def bounds(self) -> set[float]:
        if self.values is not None:
            return set(self.values)
        return {b for b in (self.low, self.high) if math.isfinite(b)}


def _value(num: str, unit: str) -> tuple[float, str]:
    name, scale = _UNITS[unit]
    return float(num) * scale, name


def _interval(value: float, comparator: str | None) -> tuple[float, float, bool, bool]:
    inf = math.inf
    if comparator == "이상":
        return value, inf, True, False
    if comparator in ("초과", "넘는", "넘게", "넘어"):
        return value, inf, False, False
    if comparator in ("이하", "이내", "까지", "내", "안"):  # "12시간 안에" = within 12 hours
        return -inf, value, False, True
    if comparator == "미만":
        return -inf, value, False, False
    return value, value, True, True


def conditions(text: str, clause: bool = False) -> list[Condition]:
    """The figures of ``text`` with their units: ranges, bounds and bare figures (``bounded``
    False), dates and article numbers left out; in a ``clause``, a count that has to have passed
    ("180일이 경과하여") is a lower bound."""
    out: list[Condition] = []
    alternatives = []
    for m in _ALTERNATIVES.finditer(text):  # printed in ascending order, unlike a date ("2025/1/15")
        nums = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", m.group(0)[: m.start(_ALT_UNIT) - m.start()])]
        if all(a < b for a, b in zip(nums, nums[1:])):
            alternatives.append((m, nums))
    blocked = [(m.start(), m.end()) for m, _ in alternatives]
    blocked += [(m.start(), m.end()) for m in _DATE.finditer(text) if not any(m.start() < e and s < m.end() for s, e in blocked)]

    def free(s: int, e: int) -> bool:
        return not any(s < be and bs < e for bs, be in blocked)

    for m, nums in alternatives:  # each alternative a condition of its own, with the comparator they share
        for num in nums:
            value, name = _value(str(num), m.group(_ALT_UNIT))
            low, high, low_in, high_in = _interval(value, m.group(_ALT_UNIT + 1))
            out.append(Condition(low, high, low_in, high_in, name, m.group(0).rstrip(), m.start(), m.end(), m.group(_ALT_UNIT + 1) is not None))
    for m in _LIST.finditer(text):
        pairs = [_value(n, u) for n, u in _PAIR.findall(m.group(0))]
        if len({u for _, u in pairs}) != 1 or not free(m.start(), m.end()):
            continue
        vals = frozenset(v for v, _ in pairs)
        out.append(Condition(min(vals), max(vals), True, True, pairs[0][1], m.group(0), m.start(), m.end(), True, vals))
        blocked.append((m.start(), m.end()))
    for m in _RANGE.finditer(text):
        if not free(m.start(), m.end()):
            continue
        unit = m.group(2) or m.group(4)
        if m.group(2) and _UNITS[m.group(2)][0] != _UNITS[m.group(4)][0]:
            continue
        lo, name = _value(m.group(1), unit)
        hi, _ = _value(m.group(3), m.group(4))
        if lo > hi:
            continue
        out.append(Condition(lo, hi, True, True, name, m.group(0), m.start(), m.end(), True))
        blocked.append((m.start(), m.end()))
    for m in _ELAPSED.finditer(text) if clause else ():
        if free(m.start(), m.end()):
            value, name = _value(m.group(1), m.group(2))
            out.append(Condition(value, math.inf, True, False, name, m.group(0), m.start(), m.end(), True))
            blocked.append((m.start(), m.end()))
    for m in _BOUND.finditer(text):
        if not free(m.start(), m.end()) or re.match(r"\s*(?:조|항|호)", text[m.end(2):]):
            continue
        value, name = _value(m.group(1), m.group(2))
        low, high, low_in, high_in = _interval(value, m.group(3))
        printed = m.group(0).rstrip()
        out.append(Condition(low, high, low_in, high_in, name, printed, m.start(), m.start() + len(printed), m.group(3) is not None))
    return sorted(out, key=lambda c: c.start)


def _around(text: str, c: Condition, tokenizer: Tokenizer, before: int = CONTEXT, after: int = CONTEXT) -> set[str]:
    near = text[max(0, c.start - before) : c.start] + " " + text[c.end : c.end + after]
    return {t for t in tokenizer.tokenize(near) if len(t) > 1 and not t.isdigit()}


@dataclass(frozen=True)
class FigureCheck:
    """One comparison of the notice's figure with the clause's condition(s) on the same count:
    ``misstated`` (the notice's threshold is not the clause's), or the fact ``met`` the condition
    or not; ``shared`` are the terms that tie the two together."""

    notice: Condition
    clause: tuple[Condition, ...]
    misstated: bool
    met: bool | None  # None for a restated threshold
    shared: tuple[str, ...]
    quoted: bool = False  # the figure stands inside quotation marks: a document's own words the notice quotes


def _relied_on(text: str, f: Condition) -> bool:
    """Whether the sentence of ``text`` holding the figure ``f`` compares it (``COMPARISON``)."""
    s = max(text.rfind(end, 0, f.start) for end in (".", "?", "!", "\n\n")) + 1
    e = min((i for i in (text.find(end, f.end) for end in (". ", ".\n", "?", "!", "\n\n")) if i >= 0), default=len(text))
    sentence = " ".join(text[s:e].split())
    return any(w in sentence for w in COMPARISON)


def check(notice_text: str, clause_text: str, tokenizer: Tokenizer) -> list[FigureCheck]:
    """The notice's figures that refer to one of the clause's bounded conditions (same unit, a
    shared term nearby), each compared with every such condition; facts only where a sentence of
    the notice compares a figure of that count with a threshold."""
    rules = [c for c in conditions(clause_text, clause=True) if c.bounded]
    if not rules:
        return []
    rule_terms = [_around(clause_text, c, tokenizer) for c in rules]
    rule_lead = [_around(clause_text, c, tokenizer, LEAD, 0) for c in rules]
    out = []
    relied = False
    seen: set[tuple[str, float, float, bool]] = set()
    names = [(m.start(), m.end()) for m in _NAME_PAREN.finditer(notice_text)]
    for f in map(lambda c: recounted(notice_text, c), conditions(notice_text)):
        if any(s <= f.start < e for s, e in names):
            continue  # a figure of a 특약's name
        if _ANAPHORIC.search(notice_text[max(0, f.start - 8) : f.start]):
            continue  # "그로부터 9일이 지난": counted from a point the notice names, not the clause's count
        terms = _around(notice_text, f, tokenizer)
        lead = _around(notice_text, f, tokenizer, LEAD, 0)
        scored = [(len(lead & rl), len(terms & rt), r, tuple(sorted(terms & rt))) for r, rt, rl in zip(rules, rule_terms, rule_lead) if r.unit == f.unit and terms & rt]
        if not scored:
            continue
        # the condition(s) the figure is about: those whose leading words it shares most, then most
        # terms ("치료기간 42일 이상" for a 치료기간, not "사고일부터 180일 이내" in the same sentence)
        best = max((a, b) for a, b, _, _ in scored)
        related = [(r, ts) for a, b, r, ts in scored if (a, b) == best]
        relied = relied or _relied_on(notice_text, f)
        clause = tuple(r for r, _ in related)
        printed = {b for r in clause for b in r.bounds}
        written = re.sub(r"\s+", "", f.text.split("(")[0])
        if not f.bounded and any(re.sub(r"\s+", "", r.text).startswith(written) for r in clause):
            continue  # "28일로 42일에 미치지 못하므로": the threshold as the clause prints it, not a fact
        if not f.bounded and _partition(clause):
            continue  # "90일 이하 / 90일 초과": the clause's rows for either side; the fact picks a row, meets no condition
        key = (f.unit, f.low, f.high, f.bounded)
        if key in seen:  # "3주(21일)" states one fact twice
            continue
        seen.add(key)
        shared = tuple(sorted({t for _, ts in related for t in ts}))
        if f.bounded:
            if f.values is not None:  # a list restated: the clause's own list, or not
                wrong = all(r.values != f.values for r in clause)
            else:
                wrong = not (f.bounds & printed)
            out.append(FigureCheck(f, clause, misstated=wrong, met=None, shared=shared))
        else:
            out.append(FigureCheck(f, clause, misstated=False, met=any(r.meets(f.low) for r in clause), shared=shared,
                                   quoted=_in_quotes(notice_text, f.start)))
    if not relied:
        out = [fc for fc in out if fc.misstated]
    # a restated threshold that is the clause's own says nothing; facts that disagree (one meets
    # the condition, another does not: two diagnoses, two periods) leave the arithmetic open,
    # unless the ones the notice quotes from a document agree: the document's own words decide
    # over the insurer's reading of them
    facts = {fc.met for fc in out if fc.met is not None}
    quoted = {fc.met for fc in out if fc.met is not None and fc.quoted}
    if len(facts) > 1 and len(quoted) == 1:
        return [fc for fc in out if fc.misstated or (fc.met is not None and fc.quoted)]
    return [fc for fc in out if fc.misstated or (fc.met is not None and len(facts) == 1)]


def recounted(text: str, f: Condition) -> Condition:
    """A count of days ``f`` that the notice states right after two dates it gives ("A(2025.01.21)부터
    B(2025.08.12)까지는 171일"), recounted from those dates when the two differ by more than a day
    (counting the first day or not): the notice's own dates decide over its count. Any other
    figure as it is (pure)."""
    if f.unit != "일" or f.bounded:
        return f
    s = max(text.rfind(end, 0, f.start) for end in (". ", ".\n", "?", "!", "\n\n")) + 1
    dates = list(full_dates(text, s, f.start))
    if len(dates) < 2:
        return f
    (a, first), (b, last) = dates[-2], dates[-1]
    if not re.search(r"부터|에서", text[a.end() : b.start()]) or "까지" not in text[b.end() : f.start] or f.start - b.end() > SPAN_GAP:
        return f
    days = (last - first).days
    if days < 0 or abs(days - f.low) <= 1:
        return f
    return replace(f, low=float(days), high=float(days), text=f"{' '.join(f.text.split())}(통지서의 날짜로는 {days}일)")


def _partition(clause: tuple[Condition, ...]) -> bool:
    """Whether two of the clause's conditions on one count meet end to end ("90일 이하" and "90일
    초과"): a table's rows, every fact in one of them."""
    bounded = [c for c in clause if c.bounded]
    return any(a.unit == b.unit and a.high == b.low and a.high not in (math.inf, -math.inf) for a in bounded for b in bounded if a is not b)


def _in_quotes(text: str, i: int) -> bool:
    """Whether position ``i`` of ``text`` lies inside a pair of quotation marks on its line."""
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\n", i)
    return any(m.start() < i - start < m.end() for m in QUOTED.finditer(text[start : end if end >= 0 else len(text)]))


def describe(fc: FigureCheck) -> str:
    """The comparison in words: the notice's figure, the clause's condition(s)."""
    printed = ", ".join(f"‘{' '.join(r.text.split())}’" for r in fc.clause)
    said = f"‘{' '.join(fc.notice.text.split())}’"
    if fc.misstated:
        return f"통지서가 적은 기준은 {said}, 약관이 정한 기준은 {printed}입니다"
    return f"통지서가 적은 {josa(said, '은')} 약관의 조건 {josa(printed, '을')} {'충족합니다' if fc.met else '충족하지 않습니다'}"
