"""The kind of answer a question asks for, and the articles whose titles give it (hand-written
questions in general Korean, none from a test set)."""

from __future__ import annotations

import pytest

from yakgwan.query.answer_type import AnswerTypes, answers_kind, asked_kinds, asks_whole_list, bundled, last_clause, title_roles

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("question, kinds", [
    ("입원하면 보험금이 나오나요?", {"paid"}),
    ("골절도 보상받을 수 있나요?", {"paid"}),
    ("이웃집 유리창을 깼는데 보험에서 물어줄 수 있나요?", {"paid"}),
    ("보험금 청구할 때 어떤 서류가 필요해요?", {"documents"}),
    ("청구는 언제까지 해야 하나요?", {"period"}),
    ("3년 전에 다친 것도 받을 수 있나요?", {"period"}),  # time gone by: the ask is the deadline, not the cover
    ("수술비 한도가 얼마예요?", {"amount"}),
    ("얼마나 받을 수 있어요?", {"amount"}),
    ("이 약관의 목적은 무엇인가요?", set()),
    ("계약을 해지할 수 있나요?", set()),
    ("사고가 나면 보험금은 누가 받아요?", {"who"}),
    ("보험금 청구는 어떻게 해야 하나요?", {"how"}),
    ("계약 해지 방법 좀 알려주세요", {"how"}),
    ("'중대한 과실'이 무슨 뜻이에요?", {"term"}),
    ("누가 내 자전거를 가져갔는데 보상받을 수 있나요?", {"paid"}),  # 누가 before -는데 says "someone"
    ("친구가 운전하면, 누가 보상받아요?", {"who"}),  # the last clause asks
    ("보험금 청구는 어떻게 하면 되나요?", {"how"}),
    ("사고가 나면 누구에게 연락하면 되나요?", {"who"}),
    ("누가 제 차를 긁고 갔어요. 보상되나요?", {"paid"}),
    ("보험금의 미지급분은 언제 받나요?", set()),  # "의 미…" across words is no 의미
    ("뜻밖의 사고로 다쳤어요 보상되나요?", {"paid"}),  # 뜻밖 is no 뜻
])
def test_the_kind_of_answer_a_question_asks_for(question: str, kinds: set[str]) -> None:
    assert asked_kinds(question, bundled()) == frozenset(kinds)


def test_cues_match_across_spacing() -> None:
    assert asked_kinds("보상 받을 수 있 나요", bundled()) == asked_kinds("보상받을수있나요", bundled()) == frozenset({"paid"})


@pytest.mark.parametrize("title, roles", [
    ("보험금의 지급사유", {"pays"}),
    ("보상하는 손해", {"pays"}),
    ("보험금을 지급하지 않는 사유", {"excludes"}),
    ("보상하지 않는 손해", {"excludes"}),
    ("보험금의 청구", {"claim", "procedure"}),
    ("소멸시효", {"timing"}),
    ("보험금의 지급절차", {"timing", "procedure"}),
    ("보험수익자의 지정", {"persons"}),
    ("용어의 정의", {"definitions"}),
    ("보상한도", {"sums"}),
    ("약관교부 및 설명의무 등", set()),
    (None, set()),
])
def test_an_articles_role_comes_from_its_title(title: str | None, roles: set[str]) -> None:
    assert title_roles(title, bundled()) == frozenset(roles)


def test_a_coverage_question_is_answered_by_the_paying_and_the_excluding_articles() -> None:
    t = bundled()
    paid = asked_kinds("다쳐서 병원에 갔는데 보험금 나오나요?", t)
    assert answers_kind("보험금의 지급사유", paid, t) and answers_kind("보험금을 지급하지 않는 사유", paid, t)
    assert not answers_kind("보험금의 청구", paid, t) and not answers_kind("보험금의 지급사유", frozenset(), t)
    docs = asked_kinds("무슨 서류를 내야 하나요?", t)
    assert answers_kind("보험금의 청구", docs, t) and not answers_kind("보험금의 지급사유", docs, t)


@pytest.mark.parametrize("question, tail", [
    ("누가 훔쳐 갔는데 보상되나요?", " 보상되나요"),
    ("누가 훔쳐간 건데 보상되나요?", " 보상되나요"),  # -ㄴ데 on any syllable with a final ㄴ
    ("운전하다 다쳤어요, 누가 받나요?", " 누가 받나요"),
    ("누가 제 차를 긁고 갔어요. 보상되나요?", " 보상되나요"),  # a sentence ends a clause
    ("사고 나면 누가 받나요?", " 누가 받나요"),
    ("어떻게 하면 되나요?", "어떻게 하면 되나요"),  # -면 되다 asks in its -면 clause
    ("누가 받나요?", "누가 받나요"),
])
def test_the_last_clause_starts_after_the_last_connective_ending_or_comma(question: str, tail: str) -> None:
    assert last_clause(question) == tail


def test_a_lexicon_that_wants_an_unknown_role_or_answers_an_unasked_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown role 'nope'"):
        AnswerTypes.from_json({"asks": {"paid": ["나오나"]}, "roles": {"pays": ["지급사유"]}, "answers": {"paid": ["nope"]}})
    with pytest.raises(ValueError, match="no cue asks"):
        AnswerTypes.from_json({"asks": {}, "roles": {"pays": ["지급사유"]}, "answers": {"paid": ["pays"]}})
    with pytest.raises(ValueError, match="last_clause names kinds no cue asks: who"):
        AnswerTypes.from_json({"asks": {}, "roles": {}, "answers": {}, "last_clause": ["who"]})


def test_a_piece_gives_the_kind_of_its_articles_title_unless_it_is_a_quoted_law() -> None:
    from yakgwan.core.records import Chunk
    from yakgwan.query.answer_type import piece_gives

    t = bundled()
    period = asked_kinds("언제까지 청구해야 하나요?", t)
    own = Chunk("a", "p.pdf", "p.pdf", "p", "3년간 행사하지 않으면 …", 0, 10, (25,), yakgwan="보통약관", article="제35조", article_title="소멸시효")
    law = Chunk("b", "p.pdf", "p.pdf", "p", "3년간 행사하지 아니하면 …", 0, 10, (90,), article="제662조", article_title="소멸시효", kind="law")
    assert piece_gives(own, period, t) and not piece_gives(law, period, t) and not piece_gives(own, frozenset({"documents"}), t)


@pytest.mark.parametrize("question, whole", [
    ("지사는 몇 개인가요?", True), ("직원이 몇 명이에요", True), ("어떤 팀들이 있나요?", True), ("상품 종류를 알려 주세요", True),
    ("모든 서류를 나열해 주세요", True), ("필요한 서류 전부 뭐예요", True),
    ("부산 지사 직원 수는?", False), ("며칠 안에 내야 하나요?", False), ("몇 년 지났는데 받을 수 있나요", False),
])
def test_a_question_that_asks_for_every_member_of_a_list(question: str, whole: bool) -> None:
    assert asks_whole_list(question, bundled()) is whole
