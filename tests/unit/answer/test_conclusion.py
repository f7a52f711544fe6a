"""The sentence an offline answer leads with: the governing unit's place and its words of the kind
asked. Clauses and questions are hand-written in the style of 표준약관, not taken from a test set."""

from __future__ import annotations

import pytest

from yakgwan.answer.conclusion import carries, conclusion, document_names, figure_spans, list_items, matching_item, where, _AMOUNT, _PERIOD
from yakgwan.query.answer_type import bundled

pytestmark = pytest.mark.unit
T = bundled()
WITHDRAW = ("① 계약자는 보험증권을 받은 날부터 15일 이내에 그 청약을 철회할 수 있습니다. "
            "다만, 청약한 날부터 30일이 초과된 계약은 청약을 철회할 수 없습니다.")


def test_a_period_question_is_led_by_the_spans_that_end_in_a_count_of_time() -> None:
    said = conclusion("가입하고 며칠 안에 취소하면 돈 돌려받나요?", WITHDRAW, "보통약관", "제18조", "청약의 철회", T)
    assert said == "보통약관 제18조(청약의 철회)에 ‘계약자는 보험증권을 받은 날부터 15일 이내’, ‘청약한 날부터 30일’라고 적혀 있습니다."
    # every quoted span is the unit's own words
    assert all(" ".join(s.split()) in " ".join(WITHDRAW.split()) for s in figure_spans(WITHDRAW, _PERIOD))
    assert figure_spans("서류를 받은 날부터 3영업일 이내에 지급합니다.", _PERIOD) == ["서류를 받은 날부터 3영업일 이내"]


def test_an_amount_question_keeps_the_limit_word_and_a_unit_without_a_figure_says_nothing() -> None:
    said = conclusion("벌금은 얼마까지 나와요?", "회사는 벌금액을 2천만원 한도로 지급합니다.", "벌금 특별약관", "제1조", "보험금의 지급사유", T)
    assert said == "벌금 특별약관 제1조(보험금의 지급사유)에 ‘회사는 벌금액을 2천만원 한도’라고 적혀 있습니다."
    assert figure_spans("보험가입금액을 지급합니다.", _AMOUNT) == []
    # a figure inside a bracket is quoted from the bracket on; a closing bracket ends no clause
    assert figure_spans("도로교통법에 의한 벌금 (2천만원 한도)", _AMOUNT) == ["2천만원 한도"]
    assert figure_spans("제18조(청약의 철회)를 하지 않은 때에는 3개월 이내", _PERIOD) == ["제18조(청약의 철회)를 하지 않은 때에는 3개월 이내"]
    # the amount is not in the unit, and the title says nothing paid: no sentence rather than an invented one
    assert conclusion("얼마 받아요?", "보험가입금액을 지급합니다.", "보통약관", "제3조", "준용규정", T) is None


def test_a_documents_question_lists_the_documents_the_unit_names() -> None:
    text = "1. 청구서(회사양식) 2. 사고증명서(진료비계산서, 사망진단서 등) 3. 신분증(본인이 아닌 경우에는 본인의 인감증명서 포함)"
    assert document_names(text) == ["청구서", "사고증명서", "진료비계산서", "사망진단서", "신분증", "인감증명서"]
    said = conclusion("보험금 청구할 때 서류 뭐 내야 돼요?", text, "보통약관", "제7조", "보험금 청구서류", T)
    assert said == "보통약관 제7조(보험금 청구서류)에 낼 서류가 적혀 있습니다: 청구서, 사고증명서, 진료비계산서, 사망진단서, 신분증, 인감증명서."


def test_a_coverage_question_is_told_what_the_article_is_by_its_title() -> None:
    excl = conclusion("음주운전 사고도 보상되나요?", "1. 계약자의 고의", "보통약관", "제5조", "보험금을 지급하지 않는 사유", T)
    assert excl is not None and excl.startswith("보통약관 제5조(보험금을 지급하지 않는 사유)은(는) 보상하지 않는 경우를 정한 조항입니다.")
    pays = conclusion("골절되면 보상받을 수 있나요?", "골절로 진단확정된 경우", "골절 특별약관", "제1조", "보험금의 지급사유", T)
    assert pays is not None and "보험금을 지급하는 경우를 정한 조항" in pays
    # an article whose title plays no role, a question that asks no kind, or no place: nothing
    assert conclusion("보상되나요?", "다른 조항을 따릅니다.", "보통약관", "제40조", "준용규정", T) is None
    assert conclusion("이 조항은 무슨 뜻이에요?", WITHDRAW, "보통약관", "제18조", "청약의 철회", T) is None
    assert conclusion("며칠 안에 취소해야 해요?", WITHDRAW, None, None, None, T) is None
    assert where("보통약관", "제18조", None) == "보통약관 제18조" and where(None, None, None) == ""


