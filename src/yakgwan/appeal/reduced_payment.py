"""Where the policy pays less instead of nothing: the sentences that prescribe a reduced,
proportional or partial payment ("…에 대한 비율에 따라 보험금을 삭감하여 지급합니다", "…을 차감하여
지급합니다", "비례분담하여 지급", not "전부 또는 일부를 지급하지 않습니다", which lets the insurer refuse all), and the sentences that send
a case to one of them ("제14조 제4항 또는 제5항에 따라 보험금을 지급합니다") — the document's own
cross-references, followed one step.

The markers are general 약관 wording for a payment that is cut, not a word list from any notice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.appeal.citations import CIRCLED
from yakgwan.core.records import Chunk
from yakgwan.text.sentences import clause_spans

# a payment cut rather than refused (보험업 약관 wording): a ratio, a reduction, a deduction, a share,
# what exceeds a limit
_REDUCED = re.compile(r"비율에\s*따라|비례|삭감|감액하여|차감|분담|초과하는\s*(?:부분|금액)")
_PAYS = re.compile(r"지급")
# "제14조(상해보험계약 후 알릴 의무) 제4항 또는 제5항에 따라 … 지급": the article and paragraphs it sends to
_SENDS = re.compile(r"제\s*(\d+)\s*조(?:의\s*\d+)?\s*(?:\([^()]*\))?\s*((?:제\s*\d+\s*항\s*(?:,|및|또는)?\s*)+)에?\s*(?:따라|의하여|의해)")


@dataclass(frozen=True)
class ReducedPayment:
    """A sentence that cuts a payment (``via`` is None), or one that sends the case to such a
    sentence (``via``: the sentence it sends to)."""

    chunk: Chunk
    start: int
    end: int
    via: "ReducedPayment | None" = None

    @property
    def sentence(self) -> str:
        return self.chunk.text[self.start : self.end]


def reduced_payments(chunks: list[Chunk]) -> list[ReducedPayment]:
    """Every sentence of ``chunks`` that prescribes a cut payment, then every sentence that sends a
    case to one of them by article and paragraph (same 약관), in document order. A 약관's
    glossary box (【…】 in a 용어 article) defines words and prescribes nothing: it is skipped."""
    direct: list[ReducedPayment] = []
    ordered = sorted(chunks, key=lambda c: (c.doc_id, c.start))
    for c in ordered:
        if "용어" in (c.article_title or ""):
            continue
        for s, e in clause_spans(c.text):
            sentence = c.text[s:e]
            if _REDUCED.search(sentence) and _PAYS.search(sentence):
                direct.append(ReducedPayment(c, s, e))
    by_place = {(r.chunk.yakgwan, r.chunk.article, r.chunk.paragraph): r for r in reversed(direct)}
    sent: list[ReducedPayment] = []
    for c in ordered:
        for s, e in clause_spans(c.text):
            for m in _SENDS.finditer(c.text[s:e]):
                for n in re.findall(r"\d+", m.group(2)):
                    target = by_place.get((c.yakgwan, f"제{m.group(1)}조", CIRCLED[int(n) - 1] if 0 < int(n) <= len(CIRCLED) else n))
                    if target is not None and target.chunk.chunk_id != c.chunk_id and "지급" in c.text[s:e][m.end():]:
                        sent.append(ReducedPayment(c, s, e, target))
                        break
                else:
                    continue
                break
    return direct + sent
