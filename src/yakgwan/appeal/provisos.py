"""The 단서 (proviso) of a cited clause that a notice passes over.

An exclusion or a condition is often followed by its own exception: "…는 보상하지 않습니다.
다만, 심신상실 등으로 … 경우에는 보험금을 지급합니다." A notice that quotes the rule and not its
다만 leaves out what may decide the claim, and the burden of showing that the exception does not
apply lies with the insurer. This module finds the provisos of exactly the part a citation points
to (the cited 호, else the cited 항, else an article printed as one 항 with no 호: citing a whole
long article points to nothing in particular) and says which of them the notice does not speak to.

A proviso starts at "다만," / "단," / "그러나," and runs to the end of its sentence (or of its
parenthesis, when it opens one: "…성형수술(다만, … 대체할 수 있습니다)을 받은 경우"). What it adds is
its own terms: those of the proviso (two characters or more: a lone stem such as 하 says nothing)
that the cited part's text before it does not already hold. The
notice speaks to it when it holds at least half of them (``ADDRESSED_SHARE``); a notice that
restates the proviso or argues about it always does. A proviso that narrows the clause further
("…1회에 한하여 지급합니다", "…보장하지 않습니다", "…한도로 합니다") is no ground for the claimant
and is not reported; nor is one whose consequence is not the claimant's (:func:`favours_claimant`:
it makes the insurer pay or lifts the rule, or, in a 지급사유 article, lets a condition of payment
be met another way — "건강진단서로 건강진단을 대신할 수 있습니다" in an article on the duty to
disclose concerns how a contract is made, not whether a claim is paid).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from yakgwan.appeal.article_parts import parts_of_chunks
from yakgwan.appeal.citations import COVERAGE_TITLES, PARAGRAPH_START, ClauseRef, circled_number
from yakgwan.core.records import Chunk
from yakgwan.text.sentences import clause_spans
from yakgwan.text.tokenizer import Tokenizer

_PROVISO = re.compile(r"(?:^|(?<=[\s.(]))(?:다만|단|그러나)\s*,")
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


@dataclass(frozen=True)
class Proviso:
    """A proviso of the cited part: its text (a verbatim span of ``chunk``), where it starts in
    the chunk, and the share of its own terms the notice holds."""

    chunk: Chunk
    start: int
    end: int
    own_terms: tuple[str, ...]
    share_in_notice: float

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
    if para is None and item is None:
        parts = parts_of_chunks(ordered)
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


def provisos(chunk: Chunk, start: int, end: int, notice_text: str, tokenizer: Tokenizer) -> list[Proviso]:
    """The provisos inside ``chunk.text[start:end]``, each with the share of its own terms that
    ``notice_text`` holds."""
    text = chunk.text
    notice = set(tokenizer.tokenize(notice_text))
    out = []
    for s, e in clause_spans(text[start:end]):
        s, e = s + start, e + start
        m = _PROVISO.search(text, s, e)
        if m is None:
            continue
        if m.start() > 0 and text[m.start() - 1] == "(":  # "(다만, … 대체할 수 있습니다)": the parenthesis is the proviso
            close = text.find(")", m.end(), e)
            e = close if close >= 0 else e
        before = set(tokenizer.tokenize(text[start : m.start()]))
        own = tuple(dict.fromkeys(t for t in tokenizer.tokenize(text[m.end() : e]) if len(t) > 1 and t not in before))
        if not own:
            continue
        share = sum(t in notice for t in own) / len(own)
        out.append(Proviso(chunk, m.start(), e, own, share))
    return out


def unaddressed(chunks: Sequence[Chunk], ref: ClauseRef, notice_text: str, tokenizer: Tokenizer) -> list[Proviso]:
    """The provisos of the cited part that the notice does not speak to, those that narrow the
    clause further (a cap, one more exclusion) left out: only an exception can be the claimant's."""
    span = cited_span(chunks, ref)
    if span is None:
        return []
    return [p for p in provisos(*span, notice_text, tokenizer) if p.share_in_notice < ADDRESSED_SHARE and not narrows(p) and favours_claimant(p)]


def favours_claimant(p: Proviso) -> bool:
    """Whether the proviso's consequence is the claimant's: the insurer pays or the rule does not
    apply; in an exclusion article, a case is taken out of the exclusion ("…는 제외합니다"); in an
    article that sets the conditions of payment (지급사유), a condition may be met another way."""
    title = p.chunk.article_title or ""
    if _PAYS.search(p.text):
        return True
    if any(w in title for w in ("지급하지 않는", "보상하지 않는", "보장제외")) and "제외" in p.text:  # a case taken out of the exclusion
        return True
    return any(w in title for w in COVERAGE_TITLES) and bool(_SUBSTITUTES.search(p.text))


def narrows(p: Proviso) -> bool:
    """Whether the proviso narrows what the clause grants: a cap, or, in a clause that grants
    (not an exclusion article), one more refusal. "그러하지 아니합니다" releases the rule, and in an
    exclusion article "…는 제외합니다" takes a case out of the exclusion: neither narrows."""
    if _RELEASES.search(p.text):
        return False
    exclusion = any(w in (p.chunk.article_title or "") for w in ("지급하지 않는", "보상하지 않는", "보장제외"))
    return bool((_CAPS if exclusion else _NARROWS).search(p.text))
