"""Which 항 and 호 an article prints, and the cited part it lacks (hand-built articles)."""

from __future__ import annotations

import pytest

from yakgwan.appeal.article_parts import ArticleParts, article_parts, listing, missing_part, parts_of_chunks, what_is_printed
from yakgwan.appeal.citations import parse_clause_refs
from yakgwan.core.records import Chunk

EXCLUSIONS = (
    "제2조(보험금을 지급하지 않는 사유)\n회사는 아래의 사유로 생긴 손해는 보상하여 드리지 않습니다.\n"
    "1. 피보험자의 고의\n2. 보험수익자의 고의. 다만, 그 보험수익자가 일부 보험수익자인 경우에는 다른\n보험수익자에 대한 보험금은 지급합니다.\n"
    "3. 계약자의 고의\n4. 전쟁, 외국의 무력행사\n"
)
PARAGRAPHS = (
    "제5조(보험금의 지급절차)\n① 회사는 서류를 접수한 때에는 접수증을 드립니다.\n"
    "② 회사가 보험금 지급사유를 조사·확인하기 위해 필요한 경우는 다음과 같습니다.\n1. 소송제기\n2. 분쟁조정 신청\n"
    "3. 수사기관의 조사\n③ 제2항에 따라 지급기일이 연장되는 경우 회사는 그 사유를 알립니다.\n"
)


def ref(text: str):
    (r,) = parse_clause_refs(text)
    return r


@pytest.mark.unit
def test_parts_of_an_article_by_hand() -> None:
    assert article_parts(EXCLUSIONS) == ArticleParts((), {0: (1, 2, 3, 4)})
    assert article_parts(PARAGRAPHS) == ArticleParts((1, 2, 3), {2: (1, 2, 3)})
    assert article_parts("제3조(준용규정)\n이 특별약관에 정하지 않은 사항은 보통약관을 따릅니다.") == ArticleParts((), {})
    # a number inside a line is not a 호, nor is a decimal ("1.5배")
    assert article_parts("제4조(지급)\n보험금은 1. 에 따라 지급합니다.\n1.5배를 한도로 합니다.") == ArticleParts((), {})
    # chunks are read in document order, whatever order they come in
    first = Chunk("a", "p.pdf", "p.pdf", "t", PARAGRAPHS[:60], 0, 60)
    rest = Chunk("b", "p.pdf", "p.pdf", "t", PARAGRAPHS[60:], 60, len(PARAGRAPHS))
    assert parts_of_chunks([rest, first]).paragraphs == (1, 2, 3)


@pytest.mark.unit
def test_missing_part_fires_only_past_the_last_printed_number() -> None:
    ex, pa = article_parts(EXCLUSIONS), article_parts(PARAGRAPHS)
    assert missing_part(ref("벌금 특별약관 제2조 제4호"), ex) is None
    assert missing_part(ref("벌금 특별약관 제2조 제8호"), ex) == "제8호"
    assert missing_part(ref("제2조 제1항 제3호"), ex) is None  # an article without ① is its own 제1항
    assert missing_part(ref("제2조 제2항"), ex) == "제2항"
    assert missing_part(ref("제5조 제2항 제3호"), pa) is None
    assert missing_part(ref("제5조 제2항 제4호"), pa) == "제4호"
    assert missing_part(ref("제5조 ③"), pa) is None and missing_part(ref("제5조 제4항"), pa) == "제4항"
    assert missing_part(ref("제5조 제1항 제1호"), pa) == "제1호"  # ① has no 호; ② has
    assert missing_part(ref("제5조 제3호"), pa) is None  # no 항 named: any 항's 호 will do
    assert missing_part(ref("제5조"), pa) is None
    # a gap in what was read (a lost ②) never makes a part missing
    gap = ArticleParts((1, 3), {0: (1, 2, 5)})
    assert missing_part(ref("제7조 제2항"), gap) is None and missing_part(ref("제7조 제4호"), gap) is None


