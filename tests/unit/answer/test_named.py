"""A question that names a 약관 the documents hold is not refused as off topic
(:mod:`yakgwan.answer.named`): the nearest units of that 약관, as a partial answer."""

from __future__ import annotations

import pytest

from yakgwan.answer.named import kept_for_named, named_hits, named_lead
from yakgwan.answer.records import Citation, Generated
from yakgwan.core.records import Chunk, Hit

pytestmark = pytest.mark.unit


def _hit(cid: str, yakgwan: str, rank: int, *members: Chunk) -> Hit:
    c = Chunk(cid, "p.pdf", "p.pdf", "p", "회사는 벌금액을 지급합니다.", 0, 14, (3,), yakgwan=yakgwan, article="제1조")
    return Hit(c, 1.0 / rank, rank, "clause", members=members)


def test_the_hits_of_a_named_yakgwan_are_its_own_passages_and_those_carrying_it_as_a_clone() -> None:
    own = _hit("a", "벌금 특별약관", 3)
    family = _hit("b", "가족벌금 특별약관", 1, own.chunk)  # prints the same 조 in the named 특약
    other = _hit("c", "변호사선임비용 특별약관", 2)
    assert named_hits([family, other, own], "벌금 특별약관") == [family, own]
    assert named_hits([other], "벌금 특별약관") == []


def test_an_off_topic_refusal_of_a_question_naming_a_held_yakgwan_becomes_partial_with_its_nearest_units() -> None:
    cite = Citation(1, "a", "p.pdf", "제1조", 3, "회사는 벌금액을 지급합니다.", "벌금 특별약관")
    near = Generated("partial", "벌금 특별약관 · 제1조 — 회사는 벌금액을 지급합니다. [1]", [cite], claims_text="벌금 특별약관 · 제1조 — 회사는 벌금액을 지급합니다. [1]")
    refused = Generated("refused", "없습니다", [], reason="off_topic")
    out = kept_for_named(refused, near, "벌금 특별약관")
    assert (out.outcome, out.reason, out.citations) == ("partial", "point_missing", [cite])
    assert out.conclusion == named_lead("벌금 특별약관") and out.answer == f"{out.conclusion} {near.answer}"
    assert out.claims_text == near.claims_text  # the lead is no claim of the clauses
    assert "벌금 특별약관" in out.notes[-1].text("ko")
    assert refused.notes == [] and near.notes == []  # neither argument is changed
    # kept as they are: another reason, an answer, no name, nothing to quote
    assert kept_for_named(Generated("refused", "없습니다", [], reason="unverifiable"), near, "벌금 특별약관").outcome == "refused"
    assert kept_for_named(Generated("answered", "예 [1]", [cite]), near, "벌금 특별약관").outcome == "answered"
    assert kept_for_named(refused, near, None) is refused
    assert kept_for_named(refused, None, "벌금 특별약관") is refused
    assert kept_for_named(refused, Generated("partial", "", []), "벌금 특별약관") is refused
