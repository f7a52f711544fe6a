"""A question that names a 약관 the documents hold is on their subject.

"벌금 특약 한도 스쿨존" names the 벌금 특별약관; the calibrated decision may still find no unit
close enough (a word the documents do not use, a question typed as keywords) and refuse it as off
topic. That refusal cannot state its reason truly: the question is about a 약관 the documents
hold. When a retrieved passage is of that 약관 (or prints the same words in it, a clone 특약),
the answer is ``partial``: the nearest units of those passages, led by a sentence that says whose
clauses they are and that they may not answer the point. Pure.
"""

from __future__ import annotations

from typing import Sequence

from yakgwan.answer.records import Generated
from yakgwan.core.records import Hit
from yakgwan.messages import msg


def named_lead(name: str) -> str:
    """The sentence a partial answer from the named 약관 leads with."""
    return f"질문이 가리키는 {name}에서 가장 가까운 조항입니다. 질문에 바로 답하는 문장인지는 조항을 확인해 주세요."


def named_hits(hits: Sequence[Hit], name: str) -> list[Hit]:
    """The hits of the 약관 ``name``: its own passages and those that carry it as a clone member."""
    return [h for h in hits if any(c.yakgwan == name for c in (h.chunk, *h.members))]


def kept_for_named(done: Generated, nearest: Generated | None, name: str | None) -> Generated:
    """``done``, or, when it is a refusal because nothing retrieved looked on topic while the
    question names the 약관 ``name`` and ``nearest`` quotes units of its passages
    (:func:`named_hits`): ``nearest`` as a ``partial`` answer led by :func:`named_lead`, reason
    ``point_missing``. Neither argument is changed."""
    if done.outcome != "refused" or done.reason != "off_topic" or not name or nearest is None or not nearest.citations:
        return done
    lead = named_lead(name)
    return Generated("partial", f"{lead} {nearest.answer}", list(nearest.citations),
                     notes=[*done.notes, msg("note.named_yakgwan", name=name), *nearest.notes],
                     claims_text=nearest.claims_text or nearest.answer, reason="point_missing", conclusion=lead)
