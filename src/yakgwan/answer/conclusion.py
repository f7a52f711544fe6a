"""The sentence an offline answer leads with: what the governing unit says to the question asked.

The unit answer (:mod:`yakgwan.answer.extract_units`) quotes the units it chose. Before the
quotes, a plain Korean sentence names the governing unit — its 약관, 조 and title — and the words
of it that answer the kind of question asked (:mod:`yakgwan.query.answer_type`):

- a **period** (며칠, 언제까지, 몇 년): the unit's spans that end in a count of time (``15일 이내``,
  ``3영업일``, ``3년``), each from the start of its clause;
- an **amount** (얼마, 한도): the spans that end in a sum or a share (``2천만원``, ``50%``);
- **documents** (서류, 뭘 내야): the names of documents the unit lists (…서, …증명서, …사본);
- whether something is **paid** (보상되나요): what the 조 is, by its title — the cases the policy
  pays, or the cases it does not — and, when the 조 is a list, the item that holds the question's
  own nouns (those that do not sit in most items: :func:`matching_item`), so that "음주운전도
  보상되나요" is answered by the exclusion's item on drunk driving, quoted.

Every span is copied from the unit's text (never a figure that is not there); a kind whose words
the unit does not hold gives no sentence. The patterns are general Korean and insurance forms of
writing time, money and document names, not taken from any question. Pure functions.
"""

from __future__ import annotations

import re

from yakgwan.answer.anchors import normalise
from yakgwan.query.answer_type import PAID, AnswerTypes, asked_kinds, title_roles

PHRASES = 2  # spans quoted at most
PHRASE_CHARS = 48  # a span longer than this keeps its end (the figure), cut at a word
DOCUMENTS = 6  # document names listed at most

# a count of time: N일 (영업일), N개월, N년, N주, N시간, with 이내/이상/까지/간/동안 after it
_TIME_UNITS = "영업일|일|개월|년|주일|주|시간"
_PERIOD = re.compile(rf"\d+\s*(?:{_TIME_UNITS})(?:\s*(?:이내|이상|이후|전|까지|간|동안))?")
# a sum of money (2천만원, 300만원, 5,000원) or a share (50%), with 한도/이내/까지 after it
_AMOUNT = re.compile(r"(?:\d[\d,.]*\s*(?:천|백|십)?\s*(?:만|억)?\s*원|\d[\d.]*\s*(?:%|％))(?:\s*(?:한도|이내|까지))?")
# a document's name as 약관 print them: a noun ending in 증명서, 진단서, 확인서, 청구서, 사본, 등본 …
# (서류 alone names none: "다음 서류를")
_DOCUMENT = re.compile(r"[가-힣]{0,12}(?:증명서|진단서|확인서|청구서|신청서|계산서|영수증|사본|등본|초본|신분증)")
# where a span starts: the start of a clause (after a sentence end, a comma or a list mark; a
# closing bracket does not end a clause: "제18조(청약의 철회)를 …")
_CLAUSE_START = re.compile(r"[.,;:。·\n]\s*|(?:^|\s)(?:\d+\.|[①-⑳]|[가-하]\.)\s*")


def _clause_span(text: str, start: int, end: int) -> str:
    """The words from the start of the clause holding ``text[start:end]`` to its end, verbatim
    (from inside the bracket when the figure sits in one); cut at a word from the left when
    longer than ``PHRASE_CHARS``."""
    begin = 0
    for m in _CLAUSE_START.finditer(text, 0, start):
        begin = m.end()
    span = text[begin:end].strip()
    opened = max(span.rfind(b) for b in "(（[")
    if opened >= 0 and not any(c in span[opened:] for c in ")）]"):  # the figure sits inside a bracket: start there
        span = span[opened + 1:].strip()
    if len(span) > PHRASE_CHARS:
        cut = span[-PHRASE_CHARS:]
        space = cut.find(" ")
        span = cut[space + 1:] if 0 <= space < len(cut) - 1 else cut
    return " ".join(span.split())


def figure_spans(text: str, pattern: re.Pattern[str]) -> list[str]:
    """The clause spans of ``text`` that end in a match of ``pattern``, once each, in order, at
    most ``PHRASES``. Pure."""
    out: list[str] = []
    for m in pattern.finditer(text):
        span = _clause_span(text, m.start(), m.end())
        if span and span not in out:
            out.append(span)
        if len(out) == PHRASES:
            break
    return out


VALUE_KINDS = ("period", "amount", "documents")  # the kinds a unit carries in its own words

# the measure a count of time is in (영업일 counts days; 주일 weeks), and the general Korean
# interrogatives that ask a count in one measure (며칠: days, 몇 달: months, 몇 년: years)
_MEASURE = {"영업일": "일", "일": "일", "개월": "개월", "년": "년", "주일": "주", "주": "주", "시간": "시간"}
_MEASURE_OF = re.compile(rf"\d+\s*({_TIME_UNITS})")
_ASKED_MEASURE = {"일": re.compile(r"며칠|몇\s*일"), "개월": re.compile(r"몇\s*(?:개월|달)"), "년": re.compile(r"몇\s*년"),
                  "주": re.compile(r"몇\s*주"), "시간": re.compile(r"몇\s*시간")}


def measures(text: str) -> frozenset[str]:
    """The measures ``text`` counts time in ("3년간", "30영업일" → 년, 일). Pure."""
    return frozenset(_MEASURE[m.group(1)] for m in _MEASURE_OF.finditer(text))


