"""A notice's quotation against the clause it quotes (hand-built clause, the bundled analyser)."""

from __future__ import annotations

import pytest

from yakgwan.appeal.quotes import ALIGN_MIN, align, misquotes, quotations
from yakgwan.core.records import Chunk
CLAUSE = Chunk("c2", "p.pdf", "p.pdf", "t", (
    "제2조(보험금을 지급하지 않는 사유)\n회사는 다음 중 어느 하나로 생긴 손해는 보상하지 않습니다.\n"
    "1. 피보험자가 고의로 일으킨\n사고로 부과된 벌금\n"
    "2. 피보험자가 자동차를 영업 목적으로\n운전하던 중 생긴 사고. 다만, 일시적인 경우는 제외합니다.\n"
), 0, 200)


@pytest.mark.unit
def test_quotations_are_long_quoted_stretches_not_names() -> None:
    text = "「벌금 특별약관」 제2조는 “피보험자가 일으킨 사고로 부과된 벌금”을 보상하지 않는다고 정하고 '영업'이라 합니다."
    assert quotations(text) == ["피보험자가 일으킨 사고로 부과된 벌금"]  # the 약관 name and a one-word term are not quotations


@pytest.mark.unit
def test_a_faithful_quote_across_the_pdf_line_break_is_no_finding() -> None:
    s, e, agreement = align("피보험자가 고의로 일으킨 사고로 부과된 벌금", CLAUSE)
    assert agreement == 1.0 and CLAUSE.text[s:e] == "피보험자가 고의로 일으킨\n사고로 부과된 벌금"
    assert misquotes("약관은 “피보험자가 고의로 일으킨 사고로 부과된 벌금”을 보상하지 않습니다.", [CLAUSE]) == []
    # spacing and punctuation only: still faithful
    assert misquotes("“피보험자가 고의로일으킨 사고로 부과된 벌금.”", [CLAUSE]) == []


@pytest.mark.unit
def test_a_dropped_qualifier_is_stated_with_the_diff() -> None:
    (m,) = misquotes("약관은 “피보험자가 일으킨 사고로 부과된 벌금”을 보상하지 않는다고 정하고 있습니다.", [CLAUSE])
    assert m.span == "피보험자가 고의로 일으킨\n사고로 부과된 벌금" and m.span in CLAUSE.text  # verbatim, PDF line break kept
    assert m.dropped == ("고의로",) and m.added == () and ALIGN_MIN <= m.agreement < 1.0
    assert ("policy_only", " 고의로") in m.diff and all(op != "notice_only" for op, _ in m.diff)
    assert "".join(t for op, t in m.diff if op != "notice_only") == "피보험자가 고의로 일으킨 사고로 부과된 벌금"


@pytest.mark.unit
def test_an_added_condition_and_a_changed_figure_are_stated() -> None:
    (m,) = misquotes("“피보험자가 자동차를 상시 영업 목적으로 운전하던 중 생긴 사고”", [CLAUSE])
    assert m.added == ("상시",) and m.dropped == ()
    text = Chunk("c1", "p.pdf", "p.pdf", "t", "피해자가 42일 이상 치료를 요한다는 진단을 받은 경우 지급합니다.", 0, 40)
    (m,) = misquotes("“피해자가 60일 이상 치료를 요한다는 진단을 받은 경우”", [text])
    assert m.dropped == ("42일",) and m.added == ("60일",)


@pytest.mark.unit
def test_a_quote_of_some_other_text_is_not_a_misquote() -> None:
    assert misquotes("“회사는 계약자에게 보험료를 돌려드리는 절차를 안내합니다”", [CLAUSE]) == []


@pytest.mark.unit
def test_one_syllable_can_change_the_clause_a_particle_does_not() -> None:
    who = Chunk("c3", "p.pdf", "p.pdf", "t", "4. 피보험자와 생계를 같이하는 별거중인 미혼자녀", 0, 30)
    (m,) = misquotes("「피보험자와 생계를 같이하는 동거중인 미혼자녀」", [who])
    assert m.dropped == ("별거중인",) and m.added == ("동거중인",)
    assert misquotes("「피보험자가 생계를 같이하는 별거중인 미혼자녀」", [who]) == []  # 와 -> 가: a particle


