"""The 단서 (proviso) of a cited clause that a notice passes over.

An exclusion or a condition is often followed by its own exception: "…는 보상하지 않습니다.
다만, 심신상실 등으로 … 경우에는 보험금을 지급합니다." A notice that quotes the rule and not its
다만 leaves out what may decide the claim, and the burden of showing that the exception does not
apply lies with the insurer. This module finds the provisos of exactly the part a citation points
to (the cited 호, else the cited 항, else an article printed as one 항 with no 호: citing a whole
long article points to nothing in particular) and says which of them the notice does not speak to.

A proviso starts at "다만," / "단," / "그러나," (다만 and 그러나 also without the comma) and runs to the end of its sentence (or of its
parenthesis, when it opens one: "…성형수술(다만, … 대체할 수 있습니다)을 받은 경우"). What it adds is
its own terms: those of its condition (two characters or more: a lone stem such as 하 says nothing)
that the cited part's text before it does not already hold. The condition runs to the last
"때에는 / 경우에는" (else to the payment it leads to: "…다른 보험의 목적에 생긴 손해는 보상하여
드립니다"): what follows is the consequence ("보험금을 지급합니다"), which every notice speaks of,
so saying it is not speaking to the proviso. Examples listed before "등" ("직업, 직무
또는 동호회 활동 등 주기적으로 운전") illustrate the condition and are not its terms: a notice that
states the condition in its own examples ("업무상 주기적으로 운전") speaks to it. A proviso whose
condition is the list that follows it ("다만, 다음 각 목의 어느 하나에 해당하는 경우에는 보상합니다.
가. … 나. …") runs to the end of the cited part, and its terms are the list's. The
notice speaks to the proviso when it holds at least half of its terms (``ADDRESSED_SHARE``); a notice that
restates the proviso or argues about it always does. A proviso that narrows the clause further
("…1회에 한하여 지급합니다", "…보장하지 않습니다", "…한도로 합니다") is no ground for the claimant
and is not reported; nor is one whose consequence is not the claimant's (:func:`favours_claimant`:
it makes the insurer pay or lifts the rule, or, in a 지급사유 article, lets a condition of payment
be met another way — "건강진단서로 건강진단을 대신할 수 있습니다" in an article on the duty to
disclose concerns how a contract is made, not whether a claim is paid). A proviso that lets a
condition be met another way stands in for the condition whose figure it shares with its rule
("사고일부터 2년 이내에 성형수술 … 다만, 2년이 지난 후에 수술이 가능하다는 진단으로 대체"): it
matters only to a notice that counts that figure's unit (a period in 년 or 개월, days); a notice that
refuses on another ground and counts no such period leaves it moot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from yakgwan.appeal.article_parts import parts_of_chunks
from yakgwan.appeal.citations import COVERAGE_TITLES, PARAGRAPH_START, ClauseRef, circled_number
from yakgwan.appeal.figures import conditions
from yakgwan.core.records import Chunk
from yakgwan.text.sentences import clause_spans
from yakgwan.text.tokenizer import Tokenizer

# "다만," / "단," / "그러나,"; 다만 and 그러나 also without the comma ("그러나 … 인명보호장구에 한하여 … 보상합니다")
_PROVISO = re.compile(r"(?:^|(?<=[\s.(]))(?:(?:다만|단|그러나)\s*,|(?:다만|그러나)\s)")
# a proviso whose condition is a list that follows it: "다만, 다음 각 목의 어느 하나에 해당하는 경우에는 보상합니다."
_LIST_FOLLOWS = re.compile(r"다음\s*각\s*(?:목|호)|다음\s*중")
_ITEM = re.compile(r"^[ \t]*(\d{1,2})\.(?!\d)[ \t]*\S", re.M)
ADDRESSED_SHARE = 0.5  # a simple majority of the proviso's own terms (not fitted)
# a proviso that narrows the clause further (a limit, one more exclusion) cannot help a claimant:
# what it says ends in a refusal, an exclusion or a cap (general Korean of 약관)
_NARROWS = re.compile(r"않습니다|않음|제외|한도|한하여|한함|한정|불가|아니합니다")
_CAPS = re.compile(r"한도|한하여|한함|한정")  # what narrows an exclusion too: a limit
_RELEASES = re.compile(r"그러하지\s*(?:아니|않)")  # "…경우에는 그러하지 아니합니다": the rule does not apply
# what a proviso's consequence says when it is the claimant's (general Korean of 약관): the insurer
# pays, or the rule is lifted; in a 지급사유 article also a condition met another way
_PAYS = re.compile(r"지급합니다|지급하여\s*드립니다|보상합니다|보상하여\s*드립니다|그러하지\s*(?:아니|않)|적용하지\s*(?:아니|않)")
_SUBSTITUTES = re.compile(r"대체|대신|인정합니다|간주|것으로\s*봅니다")
# where a proviso's condition ends and its consequence starts: the last "…한 때에는 / 경우에는"
_CONSEQUENCE = re.compile(r"(?:때|경우)(?:에는|에도|에|는|라도)?(?=[\s,])")
# examples listed before 등: "직업, 직무 또는 동호회 활동 등" (two or more items, a comma or a
# conjunction between them; general Korean of 약관)
_EXAMPLES = re.compile(r"[가-힣]+(?:\s*,\s*[가-힣]+(?:\s+[가-힣]+)?)*\s*(?:,|또는|및|이나|혹은)\s*[가-힣]+(?:\s+[가-힣]+)?\s+등(?:의|으로|과|에)?(?![가-힣])")


@dataclass(frozen=True)
class Proviso:
    """A proviso of the cited part: its text (a verbatim span of ``chunk``), where it starts in
    the chunk, and the share of its own terms the notice holds."""

    chunk: Chunk
    start: int
    end: int
    own_terms: tuple[str, ...]
    share_in_notice: float
    stands_for: frozenset[str] = frozenset()  # units of the figures it shares with its rule ("2년": 개월)

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]


def _number(label: str | None, unit: str) -> int | None:
    m = re.fullmatch(rf"제(\d+){unit}", label or "")
    return int(m.group(1)) if m else None


def cited_span(chunks: Sequence[Chunk], ref: ClauseRef) -> tuple[Chunk, int, int] | None:
    """The chunk and span of the part ``ref`` points to, or None when it points to a whole
    article of several 항 or 호, or to a part the chunks do not print."""
    ordered = sorted(chunks, key=lambda c: (c.doc_id, c.start))
    para, item = _number(ref.paragraph, "항"), _number(ref.item, "호")
    parts = parts_of_chunks(ordered)
    if parts.circled_items:
        return _circled_item_span(ordered, item)
    if para is None and item is None:
        if len(ordered) != 1 or len(parts.paragraphs) > 1 or any(parts.items.values()):
            return None
        return ordered[0], 0, len(ordered[0].text)
    for c in ordered:
        t = c.text
        marks = [m.start(1) for m in PARAGRAPH_START.finditer(t)]
        lo, hi = 0, len(t)
        if para is not None and marks:
            here = [m for m in marks if circled_number(t[m:].lstrip()[0]) == para]
            if not here:
                continue
            lo = here[0]
            hi = next((m for m in marks if m > lo), len(t))
        elif para is not None and para > 1:
            continue
        if item is not None:
            starts = [m for m in _ITEM.finditer(t, lo, hi)]
            at = [m for m in starts if int(m.group(1)) == item]
            if not at:
                continue
            s = at[0].start()
            nxt = next((m.start() for m in starts if m.start() > s), hi)
            nxt_mark = next((m for m in marks if m > s), hi)
            return c, s, min(nxt, nxt_mark, hi)
        return c, lo, hi
    return None


def candidate_spans(chunks: Sequence[Chunk], ref: ClauseRef) -> list[tuple[Chunk, int, int]]:
    """The parts a citation may point to where :func:`cited_span` cannot tell which: in an article
    whose circled numbers start again, every part printed with the cited number (the 호, else
    the 항); empty otherwise."""
    ordered = sorted(chunks, key=lambda c: (c.doc_id, c.start))
    number = _number(ref.item, "호") or _number(ref.paragraph, "항")
    if number is None or not parts_of_chunks(ordered).circled_items:
        return []
    return _circled(ordered, number)


def _circled(ordered: Sequence[Chunk], number: int) -> list[tuple[Chunk, int, int]]:
    """Every part of ``ordered`` printed with the circled ``number``, to the next circled number."""
    out = []
    for c in ordered:
        marks = [m.start(1) for m in PARAGRAPH_START.finditer(c.text)]
        out += [(c, at, marks[i + 1] if i + 1 < len(marks) else len(c.text)) for i, at in enumerate(marks) if circled_number(c.text[at]) == number]
    return out


def _circled_item_span(ordered: Sequence[Chunk], item: int | None) -> tuple[Chunk, int, int] | None:
    """In an article whose circled numbers number 호 (they start again for each 항's list, and
    which list is which 항 cannot be read for sure), the cited ``item`` when only one of its lists
    is that long; None otherwise (the citation points to nothing the reader can tell)."""
    found = _circled(ordered, item) if item is not None else []
    return found[0] if len(found) == 1 else None


def provisos(chunk: Chunk, start: int, end: int, notice_text: str, tokenizer: Tokenizer) -> list[Proviso]:
    """The provisos inside ``chunk.text[start:end]``, each with the share of its own terms that
    ``notice_text`` holds."""
    text = chunk.text
    notice = set(tokenizer.tokenize(notice_text))
    out = []
    taken = start
    for s, e in clause_spans(text[start:end]):
        s, e = s + start, e + start
        if s < taken:  # a list item of a proviso already read
            continue
        m = _PROVISO.search(text, s, e)
        if m is None:
            continue
        if m.start() > 0 and text[m.start() - 1] == "(":  # "(다만, … 대체할 수 있습니다)": the parenthesis is the proviso
            close = text.find(")", m.end(), e)
            e = close if close >= 0 else e
        rule = text[start : m.start()]
        before = set(tokenizer.tokenize(rule))
        lead_end = e
        if _LIST_FOLLOWS.search(text, m.end(), e):  # its condition is the list that follows, to the end of the cited part
            e = end
            while e > lead_end and text[e - 1].isspace():
                e -= 1
        taken = e
        own = _new_terms(text[m.end() : e], before, tokenizer)
        if not own:
            continue
        # the terms of its condition: of the list that follows where the lead only points to it
        terms = (_new_terms(text[lead_end:e], before, tokenizer) if e > lead_end else _condition_terms(text[m.end() : e], before, tokenizer)) or own
        share = sum(t in notice for t in terms) / len(terms)
        rule_figures = {(c.unit, b) for c in conditions(rule) for b in c.bounds}
        shared = frozenset(c.unit for c in conditions(text[m.end() : e]) for b in c.bounds if (c.unit, b) in rule_figures)
        out.append(Proviso(chunk, m.start(), e, terms, share, shared))
    return out


def _new_terms(text: str, before: set[str], tokenizer: Tokenizer, leave_out: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The terms of ``text`` (two characters or more) that the rule before it does not hold, in
    order, ``leave_out`` left out."""
    return tuple(dict.fromkeys(t for t in tokenizer.tokenize(text) if len(t) > 1 and t not in before and t not in leave_out))


