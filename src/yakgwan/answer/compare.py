"""Questions about two named things and one quantity, answered by rule from two quoted sentences:
a choice ("김하늘 대표와 박민수 COO 중 누가 더 높은 연봉을 받나요?"), a difference ("제주 힐링 비수기와
성수기 가격 차이는 얼마인가요?"), a sum ("A와 B의 연봉 합계는?", "A에 B를 추가하면 총 가격은?") and a
percentage change ("연휴 가격은 비수기 대비 몇 % 높은가요?").

One sentence cannot answer such a question, so :func:`~yakgwan.answer.ko_rules.holding.quoted_point`
never does, and a small model often repeats the question or gets the arithmetic wrong. Here each
side is looked up on its own: a shown sentence that, read with its heading and its document's
title (a table row with its header row), holds the side's name (its proper nouns, else its
nouns; a side without a proper noun shares the other's: "제주 힐링 비수기와 성수기"), every noun of
what is asked (연봉) and a number; a side that names a year must state that year. The number is
the one in the table column that names what is asked, else the first one after that noun, else
the first one. The answer quotes and cites both sentences and adds one computed statement, whose
numbers are those of the two cited sentences; it is computed only when both numbers have the
same unit (a choice then quotes both and compares nothing). Questions about dates (시기, 날짜)
are left to the model. Both are rules of :mod:`yakgwan.answer.ko_rules`: ``compare`` (the
answer by rule) and ``side_search`` (one search per side); the words they read are in its lexicon.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.answer.anchors import Terms, bare_term, normalise
from yakgwan.answer.grounding.cited import all_in, char_bigrams
from yakgwan.answer.grounding.quotes import quoted_text
from yakgwan.answer.ko_rules.holding import dated
from yakgwan.answer.ko_rules.lexicon import (CHOICE, DATE, DIFFERENCES, DIRECTIONS, IMPLIED, MORE, OPERATION, RATIO, SUMS, TITLE, UNITS,
                                             WHEN)
from yakgwan.answer.ko_rules.point import ALL
from yakgwan.answer.ko_rules.ruleset import RuleSet
from yakgwan.answer.passages import header_row, labels_only, row_cells
from yakgwan.answer.records import Citation, Generated, Note, Sentence
from yakgwan.messages import msg

_ADDED = re.compile(r"\+\s*\d+(?:,\d{3})*(?:\.\d+)?")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_VALUE = re.compile(r"(\d+(?:,\d{3})*(?:\.\d+)?)\s*([^\s\d.,|)(]*)")


@dataclass(frozen=True)
class Side:
    """One side: its name as the question gives it, the sentence stating its quantity, and that
    quantity (in the unit :data:`UNITS` compares it in)."""

    name: str
    sentence: Sentence
    value: float
    shown: str  # the number as written, with its unit
    unit: str

    @property
    def written_unit(self) -> str:
        return re.sub(r"^[\d,.]+", "", self.shown)


@dataclass(frozen=True)
class Asked:
    """What a question about two named things asks: the operation (``choice``, ``difference``,
    ``sum``, ``ratio``), the two sides as written, the words naming the quantity, and for a
    choice or a ratio the direction (+1: the larger number wins) and the verdict word."""

    op: str
    a: str
    b: str
    rest: str
    direction: int = 0
    verdict: str = ""


def _direction(adjective: str) -> tuple[int, str] | None:
    """(direction, verdict word) of the comparison an adjective starts with ("높은가요" → +1, 높습니다)."""
    for pattern, direction, verdict in DIRECTIONS:
        if re.match(pattern, adjective):
            return direction, verdict
    return None


def choice(question: str) -> tuple[str, str, str, int, str] | None:
    """(side A, side B, what is asked, direction, verdict word) of a choice between two things by
    a quantity; None for any other question."""
    m = CHOICE.match(question)
    more = MORE.search(m.group("rest")) if m else None
    if m is None or more is None:
        return None
    if (d := _direction(more.group(1))) is None:
        return None
    return m.group("a").strip(), m.group("b").strip(), m.group("rest").strip(), d[0], d[1]


def two_sided(question: str) -> Asked | None:
    """What ``question`` asks of two named things (:class:`Asked`), or None when it is no choice,
    difference, sum or percentage change of one quantity, or asks about dates."""
    asked: Asked | None = None
    if (c := choice(question)) is not None:
        asked = Asked("choice", c[0], c[1], c[2], c[3], c[4])
    elif (m := next((m for p in DIFFERENCES if (m := p.match(question))), None)) is not None:
        asked = Asked("difference", m.group("a").strip(), m.group("b").strip(), m.group("rest").strip())
    elif (m := next((m for p in SUMS if (m := p.match(question))), None)) is not None:
        asked = Asked("sum", m.group("a").strip(), m.group("b").strip(), m.group("rest").strip())
    elif (m := RATIO.match(question)) is not None and (d := _direction(m.group("adj"))) is not None:
        words = m.group("a").split()  # "제주 힐링 연휴 가격": the side, then what is asked
        a, rest = (" ".join(words[:-1]), words[-1]) if len(words) > 1 else (words[0], "")
        asked = Asked("ratio", a, m.group("b").strip(), rest, d[0], d[1])
    if asked is None or WHEN.search(asked.rest) or not asked.a or not asked.b:
        return None
    return asked


def value_of(sentence: Sentence, nouns: list[str], additions: bool = False) -> tuple[float, str, str] | None:
    """The number ``sentence`` states for ``nouns`` (value, as written, unit): in a table row,
    the cell under the header that names one of them, else the first number after its label
    cell; else the first number after one of them
    in the sentence; else its first number. Dates are not numbers here ("계약 기간: 2024년 5월 1일 ~
    2025년 4월 30일 (12개월)" states 12개월), and a value is put in the unit :data:`UNITS` compares
    it in ("2년" is 24 개월, "20억원" 2,000,000,000 원). A number written with "+" is what something
    adds ("객실 추가 옵션: +350,000원"), taken only with ``additions``. None when it has no number."""
    text, at = sentence.text, 0
    if (head := header_row(sentence)) is not None:
        cells, names = row_cells(text), row_cells(head)
        if len(cells) == len(names):
            column = next((i for i, n in enumerate(names) if any(normalise(w) in normalise(n) for w in nouns)), None)
            if column is not None:
                text = cells[column]
            elif len(cells) > 1:
                text = " | ".join(cells[1:])  # the first cell labels the row ("유아 (만 2세 미만)")
    else:
        found = [i for w in nouns if (i := text.find(w)) >= 0]
        at = min(found) if found else 0
    text = DATE.sub(lambda d: " " * len(d.group(0)), text)  # dates blanked, positions kept
    if not additions:  # "+350,000원" is what an option adds, not what the thing costs
        text = _ADDED.sub(lambda d: " " * len(d.group(0)), text)
    m = _VALUE.search(text, at) or _VALUE.search(text)
    if m is None:
        return None
    unit, size = UNITS.get(m.group(2), (m.group(2), 1))
    return float(m.group(1).replace(",", "")) * size, f"{m.group(1)}{m.group(2)}", unit


def find_side(
    name: str, asked: str, nouns: list[str], by_number: dict[str, Sentence], terms: Terms, question: str = "", shared: str = "",
    own_year: bool = False, whole: bool = False, additions: bool = False,
) -> Side | None:
    """The shown sentence that states ``nouns`` of the side called ``name`` with a number, and
    that number; of several, the one sharing most character bigrams with the side and what is
    asked (ties: a sentence before a table row, then the first shown). ``shared``: words the
    side takes from the other side when it has no proper noun of its own. ``own_year``: the
    sides differ by the year they name ("2020년과 2024년"), so a side is stated only by a sentence
    or history row of its year. ``whole``: the sides share their proper nouns and differ by the
    rest ("제주 힐링 비수기와 준성수기"), so every word of the name as written must be there (the
    tagger reads 준성수기 as 성수기), but a year or a title (대표). ``additions``: side B of a sum may
    be what an option adds ("+800,000원")."""
    anchors = terms(name)
    # a name the tagger finds no noun in ("송민지" alone) is looked up as written
    keys = [a.form for a in anchors if a.tag == "NNP"] or [*shared.split(), *(a.form for a in anchors)] or name.split()
    years = _YEAR.findall(name) if own_year else []
    written = [w for w in name.split() if not _YEAR.search(w) and not TITLE.fullmatch(bare_term(w))] if whole else []
    wanted = [normalise(bare_term(w)) for w in keys + written + nouns]
    found = []
    for s in by_number.values():
        if labels_only(s) or ((year := dated(s)) is not None and year not in f"{question} {name} {asked}"):
            continue  # a heading; a history row of another year than the question names
        said = f"{head} {s.text}" if (head := header_row(s)) else s.text
        if years and year not in years and not (any(y in s.text for y in years) and all_in(nouns, [said])):
            continue  # "성과급: 30,000,000원 (2024년 예상)" under 연봉 is no 2024 연봉
        seen = normalise(" ".join([said, s.chunk.heading(), s.chunk.title]))
        if all(w in seen for w in wanted) and (value := value_of(s, nouns, additions)) is not None:
            found.append((s, value))
    if not found:
        return None
    target = char_bigrams(f"{name} {asked}")
    s, (value, shown, unit) = max(
        found, key=lambda f: (len(target & char_bigrams(f[0].text)), header_row(f[0]) is None, -int(f[0].number) if f[0].number.isdigit() else 0)
    )
    return Side(name, s, value, shown, unit)


def _shares(a: str, b: str, terms: Terms) -> str:
    """The proper nouns side B takes from side A: A's, when A names more than them (the part
    after them is what B stands beside: "제주 힐링 비수기와 성수기") and B has none of its own;
    else none ("권나라와 송민지" are two names)."""
    a_terms, b_terms = terms(a), terms(b)
    names = [x.form for x in a_terms if x.tag == "NNP"]
    if not names or len(names) == len(a_terms) or any(x.tag == "NNP" for x in b_terms):
        return ""
    return " ".join(names)


def _pair(asked: Asked, nouns: list[str], by_number: dict[str, Sentence], terms: Terms, question: str) -> tuple[Side, Side] | None:
    """Both sides, each from its own sentence; None when either is missing."""
    own = {*_YEAR.findall(asked.a)} != {*_YEAR.findall(asked.b)} and all(_YEAR.search(x) for x in (asked.a, asked.b))
    shared = _shares(asked.a, asked.b, terms)
    a = find_side(asked.a, asked.rest, nouns, by_number, terms, question, own_year=own, whole=bool(shared))
    b = find_side(asked.b, asked.rest, nouns, by_number, terms, question, shared=shared, own_year=own, whole=bool(shared), additions=asked.op == "sum")
    return (a, b) if a is not None and b is not None and a.sentence is not b.sentence else None


def asked_nouns(asked: Asked, terms: Terms) -> list[list[str]]:
    """The noun lists to look each side up by, in order: the nouns of what is asked (not the
    sides' own, nor operation words); when there are none, the nouns both sides share ("권나라의
    일본 방문 횟수와 강지훈의 몰디브 방문 횟수"), else the nouns a 비싸/싸 implies, one at a time."""
    sides = {normalise(bare_term(x.form)) for x in terms(f"{asked.a} {asked.b}")}
    nouns = [x.form for x in terms(asked.rest) if not OPERATION.search(x.form) and normalise(bare_term(x.form)) not in sides]
    if nouns:
        return [nouns]
    b_nouns = {normalise(bare_term(x.form)) for x in terms(asked.b) if x.tag != "NNP"}
    common = [x.form for x in terms(asked.a) if x.tag != "NNP" and normalise(bare_term(x.form)) in b_nouns]
    return [common] if common else [[n] for n in IMPLIED.get(asked.verdict, ())]


def side_queries(question: str, terms: Terms, rules: RuleSet = ALL) -> list[str]:
    """One search per side of a question about two named things ("삼성전자 계약 금액", "현대자동차
    계약 금액"): a search for the whole question often finds only one side's passage. None
    when rule ``side_search`` is off."""
    asked = two_sided(question) if rules.on("side_search") else None
    if asked is None:
        return []
    nouns = next(iter(asked_nouns(asked, terms)), [])
    sides = (asked.a, f"{_shares(asked.a, asked.b, terms)} {asked.b}")
    return [" ".join([*side.split(), *(n for n in nouns if n not in side)]) for side in sides]


def _amount(value: float, unit: str) -> str:
    text = f"{value:,.0f}" if abs(value - round(value)) < 1e-9 else f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{text}{unit}"


def statement(asked: Asked, a: Side, b: Side) -> tuple[str | None, Note]:
    """The one computed statement for the two sides (None when their units differ), and a note
    saying how it was computed. Values are stated in the unit both are written in, else in the
    unit they are compared in."""
    if a.unit != b.unit:
        return None, msg("note.units_differ", a=repr(a.unit), b=repr(b.unit))
    if a.written_unit == b.written_unit:
        size = UNITS.get(a.written_unit, (a.written_unit, 1))[1]
        av, bv, unit = a.value / size, b.value / size, a.written_unit
    else:
        av, bv, unit = a.value, b.value, a.unit
    note = msg("note.computed", op=msg(f"note.op.{asked.op}"), a=_amount(av, unit), a_name=a.name, b=_amount(bv, unit), b_name=b.name)
    if asked.op == "difference":
        hi, lo = max(av, bv), min(av, bv)
        return f"차이는 {_amount(hi - lo, unit)}입니다 ({_amount(hi, unit)} − {_amount(lo, unit)}).", note
    if asked.op == "sum":
        return f"합계는 {_amount(av + bv, unit)}입니다 ({_amount(av, unit)} + {_amount(bv, unit)}).", note
    if asked.op == "ratio":
        if bv == 0:
            return None, msg("note.base_zero")
        pct = (av - bv) / bv * 100
        word = asked.verdict if (pct > 0) == (asked.direction > 0) else ("낮습니다" if pct < 0 else "높습니다")
        return (f"{a.name}은(는) {b.name} 대비 약 {abs(pct):.0f}% {word} (({_amount(av, unit)} − {_amount(bv, unit)}) ÷ "
                f"{_amount(bv, unit)} = {pct:+.1f}%)."), note
    if av == bv:
        return f"두 값이 같습니다 ({a.shown}).", note
    win, lose = (a, b) if (av > bv) == (asked.direction > 0) else (b, a)
    return f"{win.name} 쪽이 더 {asked.verdict} ({win.shown} {'>' if win.value > lose.value else '<'} {lose.shown}).", note


def compared(question: str, by_number: dict[str, Sentence], terms: Terms, rules: RuleSet = ALL) -> Generated | None:
    """The answer to a question about two named things and one quantity (:func:`two_sided`):
    each side's sentence quoted and cited, then the choice, difference, sum or percentage change
    computed by rule. None when the question is no such question, a side has no sentence stating
    it, or (except for a choice, whose two quotes still stand) the numbers' units differ, or rule
    ``compare`` is off."""
    asked = two_sided(question) if rules.on("compare") else None
    if asked is None:
        return None
    found = next((pair for nouns in asked_nouns(asked, terms) if (pair := _pair(asked, nouns, by_number, terms, question)) is not None), None)
    if found is None:
        return None
    a, b = found
    said, how = statement(asked, a, b)
    if said is None and asked.op != "choice":
        return None
    parts = [f"{a.name}: {quoted_text(a.sentence)} [1]", f"{b.name}: {quoted_text(b.sentence)} [2]", *([said] if said else [])]
    notes = [msg("note.compared", a_n=a.sentence.number, a=a.shown, a_name=a.name, b_n=b.sentence.number, b=b.shown, b_name=b.name), how]
    claims = " ".join(parts)
    cites = [Citation.of(1, a.sentence.chunk, a.sentence.text), Citation.of(2, b.sentence.chunk, b.sentence.text)]
    return Generated("answered", claims, cites, claims_text=claims, notes=notes, quoted=True, computed=True)
