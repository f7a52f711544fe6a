"""Questions about two named things and one quantity: parsing, each side's sentence, and the
choice, difference, sum or percentage change computed by rule (values by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.services.context import open_context

from yakgwan.services.ingest import ingest
from yakgwan.answer.anchors import Anchor, AnchorFinder
from yakgwan.answer.ask import Asker
from yakgwan.answer.compare import Asked, compared, side_queries, two_sided, value_of
from yakgwan.answer.extract import ExtractiveAnswerer
from yakgwan.answer.records import Sentence
from yakgwan.config import EmbedderConfig, Settings
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.core.records import Chunk
from yakgwan.text.registry import make_tokenizer

_FINDER = AnchorFinder()


def _terms(text: str, verbal: bool = False) -> list[Anchor]:
    return _FINDER.terms(text, verbal)


def _table(title: str, section: str, *rows: str) -> list[Sentence]:
    text = "\n".join(rows)
    chunk = Chunk(title[:4], f"{title}.md", f"{title}.md", title, text, 0, len(text), section=section)
    return [Sentence("", chunk, r) for r in rows]


def _numbered(*groups: list[Sentence]) -> dict[str, Sentence]:
    out: dict[str, Sentence] = {}
    for s in (s for g in groups for s in g):
        n = str(len(out) + 1)
        out[n] = Sentence(n, s.chunk, s.text)
    return out


JEJU = _table("제주 힐링 3박4일", "제주 힐링 3박4일 > 가격 안내 > 기본 가격 (1인 기준)",
              "| 시즌 | 성인 | 아동 (만 12세 미만) |", "|---|---|---|", "| 비수기 (3-5월, 9-11월) | 549,000원 | 449,000원 |",
              "| 성수기 (7-8월, 12-2월) | 749,000원 | 649,000원 |", "| 연휴 (설/추석) | 849,000원 | 749,000원 |")
DANANG = _table("베트남 다낭 4박5일", "베트남 다낭 4박5일 > 가격 안내 > 기본 가격 (1인 기준)",
                "| 시즌 | 성인 | 아동 (만 12세 미만) |", "|---|---|---|", "| 비수기 (5-9월) | 890,000원 | 790,000원 |",
                "| 성수기 (10-4월) | 1,190,000원 | 1,050,000원 |")


@pytest.mark.unit
def test_what_a_question_about_two_named_things_asks() -> None:
    assert two_sided("제주 힐링 비수기와 성수기 가격 차이는 얼마인가요?") == Asked("difference", "제주 힐링 비수기", "성수기", "가격")
    # 의 ends side B: "부산 지사" stays whole
    assert two_sided("서울 본사와 부산 지사의 직원 수 차이는 몇 명인가요?") == Asked("difference", "서울 본사", "부산 지사", "직원 수")
    assert two_sided("김하늘 대표와 박민수 COO의 연봉 합계는 얼마인가요?") == Asked("sum", "김하늘 대표", "박민수 COO", "연봉")
    assert two_sided("몰디브 워터빌라에 풀보드 업그레이드를 추가하면 총 가격은?") == Asked("sum", "몰디브 워터빌라", "풀보드 업그레이드", "가격은")
    assert two_sided("제주 힐링 연휴 가격은 비수기 대비 몇 % 높은가요?") == Asked("ratio", "제주 힐링 연휴", "비수기", "가격", 1, "높습니다")
    assert two_sided("권나라와 송민지 중 누가 더 높은 연봉을 받나요?") == Asked("choice", "권나라", "송민지", "누가 더 높은 연봉을 받나요?", 1, "높습니다")
    # dates are the model's; one thing, or no quantity, is no such question
    assert two_sided("김하늘 대표와 박민수 COO의 입사 시기 차이는 얼마인가요?") is None
    assert two_sided("김하늘 대표의 연봉은 얼마인가요?") is None
    assert two_sided("부산 지사와 제주 지사 중 먼저 개설된 곳은?") is None


@pytest.mark.unit
def test_months_and_row_labels_are_no_quantities() -> None:
    by = _numbered(JEJU)
    # no column is named 가격: the first number after the row's label cell, months blanked
    assert value_of(by["3"], ["가격"]) == (549000.0, "549,000원", "원")
    assert value_of(by["3"], ["아동"]) == (449000.0, "449,000원", "원")  # the column that names it
    row = _table("t", "s", "| 구분 | 요금 |", "|---|---|", "| 유아 (만 2세 미만) | 150,000원 |")
    assert value_of(_numbered(row)["3"], ["가격"]) == (150000.0, "150,000원", "원")


@pytest.mark.unit
def test_a_difference_a_sum_and_a_percentage_change_are_computed_from_the_two_quoted_rows() -> None:
    by = _numbered(JEJU, DANANG)
    diff = compared("제주 힐링 비수기와 성수기 가격 차이는 얼마인가요?", by, _terms)
    assert diff is not None and diff.outcome == "answered" and diff.quoted
    # 성수기 takes 제주 힐링 from the other side: 다낭's 성수기 row is not 제주's
    assert [c.quote for c in diff.citations] == [by["3"].text, by["4"].text]
    assert diff.answer.endswith("차이는 200,000원입니다 (749,000원 − 549,000원).")  # 749,000 − 549,000 = 200,000
    other = compared("베트남 다낭 비수기와 성수기 가격 차이는 얼마인가요?", by, _terms)
    assert other is not None and other.answer.endswith("차이는 300,000원입니다 (1,190,000원 − 890,000원).")
    ratio = compared("제주 힐링 연휴 가격은 비수기 대비 몇 % 높은가요?", by, _terms)
    # (849,000 − 549,000) ÷ 549,000 = 0.54645 → 54.6 %, about 55 %
    assert ratio is not None and ratio.answer.endswith("약 55% 높습니다 ((849,000원 − 549,000원) ÷ 549,000원 = +54.6%).")
    lower = compared("제주 힐링 비수기 가격은 연휴 대비 몇 % 높은가요?", by, _terms)
    # (549,000 − 849,000) ÷ 849,000 = −0.35336: lower, and said so
    assert lower is not None and lower.answer.endswith("약 35% 낮습니다 ((549,000원 − 849,000원) ÷ 849,000원 = -35.3%).")
    maldives = _numbered(_table("몰디브 허니문 6박7일", "몰디브 허니문 6박7일 > 가격 안내 > 기본 가격", "※ 위 가격은 워터빌라 5,990,000원 상품 기준입니다."),
                         _table("몰디브 허니문 6박7일", "몰디브 허니문 6박7일 > 가격 안내 > 미포함 추가 비용",
                                "| 항목 | 비용 | 비고 |", "|---|---|---|", "| 풀보드 업그레이드 | +800,000원 | 중식/석식 추가 |"))
    total = compared("몰디브 워터빌라에 풀보드 업그레이드를 추가하면 총 가격은?", maldives, _terms)
    assert total is not None and total.answer.endswith("합계는 6,790,000원입니다 (5,990,000원 + 800,000원).")
    # the same written unit is kept: 20억원 + 15억원 = 35억원; units that differ are not computed
    contracts = _numbered(_table("삼성전자 계약", "삼성전자 > 계약 개요", "- 계약 금액: 연간 20억원"), _table("현대자동차 계약", "현대자동차 > 계약 개요", "- 계약 금액: 연간 15억원"))
    both = compared("삼성전자 계약과 현대자동차 계약의 금액 합계는 얼마인가요?", contracts, _terms)
    assert both is not None and both.answer.endswith("합계는 35억원입니다 (20억원 + 15억원).")
    dollars = _numbered(_table("삼성전자 계약", "삼성전자 > 계약 개요", "- 계약 금액: 연간 20억원"), _table("현대자동차 계약", "현대자동차 > 계약 개요", "- 계약 금액: 연간 15 달러"))
    assert compared("삼성전자 계약과 현대자동차 계약의 금액 합계는 얼마인가요?", dollars, _terms) is None
    # a side no shown sentence states: nothing computed
    assert compared("제주 힐링 비수기와 준성수기 가격 차이는 얼마인가요?", by, _terms) is None


@pytest.mark.unit
def test_sides_that_differ_by_year_are_stated_by_rows_of_their_years() -> None:
    kim = _table("김하늘 (Kim Haneul)", "김하늘 > 보상 정보 > 연봉", "- **성과급**: 30,000,000원 (2024년 예상)",
                 "| 연도 | 연봉 | 비고 |", "|---|---|---|", "| 2020 | 100,000,000원 | 자진 삭감 |", "| 2024 | 150,000,000원 | 현재 |")
    by = _numbered(kim)
    done = compared("김하늘 대표의 2020년과 2024년 연봉 차이는 얼마인가요?", by, _terms)
    assert done is not None and [c.quote for c in done.citations] == [by["4"].text, by["5"].text]
    assert done.answer.endswith("차이는 50,000,000원입니다 (150,000,000원 − 100,000,000원).")
    # without the 2024 row, the 성과급 line that mentions 2024 does not state a 2024 연봉
    assert compared("김하늘 대표의 2020년과 2024년 연봉 차이는 얼마인가요?", {k: v for k, v in by.items() if k != "5"}, _terms) is None


@pytest.mark.unit
def test_a_choice_whose_quantity_both_sides_name_and_a_name_the_tagger_misses() -> None:
    visits = _numbered(_table("권나라 (Kwon Nara)", "권나라 > 개인 정보", "- 일본 방문 횟수: 120회 이상"),
                       _table("강지훈 (Kang Jihoon)", "강지훈 > 몰디브 전문가", "- 몰디브 방문 횟수: 25회"))
    done = compared("권나라의 일본 방문 횟수와 강지훈의 몰디브 방문 횟수 중 더 많은 것은?", visits, _terms)
    assert done is not None and done.answer.endswith("권나라의 일본 방문 횟수 쪽이 더 많습니다 (120회 > 25회).")
    pay = _numbered(_table("권나라 (Kwon Nara)", "권나라 > 보상 정보 > 연봉", "- 현재 연봉: 52,000,000원"),
                    _table("송민지 (Song Minji)", "송민지 > 보상 정보 > 연봉", "- 현재 연봉: 65,000,000원"))
    got = compared("권나라와 송민지 중 누가 더 높은 연봉을 받나요?", pay, _terms)  # the tagger finds no noun in "송민지" alone
    assert got is not None and got.answer.endswith("송민지 쪽이 더 높습니다 (65,000,000원 > 52,000,000원).")
    # extractive answers use the same rule
    ext = ExtractiveAnswerer(None, make_tokenizer("kiwi"), terms=_terms).answer("권나라와 송민지 중 누가 더 높은 연봉을 받나요?", list(pay.values()))
    assert ext.answer == got.answer


@pytest.mark.unit
def test_each_side_is_searched_on_its_own() -> None:
    assert side_queries("제주 힐링 비수기와 성수기 가격 차이는 얼마인가요?", _terms) == ["제주 힐링 비수기 가격", "제주 힐링 성수기 가격"]
    assert side_queries("권나라와 송민지 중 누가 더 높은 연봉을 받나요?", _terms) == ["권나라 연봉", "송민지 연봉"]
    assert side_queries("삼성전자 계약과 현대자동차 계약 중 어느 것이 금액이 더 큰가요?", _terms) == ["삼성전자 계약 금액", "현대자동차 계약 금액"]
    assert side_queries("일본 패키지와 몰디브 허니문 중 어느 것이 더 비싼가요?", _terms) == ["일본 패키지 가격", "몰디브 허니문 가격"]  # 비싸: the price
    assert side_queries("하늘여행사는 언제 설립되었나요?", _terms) == []


@pytest.fixture()
def two_contracts(tmp_path: Path) -> Settings:
    kb = tmp_path / "kb"
    kb.mkdir()
    filler = "\n".join(f"- 현대자동차 MICE 행사 {i}: 현대자동차 연수 프로그램 계약 이행 점검" for i in range(12))
    (kb / "hyundai.md").write_text(f"# 현대자동차 계약\n\n## 계약 개요\n\n- 계약 금액: 연간 15억원\n\n## 행사\n\n{filler}\n", "utf-8")
    (kb / "samsung.md").write_text("# 삼성전자 계약\n\n## 계약 개요\n\n- 계약 금액: 연간 20억원\n- 계약 기간: 2년\n", "utf-8")
    (kb / "other.md").write_text("# 회사 소개\n\n" + "\n".join(f"- 현대자동차 계약 담당 부서 {i}" for i in range(8)) + "\n", "utf-8")
    s = Settings(index_dir=tmp_path / "i", cache_dir=tmp_path / "c", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    ingest(s, [kb], embedder=HashingEmbedder())
    return s


@pytest.mark.unit
def test_a_side_the_questions_own_search_misses_is_searched_for(two_contracts: Settings) -> None:
    ctx = open_context(two_contracts, embedder=HashingEmbedder())
    ctx.make_llm = lambda: None
    asker = Asker(ctx, mode="extract", k=1)  # one passage: the question's own search brings one side only
    question = "삼성전자 계약과 현대자동차 계약 중 어느 것이 금액이 더 큰가요?"
    res = asker.ask(question)
    assert res.outcome == "answered" and res.by == "rules", res.notes
    assert res.answer.endswith("삼성전자 계약 쪽이 더 큽니다 (20억원 > 15억원).")
    assert {c.doc for c in res.citations} == {"hyundai.md", "samsung.md"}
    assert any(n.startswith("each side searched on its own") for n in res.note_texts())