@pytest.mark.unit
def test_what_is_printed_sentences() -> None:
    ex, pa = article_parts(EXCLUSIONS), article_parts(PARAGRAPHS)
    assert what_is_printed(ref("제2조 제8호"), ex) == "제2조에는 제1호~제4호만 있습니다"
    assert what_is_printed(ref("제2조 제2항"), ex) == "제2조는 항으로 나뉘어 있지 않습니다"
    assert what_is_printed(ref("제5조 제4항"), pa) == "제5조에는 제1항~제3항만 있습니다"
    assert what_is_printed(ref("제5조 제2항 제7호"), pa) == "제5조 제2항에는 제1호~제3호만 있습니다"
    assert what_is_printed(ref("제5조 제1항 제1호"), pa) == "제5조 제1항에는 호가 없습니다"
    assert [listing(ns, "호") for ns in ((1, 2), (1, 2, 3), (2, 3, 4), (1, 3, 4), ())] == ["제1호, 제2호", "제1호~제3호", "제2호~제4호", "제1호, 제3호, 제4호", "없음"]


def test_a_paragraph_that_follows_its_articles_heading_on_the_line_is_read() -> None:
    """"제1조(보험금의 지급사유) ① 회사는 …": ① starts the first 항 though it does not start the line,
    so its 제3호 is there (not reported missing)."""
    parts = article_parts("제1조(보험금의 지급사유) ① 회사는 아래의 경우에 지급합니다.\n1. 결항\n2. 지연\n3. 수하물 지연\n② 보상하는 손해는 아래와 같습니다.\n1. 식비")
    assert parts.paragraphs == (1, 2) and parts.items == {1: (1, 2, 3), 2: (1,)}
    ref = parse_clause_refs("특약 제1조 제1항 제3호")[0]
    assert missing_part(ref, parts) is None


def test_a_reference_to_another_articles_paragraph_is_no_paragraph() -> None:
    parts = article_parts("제3조(보험금의 청구)\n회사는 아래에 따라 처리합니다.\n제1조 ②에서 정한 서류를 제출합니다.")
    assert parts.paragraphs == ()


# circled numbers that start again inside one article number the items of each 항's list (the 항
# marks themselves not in the text layer): a hand-built article of that shape
CIRCLED_LISTS = (
    "제2조(보험금을 지급하지 않는 사유)\n① 회사는 다음 중 어느 한 가지로 생긴 손해는 보상하지 않습니다.\n"
    "① 계약자의 고의\n② 지진, 분화\n③ 전쟁\n"
    "회사는 다음에 정한 비용은 보상하지 않습니다.\n① 선천적 질병\n② 미용 비용\n③ 목욕비용\n④ 기생충 치료비\n⑤ 과잉진료 비용\n"
)


@pytest.mark.unit
def test_circled_numbers_that_start_again_are_items_and_no_paragraph_of_them_is_missing() -> None:
    parts = article_parts(CIRCLED_LISTS)
    assert parts.circled_items and parts.items == {1: (1,), 2: (1, 2, 3), 3: (1, 2, 3, 4, 5)}
    assert missing_part(ref("제2조 제2항 제4호"), parts) is None  # which list is 제2항 cannot be read: 4 is printed
    assert missing_part(ref("제2조 제7항"), parts) is None  # the 항 marks are not read: none is missing
    assert missing_part(ref("제2조 제2항 제8호"), parts) == "제8호"  # past the last item of every list
    assert what_is_printed(ref("제2조 제2항 제8호"), parts) == "제2조 제2항에는 제1호~제3호만 있습니다"
    assert what_is_printed(ref("제2조 제9항 제8호"), parts) == "제2조에는 제1호~제5호만 있습니다"
    # one ascending run of circled numbers stays the article's 항
    assert not article_parts(PARAGRAPHS).circled_items and article_parts(PARAGRAPHS).paragraphs == (1, 2, 3)