EXCLUSIONS = ("회사는 아래의 사유로 생긴 손해는 보상하지 않습니다. 1. 피보험자의 고의 2. 피보험자가 사고를 내고 도주하였을 때 "
              "3. 피보험자가 경기용으로 운전하던 중 사고를 일으킨 때 4. 피보험자가 음주 상태에서 운전하던 중 사고를 일으킨 때 "
              "5. 자가용의 경우 영업목적으로 운전하던 중 생긴 사고")


def test_a_coverage_question_over_a_list_quotes_the_item_that_holds_its_own_words() -> None:
    # 음주 sits in one item; 운전 and 사고 sit in most of them and do not decide
    excl = conclusion("음주운전 사고도 보상되나요?", EXCLUSIONS, "벌금 특별약관", "제2조", "보험금을 지급하지 않는 사유", T, ("음주", "운전", "사고"))
    assert excl == ("벌금 특별약관 제2조(보험금을 지급하지 않는 사유)의 4. ‘피보험자가 음주 상태에서 운전하던 중 사고를 일으킨 때’에 "
                    "해당하면 보험금이 지급되지 않습니다.")
    pays = conclusion("뼈가 부러지면 보상되나요?", "① 회사는 다음의 보험금을 지급합니다. 1. 골절진단비: 골절로 진단확정된 때 2. 입원일당: 입원한 때",
                      "보통약관", "제3조", "보험금의 지급사유", T, ("골절", "진단"))
    assert pays == "보통약관 제3조(보험금의 지급사유)은(는) 보험금을 지급하는 경우를 정한 조항이며, 질문에 닿는 부분은 1. ‘골절진단비: 골절로 진단확정된 때’입니다."


def test_no_item_is_quoted_when_the_words_sit_in_none_or_in_two_items_alike() -> None:
    general = "보상하지 않는 경우를 정한 조항입니다."
    for terms in ((), ("태풍",), ("운전",), ("도주", "경기용")):  # none; none holds it; most hold it; two items tie
        said = conclusion("이것도 보상되나요?", EXCLUSIONS, "보통약관", "제5조", "보험금을 지급하지 않는 사유", T, terms)
        assert said is not None and general in said, terms
    assert list_items("1. 가 2. 나 ① 다") == [("1.", "가"), ("2.", "나"), ("①", "다")]
    assert list_items("조항 1.5배") == [] and matching_item("1. 고의", ("고의",)) is None  # a decimal is no mark; one item is no list
    # only 가. 나. 다. … are marks: a word with a full stop ("등.", "때.") is not
    assert list_items("1. 전쟁, 혁명 등. 때. 2. 고의 가. 음주") == [("1.", "전쟁, 혁명 등. 때."), ("2.", "고의"), ("가.", "음주")]
    long = matching_item("1. " + "가나다 " * 40 + "음주 2. 고의", ("가나다라", "가나다"))
    assert long is not None and long[1].endswith(" …") and len(long[1]) <= 92


def test_a_unit_carries_a_kind_when_it_holds_that_kinds_words() -> None:
    assert carries("청약을 받은 날부터 15일 이내에 철회할 수 있습니다.", frozenset({"period"}))
    assert carries("1사고당 2천만원 한도로 지급합니다.", frozenset({"amount"}))
    assert carries("진단서와 사고증명서를 내야 합니다.", frozenset({"documents"}))
    assert not carries("다툼이 있으면 회사가 증명합니다.", frozenset({"period", "amount", "documents"}))
    assert not carries("15일 이내에 철회할 수 있습니다.", frozenset({"amount"}))  # a period is no amount
    assert not carries("15일 이내에 철회할 수 있습니다.", frozenset({"paid", "who"}))  # kinds no words carry


def test_the_measures_of_time_a_text_counts_in_and_a_question_asks_in() -> None:
    from yakgwan.answer.conclusion import asked_measures, measures

    assert measures("청구권은 3년간 행사하지 않으면, 서류를 받은 날부터 3영업일 이내에") == {"년", "일"}
    assert measures("2주일 또는 48시간 안에, 6개월마다") == {"주", "시간", "개월"}
    assert measures("보험기간 중에 발생한 사고") == frozenset()  # no count of time
    assert asked_measures("4년 전에 다쳤는데 지금 청구해도 되나요?") == {"년"}  # the question's own count
    assert asked_measures("가입하고 며칠 안에 취소하면?") == {"일"} and asked_measures("몇 달 지나면 끊기나요?") == {"개월"}
    assert asked_measures("몇 년 동안 유효한가요") == {"년"} and asked_measures("몇일까지") == {"일"}
    assert asked_measures("언제까지 청구해야 하나요?") == frozenset()  # a period asked, in no measure
