"""A clause's numeric conditions against the figures a notice states (hand-built texts, the
bundled analyser)."""

from __future__ import annotations

import math

import pytest

from yakgwan.appeal.figures import check, conditions
from yakgwan.text.registry import make_tokenizer

TOK = make_tokenizer("mecab")
CLAUSE = "2. 중대법규위반 교통사고로 피해자가 42일(피해자 1인을 기준으로 합니다) 이상 치료를 요한다는 진단을 받은 경우"


@pytest.mark.unit
def test_conditions_read_bounds_ranges_and_units() -> None:
    got = [(c.low, c.high, c.low_in, c.high_in, c.unit, c.bounded) for c in conditions(
        CLAUSE + ". 상해급수 1급부터 3급까지. 혈중알코올농도 0.03% 미만. 만 15세 이하. 1년 이내. 치료기간 3주(21일)")]
    assert got == [
        (42.0, math.inf, True, False, "일", True),
        (1.0, 3.0, True, True, "급", True),
        (-math.inf, 0.03, False, False, "%", True),
        (-math.inf, 15.0, False, True, "세", True),
        (-math.inf, 12.0, False, True, "개월", True),  # 년 counted in months
        (21.0, 21.0, True, True, "일", False),  # 3주 as 21일, its "(21일)" the same fact
    ]


@pytest.mark.unit
def test_dates_and_article_numbers_are_not_figures() -> None:
    assert conditions("2024년 12월 3일 사고, 2025.01.06 청구, 제2조 제3항 제8호, 3월 1일") == []


@pytest.mark.unit
def test_a_fact_below_the_threshold_the_notice_relies_on_holds() -> None:
    notice = "피해자의 진단기간이 3주(21일)로 확인되었습니다. 피해자가 42일 이상 치료가 필요한 경우에 지급하므로 진단기간이 이에 미치지 못하여 지급하지 않습니다."
    (fc,) = check(notice, CLAUSE, TOK)
    assert fc.notice.low == 21.0 and fc.met is False and not fc.misstated and "진단" in fc.shared


@pytest.mark.unit
def test_a_fact_that_meets_the_threshold_is_stated() -> None:
    notice = "피해자는 6주 치료가 필요하다는 진단을 받았으나, 사고일부터 계산한 치료기간이 42일에 미치지 못하여 지급하지 않습니다."
    (fc,) = check(notice, CLAUSE, TOK)  # "42일에" restates the threshold: not a second fact; 6주 is one
    assert fc.notice.low == 42.0 and fc.met is True


@pytest.mark.unit
def test_a_threshold_restated_wrong_is_misstated_and_right_is_nothing() -> None:
    (fc,) = check("피해자가 60일 이상 치료를 요하는 진단을 받은 경우에만 지급합니다.", CLAUSE, TOK)
    assert fc.misstated and fc.met is None
    assert check("피해자가 42일 이상 치료를 요하는 진단을 받은 경우에만 지급합니다.", CLAUSE, TOK) == []


@pytest.mark.unit
def test_figures_not_relied_on_or_disagreeing_say_nothing() -> None:
    # a 10주 diagnosis mentioned while the denial rests on another ground
    assert check("피해자는 10주 진단을 받았습니다. 그러나 피해자가 피보험자의 모친이어서 지급하지 않습니다.", CLAUSE, TOK) == []
    # two diagnoses, one meeting the condition and one not: the arithmetic is open
    notice = "최초 진단은 치료기간 4주, 추가 진단은 치료기간 8주입니다. 최초 진단이 42일에 미치지 못하여 지급하지 않습니다."
    assert check(notice, CLAUSE, TOK) == []
    # a figure of another count (no shared term) is not compared
    assert check("입원 50일이 지나 청구하셨습니다.", CLAUSE, TOK) == []


@pytest.mark.unit
def test_when_facts_disagree_the_figures_quoted_from_a_document_decide() -> None:
    notice = ("진단서: \"향후 치료기간 9주를 요함\"\n당사가 진단서의 치료기간을 다시 세어 보니 치료기간 40일이므로 42일에 미치지 못하여 지급하지 않습니다.")
    (fc,) = check(notice, CLAUSE, TOK)
    assert fc.quoted and fc.met is True and fc.notice.text.startswith("9주")  # the document's 9주 meets 42일 이상
    # quoted figures that disagree with each other leave it open as before
    both = "진단서: “치료기간 4주”, 추가 진단서: “치료기간 8주”. 치료기간이 42일에 미치지 못하여 지급하지 않습니다."
    assert check(both, CLAUSE, TOK) == []