@pytest.mark.unit
def test_a_quote_shortened_with_an_ellipsis_is_its_pieces() -> None:
    assert quotations("“피보험자가 자동차를 영업 목적으로 … 생긴 사고(중략)는 보상하지 않는 손해”") == ["피보험자가 자동차를 영업 목적으로"]
    assert misquotes("약관은 “피보험자가 자동차를 영업 목적으로 … 운전하던 중 생긴 사고”라고 정합니다.", [CLAUSE]) == []


def test_a_quote_that_leaves_out_a_parenthetical_gloss_is_faithful() -> None:
    text = "제2조(보험금을 지급하지 않는 사유) 8. 피보험자가 운행중인 기타교통수단에 탑승(운전을 포함합니다)하고 있을 때 발생한 사고"
    chunk = Chunk("c", "p.pdf", "p.pdf", "t", text, 0, len(text), yakgwan="X 특별약관", article="제2조")
    assert misquotes("약관은 “피보험자가 운행중인 기타교통수단에 탑승하고 있을 때 발생한 사고”라고 정합니다.", [chunk]) == []
    # a word changed beside the left-out gloss is still a misquote, stated without the gloss
    (mq,) = misquotes("약관은 “피보험자가 운행중인 자동차에 탑승하고 있을 때 발생한 사고”라고 정합니다.", [chunk])
    assert (mq.dropped, mq.added) == (("기타교통수단에",), ("자동차에",))
    # a gloss quoted and changed is a misquote
    (mq,) = misquotes("약관은 “피보험자가 운행중인 기타교통수단에 탑승(운전을 제외합니다)하고 있을 때 발생한 사고”라고 정합니다.", [chunk])
    assert mq.added and "제외합니다" in mq.added[0]


def test_a_proviso_in_parentheses_left_out_of_a_quote_is_still_a_difference() -> None:
    text = "제1조(보험금의 지급사유) 회사는 입원한 경우(다만, 통원치료는 3회를 한도로 합니다) 입원일당을 지급합니다."
    chunk = Chunk("c", "p.pdf", "p.pdf", "t", text, 0, len(text), yakgwan="X 특별약관", article="제1조")
    (mq,) = misquotes("약관은 “회사는 입원한 경우 입원일당을 지급합니다”라고 정합니다.", [chunk])
    assert mq.dropped and any("다만" in w or "통원치료는" in w for w in mq.dropped)
    # "(단, …)" opens a proviso as "(다만, …)" does: leaving it out of a quote is a difference
    item = "7. 기타 수술의 정의에 해당하지 않는 시술\n- 체외충격파쇄석술\n- 창상봉합술(단, 변연절제술을 포함한 창상봉합술은 보상)\n- 절개 또는 배농술"
    short = Chunk("s", "p.pdf", "p.pdf", "t", item, 0, len(item), yakgwan="X 특별약관", article="제1조")
    (mq,) = misquotes("「7. 기타 수술의 정의에 해당하지 않는 시술 - 체외충격파쇄석술 - 창상봉합술 - 절개 또는 배농술」", [short])
    assert any("변연절제술을" in w for w in mq.dropped)


def test_an_alternative_written_with_geona_is_the_clause_s_own_words() -> None:
    """"A하거나 B" and "A이거나 B" say what "A 또는 B" says; another word beside it still differs."""
    text = "제23조(보상하지 않는 손해) 12. 피보험자동차를 운송 또는 싣고 내릴 때에 생긴 손해"
    chunk = Chunk("c", "p.pdf", "p.pdf", "t", text, 0, len(text), yakgwan="보통약관", article="제23조")
    assert misquotes("보상하지 않는 손해 중 '피보험자동차를 운송하거나 싣고 내릴 때에 생긴 손해'가 있습니다.", [chunk]) == []
    (mq,) = misquotes("보상하지 않는 손해 중 '피보험자동차를 수리하거나 싣고 내릴 때에 생긴 손해'가 있습니다.", [chunk])
    assert mq.added and "수리하거나" in mq.added[0]