def _condition_terms(proviso: str, before: set[str], tokenizer: Tokenizer) -> tuple[str, ...]:
    """The proviso's own terms that say its condition: those before its consequence, examples
    listed before 등 left out (unless nothing else is left)."""
    ends = list(_CONSEQUENCE.finditer(proviso))
    pays = list(_PAYS.finditer(proviso))
    # the condition ends at the last "때에는 / 경우에는", else at the payment it leads to ("…다른 보험의
    # 목적에 생긴 손해는 보상하여 드립니다": what is paid is the condition, that it is paid is not)
    condition = proviso[: ends[-1].start()] if ends else proviso[: pays[-1].start()] if pays else proviso
    examples = frozenset(t for m in _EXAMPLES.finditer(condition) for t in tokenizer.tokenize(m.group(0)))
    return _new_terms(condition, before, tokenizer, examples) or _new_terms(condition, before, tokenizer)


def unaddressed(chunks: Sequence[Chunk], ref: ClauseRef, notice_text: str, tokenizer: Tokenizer) -> list[Proviso]:
    """The provisos of the cited part that the notice does not speak to, those that narrow the
    clause further (a cap, one more exclusion) left out: only an exception can be the claimant's."""
    span = cited_span(chunks, ref)
    if span is None:
        return []
    found = [p for p in provisos(*span, notice_text, tokenizer) if p.share_in_notice < ADDRESSED_SHARE and not narrows(p) and favours_claimant(p)]
    counted = {c.unit for c in conditions(notice_text)} if any(p.stands_for for p in found) else set()
    return [p for p in found if not _moot(p, counted)]