def asked_measures(question: str) -> frozenset[str]:
    """The measures of time ``question`` counts in or asks in: its own counts ("4년 전에 다쳤는데")
    and its interrogatives ("며칠 안에"). A deadline that decides the question is written in
    the measure the question thinks in: 3년간 for a question four years late, 15일 for one a few
    days in. Pure."""
    return measures(question) | frozenset(m for m, asks in _ASKED_MEASURE.items() if asks.search(question))


def carries(text: str, kinds: frozenset[str]) -> bool:
    """Whether ``text`` holds words of one of the asked ``kinds`` that a unit can carry: a count
    of time for a period, a sum or share for an amount, a document's name for documents. Pure."""
    return (("period" in kinds and _PERIOD.search(text) is not None)
            or ("amount" in kinds and _AMOUNT.search(text) is not None)
            or ("documents" in kinds and _DOCUMENT.search(text) is not None))


def document_names(text: str) -> list[str]:
    """The document names ``text`` lists, once each, in order, at most ``DOCUMENTS``. Pure."""
    out: list[str] = []
    for m in _DOCUMENT.finditer(text):
        name = m.group(0)
        if name not in out and not any(name in o for o in out):
            out.append(name)
    return out[:DOCUMENTS]


# where a list item starts: "1." "①" "가." at the start of a line or after a space
_ITEM = re.compile(r"(?:^|(?<=\s))(\d{1,2}\.|[①-⑳]|[가나다라마바사아자차카타파하]\.)(?=\s)")
ITEM_CHARS = 90  # an item longer than this is cut at a word


def list_items(text: str) -> list[tuple[str, str]]:
    """The list items of ``text`` as (mark, words), in order, the words verbatim with their
    whitespace collapsed. Pure."""
    marks = list(_ITEM.finditer(text))
    return [(m.group(1), " ".join(text[m.end():(marks[k + 1].start() if k + 1 < len(marks) else len(text))].split()))
            for k, m in enumerate(marks)]


def matching_item(text: str, terms: list[str] | tuple[str, ...]) -> tuple[str, str] | None:
    """The one item of the list in ``text`` that holds the most of ``terms`` (spaces ignored),
    counting only the terms that sit in at most half the items (a word every item shares says
    nothing about which one); None when the text lists fewer than two items, no item holds one,
    or two items tie. Pure."""
    items = list_items(text)
    if len(items) < 2:
        return None
    flat = [normalise(words) for _, words in items]
    wanted = [t for t in dict.fromkeys(normalise(t) for t in terms) if t]
    telling = [t for t in wanted if 0 < sum(t in f for f in flat) <= len(items) / 2]
    scores = [sum(t in f for t in telling) for f in flat]
    best = max(scores, default=0)
    if best == 0 or scores.count(best) > 1:
        return None
    mark, words = items[scores.index(best)]
    if len(words) > ITEM_CHARS:
        cut = words[:ITEM_CHARS]
        words = cut[:cut.rfind(" ")] if " " in cut else cut
        words += " …"
    return mark, words


def where(yakgwan: str | None, article: str | None, title: str | None) -> str:
    """"보통약관 제35조(소멸시효)": the unit's 약관, 조 and title, as far as known."""
    art = f"{article}({title})" if article and title else article or ""
    return " ".join(p for p in (yakgwan or "", art) if p)


def conclusion(question: str, text: str, yakgwan: str | None, article: str | None, title: str | None,
               types: AnswerTypes, terms: list[str] | tuple[str, ...] = ()) -> str | None:
    """The sentence that leads the answer to ``question`` from the unit ``text`` (of ``article``
    titled ``title`` in ``yakgwan``); None when the question asks no kind the unit answers.
    ``terms``: the question's nouns (the list item that holds them is quoted). Pure."""
    place = where(yakgwan, article, title)
    if not place:
        return None
    kinds = asked_kinds(question, types)
    said: list[str] = []
    if "period" in kinds and (spans := figure_spans(text, _PERIOD)):
        said.append(", ".join(f"‘{s}’" for s in spans))
    if "amount" in kinds and (spans := figure_spans(text, _AMOUNT)):
        said.append(", ".join(f"‘{s}’" for s in spans))
    if said:
        return f"{place}에 {' · '.join(said)}라고 적혀 있습니다."
    if "documents" in kinds and (names := document_names(text)):
        return f"{place}에 낼 서류가 적혀 있습니다: {', '.join(names)}."
    if PAID in kinds:
        roles = title_roles(title, types)
        item = matching_item(text, terms) if roles & {"excludes", "pays"} else None
        if item is not None and "excludes" in roles:
            return f"{place}의 {item[0]} ‘{item[1]}’에 해당하면 보험금이 지급되지 않습니다."
        if item is not None:
            return f"{place}은(는) 보험금을 지급하는 경우를 정한 조항이며, 질문에 닿는 부분은 {item[0]} ‘{item[1]}’입니다."
        if "excludes" in roles:
            return f"{place}은(는) 보상하지 않는 경우를 정한 조항입니다. 아래에 해당하면 보험금이 지급되지 않습니다."
        if "pays" in roles:
            return f"{place}은(는) 보험금을 지급하는 경우를 정한 조항입니다. 아래 조건에 해당하면 보상됩니다."
    return None