@pytest.mark.unit
def test_a_list_restated_short_is_misstated_and_a_listed_fact_meets_it() -> None:
    clause = "자동차손해배상보장법 시행령에서 정한 상해급수 1급, 2급 또는 3급에 해당하는 부상을 입힌 경우"
    (c,) = conditions(clause)
    assert c.values == frozenset({1.0, 2.0, 3.0}) and c.meets(3.0) and not c.meets(2.5)
    (fc,) = check("시행령에서 정한 상해급수 1급 또는 2급에 해당하는 부상을 입힌 경우에 지급합니다.", clause, TOK)
    assert fc.misstated
    assert check("상해급수 1급, 2급 또는 3급에 해당하는 부상을 입힌 경우에 지급합니다.", clause, TOK) == []
    (fc,) = check("피해자의 부상은 상해급수 3급으로 기준에 미치지 못합니다.", clause, TOK)
    assert fc.met is True


@pytest.mark.unit
def test_a_visit_is_no_bound_and_a_fact_is_compared_with_its_own_condition() -> None:
    assert [(c.text, c.bounded) for c in conditions("2회 내원하여 치료를 받았습니다.")] == [("2회", False)]
    both = "사고일부터 180일 이내에 피해자가 치료기간 42일 이상의 진단을 받은 경우"
    (fc,) = check("피해자의 치료기간 28일 진단은 기준에 미치지 못하여 지급하지 않습니다.", both, TOK)
    assert fc.met is False and [r.text for r in fc.clause] == ["42일 이상"]  # not "180일 이내", which 28 meets


@pytest.mark.unit
def test_a_figure_counted_from_a_point_the_notice_names_is_not_the_clauses_count() -> None:
    """"그로부터 9일이 지난": nine days past the 90th day, not a trip of nine days."""
    clause = "그 기간이 90일을 넘으면 출발한 때부터 90일까지만 해외여행 중으로 봅니다."
    notice = "출국일부터 90일째인 12월 31일까지가 해외여행 중이며, 파손은 그로부터 9일이 지난 1월 9일에 일어났으므로 보상하지 않습니다."
    assert check(notice, clause, TOK) == []
    assert [fc.met for fc in check("파손은 출발한 때부터 9일이 지난 때에 일어났으므로 보상하지 않습니다.", clause, TOK)] == [True]  # counted from the start: a fact


@pytest.mark.unit
def test_within_written_as_an_ne_is_a_bound() -> None:
    """"12시간 안에" is "12시간 이내": a threshold restated, compared with the clause's."""
    (c,) = conditions("예정 도착시각부터 12시간 안에 도착하지 않은 경우")
    assert (c.low, c.high, c.bounded) == (-math.inf, 12.0, True)
    (fc,) = check("수하물이 12시간 안에 도착하지 않은 경우를 지급사유로 하므로 보상하지 않습니다.", "수하물이 예정된 도착시간으로부터 6시간이내에 도착하지 못하는 경우", TOK)
    assert fc.misstated


@pytest.mark.unit
def test_lengths_in_letters_or_signs_are_one_unit() -> None:
    """A scar's length: "3cm이상" in the clause, "5㎝ 이상" restated in the notice, "4.0㎝" the fact."""
    clause = "상지, 하지 수술 1cm당 10만원(단, 3cm이상의 경우에 한함)"
    got = {fc.notice.text: (fc.misstated, fc.met) for fc in check(
        "상지·하지는 수술 길이가 5㎝ 이상인 경우에만 지급하므로, 수술 길이 4.0㎝인 이번 수술은 지급 기준에 미치지 못합니다.", clause, TOK)}
    assert got == {"5㎝ 이상": (True, None), "4.0㎝": (False, True)}
    assert [(c.low, c.unit) for c in conditions("흉터 길이 25mm")] == [(2.5, "cm")]


@pytest.mark.unit
def test_a_figure_counted_from_the_clauses_own_start_is_a_fact() -> None:
    clause = "사고일부터 180일 이내에 사망한 경우에 지급합니다."
    (fc,) = check("사고일 이후 200일이 지난 때에 사망하여 180일 이내가 아니므로 지급하지 않습니다.", clause, TOK)
    assert fc.notice.low == 200.0 and fc.met is False


