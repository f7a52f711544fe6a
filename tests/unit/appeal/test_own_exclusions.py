"""A 보통약관 exclusion applied to a 특약 with its own list (hand-built articles)."""

from __future__ import annotations

import pytest

from yakgwan.appeal.own_exclusions import general_applied_to_own_list, own_exclusions
from yakgwan.core.records import Chunk


def chunk(cid: str, yakgwan: str, article: str, title: str, text: str, start: int) -> Chunk:
    return Chunk(cid, "p.pdf", "p.pdf", "t", text, start, start + len(text), yakgwan=yakgwan, article=article, article_title=title)


CHUNKS = [
    chunk("g5", "보통약관", "제5조", "보험금을 지급하지 않는 사유", "제5조(보험금을 지급하지 않는 사유)\n① 회사는 다음의 경우 지급하지 않습니다.\n1. 고의", 0),
    chunk("f2", "벌금 특별약관", "제2조", "보험금을 지급하지 않는 사유", "제2조(보험금을 지급하지 않는 사유)\n회사는 아래의 손해는 보상하지 않습니다.\n1. 고의\n2. 도주", 100),
    chunk("f3", "벌금 특별약관", "제3조", "준용규정", "제3조(준용규정)\n이 특별약관에 정하지 않은 사항은 보통약관을 따릅니다.", 200),
    chunk("b2", "자전거 특별약관", "제2조", "보험금을 지급하지 않는 사유", "제2조(보험금을 지급하지 않는 사유)\n회사는 보통약관 제5조(보험금을 지급하지 않는 사유) 및 아래의 손해는 보상하지 않습니다.\n1. 경기", 300),
    chunk("c1", "깁스 특별약관", "제1조", "보험금의 지급사유", "제1조(보험금의 지급사유)\n깁스치료를 받은 경우 지급합니다.", 400),
]


@pytest.mark.unit
def test_own_lists_and_what_they_name() -> None:
    fine = own_exclusions("벌금 특별약관", CHUNKS)
    assert fine is not None and fine.article.chunk_id == "f2" and fine.items == (1, 2) and not fine.names_general and fine.refers_back is CHUNKS[2]
    bike = own_exclusions("자전거 특별약관", CHUNKS)
    assert bike is not None and bike.names_general and bike.refers_back is None
    assert own_exclusions("깁스 특별약관", CHUNKS) is None


@pytest.mark.unit
def test_finding_only_for_a_general_exclusion_on_an_own_list() -> None:
    ((name, own, said),) = general_applied_to_own_list("보통약관", "보험금을 지급하지 않는 사유", ["벌금 특별약관"], CHUNKS)
    assert own.article.chunk_id == "f2" and (name, said) == ("벌금 특별약관", "「벌금 특별약관」은 제2조(보험금을 지급하지 않는 사유)에 자체 면책 사유(제1호, 제2호)를 두고 보통약관의 면책 조항을 "
                                   "끌어오지 않습니다; 제3조는 이 특약에 '정하지 않은 사항'만 보통약관을 따르게 합니다")
    assert general_applied_to_own_list("보통약관", "보험금을 지급하지 않는 사유", ["자전거 특별약관", "깁스 특별약관"], CHUNKS) == []  # names it; has none
    assert general_applied_to_own_list("보통약관", "보험금의 청구", ["벌금 특별약관"], CHUNKS) == []  # not an exclusion
    assert general_applied_to_own_list("벌금 특별약관", "보험금을 지급하지 않는 사유", ["벌금 특별약관"], CHUNKS) == []  # the 특약's own


PARTS = [
    *CHUNKS,
    chunk("l3", "배상책임 특별약관", "제3조", "보상하지 않는 손해",
          "제3조(보상하지 않는 손해) 회사는 보통약관 제5조(보험금을 지급하지 않는 사유) 제1항 제1호, 제3호, 제5호 및 아래의 사유로 입은 손해는 보상하지 않습니다.\n1. 직무\n2. 부동산", 500),
]


@pytest.mark.unit
def test_an_own_list_that_takes_in_some_parts_of_the_general_exclusions() -> None:
    """"보통약관 제5조 제1항 제1호, 제3호, 제5호 및 아래의 사유": a cited part outside those is not taken
    in (a finding); one of them, or the 항 they belong to, is."""
    from yakgwan.appeal.citations import parse_clause_refs

    def found(cited: str) -> list[str]:
        (ref,) = parse_clause_refs(cited)
        return [said for _, _, said in general_applied_to_own_list("보통약관", "보험금을 지급하지 않는 사유", ["배상책임 특별약관"], PARTS, ref)]

    (said,) = found("보통약관 제5조 ② 1.")
    assert said.startswith("「배상책임 특별약관」은 제3조(보상하지 않는 손해)에 자체 면책 사유(제1호, 제2호)를 두고 보통약관 제5조 중 제1항 제1호, 제1항 제3호, 제1항 제5호만")
    assert "통지서가 든 보통약관 제5조 제2항은 그 가운데 없습니다" in said
    assert len(found("보통약관 제5조 제1항 제2호")) == 1  # a 호 the list does not name
    assert found("보통약관 제5조 제1항 제3호") == [] and found("보통약관 제5조 제1항") == [] and found("보통약관 제5조") == []
    assert len(found("보통약관 제7조 제1항")) == 1  # an article it does not name at all
    (ref,) = parse_clause_refs("보통약관 제5조 ② 1.")
    assert general_applied_to_own_list("보통약관", "보험금을 지급하지 않는 사유", ["자전거 특별약관"], CHUNKS, ref) == []  # names the whole article
