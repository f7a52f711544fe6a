"""A choice between two named things by a quantity ("김하늘 대표와 박민수 COO 중 누가 더 높은 연봉을
받나요?"), answered by quoting, for each, the one shown sentence that states the quantity, and
comparing the two numbers by rule.

One sentence cannot answer such a question, so :func:`~yakgwan.answer.generate.quoted_point`
never does; a small model often repeats the question instead. Here each side is looked up on its
own: a shown sentence that, read with its heading and its document's title (a table row with its
header row), holds the side's name (its proper nouns, else its nouns), every noun of what is
compared (연봉) and a number. The number compared is the one in the table column that names what
is compared, else the first one after that noun, else the first one. The verdict is stated only
when both numbers have the same unit; it is the answer's one computed statement, and its
numbers are those of the two cited sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.answer.anchors import OPERATION_TERMS, bare_term, normalise
from yakgwan.answer.generate import Generated, Terms, char_bigrams, dated, header_row, quoted_text, row_cells
from yakgwan.answer.passages import labels_only
from yakgwan.answer.records import Citation, Sentence

# "A와 B 중 (누가|어느 것이|…) 더 …": the two sides and what is asked of them
CHOICE = re.compile(r"^\s*(?P<a>\S.*?)(?:와|과|하고|이랑|랑)\s+(?P<b>\S.*?)\s+중(?:에서|에)?\s+(?P<rest>\S.*)$")
# the comparison asked for: the adjective after 더, its direction (+1: the larger number wins) and
# how the verdict says it
DIRECTIONS: tuple[tuple[str, int, str], ...] = (
    ("비싸|비싼", 1, "비쌉니다"), ("높", 1, "높습니다"), ("많", 1, "많습니다"), ("크|큰", 1, "큽니다"), ("길|긴", 1, "깁니다"),
    ("늦", 1, "늦습니다"), ("낮", -1, "낮습니다"), ("적", -1, "적습니다"), ("작", -1, "작습니다"), ("싸|싼", -1, "쌉니다"),
    ("짧", -1, "짧습니다"),
)
# what a comparison names without a noun: the price, by the first of these a side's sentence states
IMPLIED = {"비쌉니다": ("가격", "요금", "금액", "비용"), "쌉니다": ("가격", "요금", "금액", "비용")}
_MORE = re.compile(r"더\s*(" + "|".join(p for p, _, _ in DIRECTIONS) + ")")
_VALUE = re.compile(r"(\d+(?:,\d{3})*(?:\.\d+)?)\s*([^\s\d.,|)(]*)")
# a date is no quantity: "2024년 5월 1일", "2024-2025", "2024-05-01"
_DATE = re.compile(r"(?<![\d,])(?:19|20)\d\d\s*(?:년(?:\s*\d{1,2}\s*월(?:\s*\d{1,2}\s*일)?)?|[-./~]\s*(?:(?:19|20)\d\d|\d{1,2}\s*[-./]\s*\d{1,2}))")
# units compared across spellings: (the unit compared in, its size)
UNITS = {"년": ("개월", 12), "개월": ("개월", 1), "주": ("일", 7), "일": ("일", 1), "억원": ("원", 10**8), "천만원": ("원", 10**7),
         "백만원": ("원", 10**6), "만원": ("원", 10**4), "천원": ("원", 10**3), "원": ("원", 1)}


@dataclass(frozen=True)
class Side:
    """One side of the choice: its name as the question gives it, the sentence stating its
    quantity, and that quantity."""

    name: str
    sentence: Sentence
    value: float
    shown: str  # the number as written, with its unit
    unit: str


def choice(question: str) -> tuple[str, str, str, int, str] | None:
    """(side A, side B, what is asked, direction, verdict word) of a choice between two things by
    a quantity; None for any other question."""
    m = CHOICE.match(question)
    more = _MORE.search(m.group("rest")) if m else None
    if m is None or more is None:
        return None
    for pattern, direction, verdict in DIRECTIONS:
        if re.fullmatch(pattern, more.group(1)):
            return m.group("a").strip(), m.group("b").strip(), m.group("rest").strip(), direction, verdict
    return None


def value_of(sentence: Sentence, nouns: list[str]) -> tuple[float, str, str] | None:
    """The number ``sentence`` states for ``nouns`` (value, as written, unit): in a table row,
    the cell under the header that names one of them; else the first number after one of them
    in the sentence; else its first number. Dates are not numbers here ("계약 기간: 2024년 5월 1일 ~
    2025년 4월 30일 (12개월)" states 12개월), and a value is put in the unit :data:`UNITS` compares
    it in ("2년" is 24 개월, "20억원" 2,000,000,000 원). None when it has no number."""
    text, at = sentence.text, 0
    if (head := header_row(sentence)) is not None:
        cells, names = row_cells(text), row_cells(head)
        if len(cells) == len(names):
            column = next((i for i, n in enumerate(names) if any(normalise(w) in normalise(n) for w in nouns)), None)
            if column is not None:
                text = cells[column]
    else:
        found = [i for w in nouns if (i := text.find(w)) >= 0]
        at = min(found) if found else 0
    text = _DATE.sub(lambda d: " " * len(d.group(0)), text)  # dates blanked, positions kept
    m = _VALUE.search(text, at) or _VALUE.search(text)
    if m is None:
        return None
    unit, size = UNITS.get(m.group(2), (m.group(2), 1))
    return float(m.group(1).replace(",", "")) * size, f"{m.group(1)}{m.group(2)}", unit


def find_side(name: str, asked: str, nouns: list[str], by_number: dict[str, Sentence], terms: Terms, question: str = "") -> Side | None:
    """The shown sentence that states ``nouns`` of the side called ``name`` with a number, and
    that number; of several, the one sharing most character bigrams with the side and what is
    asked (ties: a sentence before a table row, then the first shown)."""
    anchors = terms(name)
    keys = [a.form for a in anchors if a.tag == "NNP"] or [a.form for a in anchors]
    if not keys:
        return None
    wanted = [normalise(bare_term(w)) for w in keys + nouns]
    found = []
    for s in by_number.values():
        if labels_only(s) or ((year := dated(s)) is not None and year not in f"{question} {name} {asked}"):
            continue  # a heading; a history row of another year than the question names
        said = f"{head} {s.text}" if (head := header_row(s)) else s.text
        seen = normalise(" ".join([said, s.chunk.heading(), s.chunk.title]))
        if all(w in seen for w in wanted) and (value := value_of(s, nouns)) is not None:
            found.append((s, value))
    if not found:
        return None
    target = char_bigrams(f"{name} {asked}")
    s, (value, shown, unit) = max(
        found, key=lambda f: (len(target & char_bigrams(f[0].text)), header_row(f[0]) is None, -int(f[0].number) if f[0].number.isdigit() else 0)
    )
    return Side(name, s, value, shown, unit)


def _pair(a_name: str, b_name: str, rest: str, nouns: list[str], by_number: dict[str, Sentence], terms: Terms, question: str) -> tuple[Side, Side] | None:
    """Both sides, each from its own sentence; None when either is missing."""
    a, b = (find_side(n, rest, nouns, by_number, terms, question) for n in (a_name, b_name))
    return (a, b) if a is not None and b is not None and a.sentence is not b.sentence else None


def compared(question: str, by_number: dict[str, Sentence], terms: Terms) -> Generated | None:
    """The answer to a choice between two named things by a quantity: each side's sentence quoted
    and cited, then which side's number is larger or smaller as the question asks (only when the
    two numbers have the same unit; else the two quotes stand alone). None when the question is
    no such choice, or a side has no sentence stating it."""
    asked = choice(question)
    if asked is None:
        return None
    a_name, b_name, rest, direction, verdict = asked
    sides = {normalise(bare_term(x.form)) for x in terms(f"{a_name} {b_name}")}
    nouns = [x.form for x in terms(rest) if not OPERATION_TERMS.search(x.form) and normalise(bare_term(x.form)) not in sides]
    # nothing named to compare: a price is implied by 비싸/싸 ("…중 어느 것이 더 비싼가요?"), else no answer
    found = next((pair for wanted in ([nouns] if nouns else [[n] for n in IMPLIED.get(verdict, ())])
                  if (pair := _pair(a_name, b_name, rest, wanted, by_number, terms, question)) is not None), None)
    if found is None:
        return None
    a, b = found
    parts = [f"{a.name}: {quoted_text(a.sentence)} [1]", f"{b.name}: {quoted_text(b.sentence)} [2]"]
    notes = [f"compared: sentence {a.sentence.number} states {a.shown} for {a.name}, sentence {b.sentence.number} {b.shown} for {b.name}"]
    if a.unit == b.unit and a.value != b.value:
        win, lose = (a, b) if (a.value > b.value) == (direction > 0) else (b, a)
        parts.append(f"{win.name} 쪽이 더 {verdict} ({win.shown} {'>' if win.value > lose.value else '<'} {lose.shown}).")
    elif a.unit == b.unit:
        parts.append(f"두 값이 같습니다 ({a.shown}).")
    else:
        notes.append(f"not compared: the units differ ({a.unit!r}, {b.unit!r})")
    claims = " ".join(parts)
    cites = [Citation.of(1, a.sentence.chunk, a.sentence.text), Citation.of(2, b.sentence.chunk, b.sentence.text)]
    return Generated("answered", claims, cites, claims_text=claims, notes=notes, quoted=True)