@pytest.mark.unit
def test_a_fact_against_a_tables_rows_on_both_sides_of_a_figure_is_no_arithmetic() -> None:
    """"90일 이하 50% / 90일 초과 100%": the notice's 45일 picks a row; it meets no condition of payment."""
    clause = "질병으로 인한 치료: 보험계약일부터 90일 이하 지급 없음, 90일 초과 지급금액의 100%"
    assert [fc for fc in check("계약일부터 세면 진단은 45일째로 90일이 지나지 않아 보장이 시작되지 않았으므로 지급하지 않습니다.", clause, TOK) if fc.met is not None] == []


@pytest.mark.unit
def test_a_templates_alternatives_are_each_a_condition_and_no_date() -> None:
    """"만 21/24/26/30세 미만": the contract takes one of them, so a notice that restates any of
    them restates the clause; "2025/1/15" (not ascending) stays a date."""
    clause = "① 회사는 피보험자동차를 만 21/24/26//30/35/43/48세 미만인 사람이 운전하던 중 생긴 손해는 보상하지 않습니다."
    got = [(c.high, c.unit, c.bounded) for c in conditions(clause)]
    assert got == [(float(a), "세", True) for a in (21, 24, 26, 30, 35, 43, 48)]
    notice = "운전자는 사고일 현재 만 25세로, 만 26세 이상 운전자한정 특약의 연령에 미치지 못하여 보상하지 않습니다."
    checks = check(notice, clause, TOK)
    assert not [fc for fc in checks if fc.misstated] and [fc.met for fc in checks] == [True]
    assert "27세 이상" in [" ".join(fc.notice.text.split()) for fc in check(notice.replace("26세", "27세"), clause, TOK) if fc.misstated]
    assert conditions("2025/1/15일 사고") == []


@pytest.mark.unit
def test_a_count_that_must_have_passed_is_a_lower_bound_in_a_clause_only() -> None:
    clause = "④ 치료가 종료된 날부터 그날을 포함하여 180일이 경과하여 촬영을 받았을 때에는 새로운 질병으로 보아 지급합니다."
    (c,) = conditions(clause, clause=True)
    assert (c.low, c.high, c.low_in, c.bounded) == (180.0, math.inf, True, True)
    (c,) = conditions(clause)  # read as a notice: a fact
    assert (c.low, c.high, c.bounded) == (180.0, 180.0, False)
    assert [c.bounded for c in conditions("사고 후 14개월이 지나 알리셨습니다.")] == [False]  # a notice's "지나" is a fact


@pytest.mark.unit
def test_a_count_between_two_dates_the_notice_gives_is_counted_from_them() -> None:
    clause = "④ 치료가 종료된 날부터 그날을 포함하여 180일이 경과하여 촬영을 받았을 때에는 새로운 질병으로 보아 지급합니다."
    wrong = "직전 치료 종료일(2025.01.21)부터 이번 촬영일(2025.08.12)까지는 171일로 180일이 지나지 않아 새로운 질병으로 볼 수 없습니다."
    (fc,) = check(wrong, clause, TOK)
    assert fc.notice.low == 203.0 and fc.met is True and "통지서의 날짜로는 203일" in fc.notice.text  # 1/21 -> 8/12 by hand: 10+28+31+30+31+30+31+12
    right = "직전 치료 종료일(2025.01.21)부터 이번 촬영일(2025.06.20)까지는 150일로 180일이 지나지 않아 새로운 질병으로 볼 수 없습니다."
    (fc,) = check(right, clause, TOK)
    assert fc.notice.low == 150.0 and fc.met is False  # 1/21 -> 6/20 is 150 days: the count stands
    # a count not tied to the two dates ("까지" far from it, or no "부터") is left as written
    loose = "2025.01.21 치료 종료, 2025.08.12 촬영. 경과일수는 171일로 180일이 지나지 않았습니다."
    (fc,) = check(loose, clause, TOK)
    assert fc.notice.low == 171.0


@pytest.mark.unit
def test_a_figure_in_a_tokyaks_name_is_no_threshold_the_notice_states() -> None:
    clause = "① 피해자가 70일 이상 139일 이하의 치료를 요한다는 진단을 받은 경우 지급합니다."
    notice = "가입하신 대인형사합의실손비Ⅲ(중대법규위반,42일미만,운전자용) 특별약관은 치료 기간이 짧은 경우를 보장하며 이 건은 지급 기준에 미치지 못합니다."
    assert check(notice, clause, TOK) == []
    assert [fc.misstated for fc in check("피해자가 42일 미만의 치료를 요하는 진단을 받은 경우만 지급합니다.", clause, TOK)] == [True]