def _moot(p: Proviso, counted: set[str]) -> bool:
    """A proviso that lets a condition of payment be met another way, where the notice counts
    nothing in the unit of the figure it stands in for: the denial is on another ground."""
    return _substitutes(p) and bool(p.stands_for) and not (p.stands_for & counted)


def _substitutes(p: Proviso) -> bool:
    """Whether the proviso lets a condition be met another way (and does not itself pay)."""
    return not _PAYS.search(p.text) and bool(_SUBSTITUTES.search(p.text))


def favours_claimant(p: Proviso) -> bool:
    """Whether the proviso's consequence is the claimant's: the insurer pays or the rule does not
    apply; in an exclusion article, a case is taken out of the exclusion ("…는 제외합니다"); in an
    article that sets the conditions of payment (지급사유), a condition may be met another way."""
    title = p.chunk.article_title or ""
    if _PAYS.search(p.text):
        return True
    if any(w in title for w in ("지급하지 않는", "보상하지 않는", "보장제외")) and "제외" in p.text:  # a case taken out of the exclusion
        return True
    return any(w in title for w in COVERAGE_TITLES) and _substitutes(p)


def narrows(p: Proviso) -> bool:
    """Whether the proviso narrows what the clause grants: a cap, or, in a clause that grants
    (not an exclusion article), one more refusal. "그러하지 아니합니다" releases the rule, and in an
    exclusion article "…는 제외합니다" takes a case out of the exclusion: neither narrows; nor does,
    in an exclusion article, a case taken out and paid within a limit ("그러나 … 인명보호장구에 한하여
    … 200만원의 한도에서 … 보상합니다")."""
    if _RELEASES.search(p.text):
        return False
    exclusion = any(w in (p.chunk.article_title or "") for w in ("지급하지 않는", "보상하지 않는", "보장제외"))
    if exclusion:  # a case taken out of an exclusion and paid is the claimant's, capped or not
        return bool(_CAPS.search(p.text)) and not _PAYS.search(p.text)
    return bool(_NARROWS.search(p.text))
