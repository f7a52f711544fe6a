"""Keyword matching for answers: numbers compared by value, spellings of one number counted once."""

from __future__ import annotations

import pytest

from yakgwan.eval.keywords import amount_value, canonical, keyword_groups, keyword_recall


@pytest.mark.parametrize(
    ("run", "value"),
    [
        ("1억5천만", 150_000_000),
        ("5천2백만", 52_000_000),
        ("20만", 200_000),
        ("20억", 2_000_000_000),
        ("3만5천", 35_000),
        ("100만5천", 1_005_000),
        ("2억7천만", 270_000_000),
        ("1억", 100_000_000),
        ("7", 7),
        ("2.5억", 250_000_000),
        ("0.5만", 5_000),
        ("1조2천억", 1_200_000_000_000),
        ("1억 5천만", 150_000_000),
    ],
)
def test_amount_value_by_hand(run: str, value: int) -> None:
    assert amount_value(run) == value


@pytest.mark.parametrize("bad", ["", "억", "1만억", "1억2억", "1a", "1억만", "1 2"])
def test_amount_value_refuses_what_is_no_amount(bad: str) -> None:
    with pytest.raises(ValueError):
        amount_value(bad)


def test_canonical_drops_spaces_and_separators_and_reads_korean_amounts() -> None:
    assert canonical("연봉 1억 5천만원, 고객 52,000명") == "연봉150000000원,고객52000명"
    # dates, years and a number without a unit are left as written; a list comma stays
    assert canonical("2008년 3월 15일, 1,2,3") == "2008년3월15일,1,2,3"
    assert canonical("1,590,000원") == "1590000원"
    assert canonical("천만에요 백화점") == "천만에요백화점"  # a unit word not after a digit is a word
    assert canonical("2.5억원과 0.5만") == "250000000원과5000"
    assert canonical("30 만기") == "30만기"  # a number then a space then 만기: no amount
    assert canonical("1억 2024년") == "100000000 2024년"  # two numbers stay two
    assert canonical("직원 20 30") == "직원20 30"


def test_groups_join_only_spellings_of_one_number() -> None:
    assert keyword_groups(["52,000명", "52000명"]) == [["52,000명", "52000명"]]
    assert keyword_groups(["150,000,000원", "1억 5천만원", "150000000"]) == [["150,000,000원", "1억 5천만원", "150000000"]]
    assert keyword_groups(["12개월", "1년"]) == [["12개월"], ["1년"]]
    assert keyword_groups(["5명", "5개"]) == [["5명"], ["5개"]]
    assert keyword_groups(["$25", "25달러"]) == [["$25"], ["25달러"]]
    assert keyword_groups(["2008년", "3월 15일"]) == [["2008년"], ["3월 15일"]]
    assert keyword_groups(["45명", "20", "6", "5", "6"]) == [["45명"], ["20"], ["6", "6"], ["5"]]
    # a bare number joins a spelled one, and then takes its affixes: 5 and 5개 do not join via 5명
    assert keyword_groups(["5", "5명", "5개"]) == [["5", "5명"], ["5개"]]


def test_keyword_recall_by_hand() -> None:
    # one fact in three spellings, found once: 1/1
    assert keyword_recall("현재 연봉: 150,000,000원", ["150,000,000원", "1억 5천만원", "150000000"]) == 1.0
    assert keyword_recall("연봉은 1억 5천만 원입니다", ["150,000,000원", "150000000"]) == 1.0
    # two facts, one found: 1/2
    assert keyword_recall("설립일은 2008년입니다", ["2008년", "3월 15일"]) == 0.5
    # four groups (45명, 20, 6 twice, 5), three found: 3/4
    assert keyword_recall("본사 20명, 부산 6명, 대구 5명", ["45명", "20", "6", "5", "6"]) == pytest.approx(3 / 4)
    assert keyword_recall("아무 말", []) is None
    assert keyword_recall("아무 말", ["없는 말"]) == 0.0
    # a number keyword never matches inside a longer number
    assert keyword_recall("매출 15억원", ["5억원"]) == 0.0
    assert keyword_recall("2.5억원", ["5억원"]) == 0.0 and keyword_recall("2.5억원", ["250,000,000원"]) == 1.0
    assert keyword_recall("연봉 120,000,000원", ["2천만원"]) == 0.0
    assert keyword_recall("본사 20명", ["20"]) == 1.0 and keyword_recall("2020년", ["20"]) == 0.0
