"""The letters drafted from an analysis (its JSON): what each says, what it must never say, the
file names, and the three formats."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from yakgwan.appeal.letter import BLANK, file_name, fss_letter, insurer_letter, iso_date, letters, to_markdown, write

pytestmark = pytest.mark.unit

OTHER = {"doc": "p.pdf", "yakgwan": "교통상해 특별약관", "article": "제1조 제1항", "page": 65, "chunk_id": "c1",
         "quote": "① 회사는 피보험자가 교통사고로 입원한 때에 입원일당을 지급합니다."}
OWN = {"doc": "p.pdf", "yakgwan": "골절 특별약관", "article": "제1조", "page": 56, "chunk_id": "c2",
       "quote": "회사는 피보험자가 상해로 골절 진단을 받은 때에 골절진단금을 지급합니다."}
RESULT = {
    "denial": {"source": "/tmp/x/notice_13.txt", "insurer": "한별손해보험", "product": "한별 운전자보험", "policy_no": "1-2023-55", "claim_no": None,
               "claim_items": ["골절 특별약관"], "dates": {"notice_date": "2025. 2. 20.", "accident_date": "2025년 1월 27일"},
               "reasons": [{"text": "교통상해 특별약관 제1조 제1항에 따라\n지급하지 않습니다.", "cited": ["교통상해 특별약관 제1조 제1항"]}]},
    "findings": [
        {"kind": "claimed_exclusion", "text": "면책 조항 인용", "effect": "bears_out", "notice": None, "policy": None},
        {"kind": "other_yakgwan", "text": "통지서의 근거 「교통상해 특별약관 제1조 제1항」은 청구한 특약이 아닌 조항입니다.", "effect": "decisive",
         "notice": "교통상해 특별약관 제1조 제1항에 따라 지급하지 않습니다.", "policy": OTHER},
    ],
    "evidence_pack": [{"claim": "청구한 특약이 보장하는 사유: 골절 특별약관 제1조", "provenance": OWN},
                      {"claim": "회사가 부지급 근거로 든 조항: 교통상해 특별약관 제1조 제1항", "provenance": OTHER}],
    "documents_to_collect": ["진단서(진단명 포함)"],
    "success_probability": {"band": "HIGH", "rationale": "HIGH의 근거: …", "base_rate": 0.1667, "decided_by": ["other_yakgwan"]},
}
INTERNAL = ("HIGH", "MEDIUM", "LOW", "other_yakgwan", "claimed_exclusion", "decisive", "근거: …", "notice_13.txt", "/tmp", "0.1667", "17%", "규칙",
            "모델 판단", "arguable")


def test_dates_and_file_names_by_hand() -> None:
    assert iso_date("2025년 1월 27일") == "2025-01-27" and iso_date("2025. 2. 15.") == "2025-02-15" and iso_date("2025-3-4 10:00") == "2025-03-04"
    assert iso_date("사고일 미상") is None
    assert file_name(RESULT, "pdf") == "이의신청서_골절_특별약관_2025-01-27.pdf"
    loose = copy.deepcopy(RESULT)
    loose["denial"]["claim_items"] = ["보장은 골절 특약"]  # as a letter's prose names it: the policy's own name is used
    assert file_name(loose, "pdf") == "이의신청서_골절_특별약관_2025-01-27.pdf"
    no_date = copy.deepcopy(RESULT)
    no_date["denial"]["dates"] = {"notice_date": "2025. 2. 15."}  # the notice's date when the accident's is not given
    no_date["denial"]["claim_items"] = ["가족 / 벌금: 특약"]  # characters a file name cannot hold ...
    no_date["evidence_pack"] = no_date["evidence_pack"][1:]  # ... read as the notice writes it: the analysis resolved no claimed 특약
    assert file_name(no_date, "docx") == "이의신청서_가족_벌금_특약_2025-02-15.docx"


def test_the_letter_to_the_insurer_states_each_point_with_both_clauses_and_nothing_internal() -> None:
    letter = insurer_letter(RESULT)
    text = letter.text()
    assert letter.title == "보험금 부지급 결정에 대한 이의신청서" and letter.addressee == "한별손해보험 귀중"
    assert not [w for w in INTERNAL if w in text], [w for w in INTERNAL if w in text]
    # parties and numbers are blanks to fill; what the notice printed is a hint beside the blank
    assert f"증권번호: {BLANK} (안내문 기재: 1-2023-55)" in text and f"접수번호: {BLANK}" in text and f"신청인(계약자·피보험자) 성명: {BLANK}" in text
    # the insurer's reason quoted (whitespace collapsed), the one decisive point with the cited
    # clause and the claimed 특약's own clause verbatim, with their pages; the bears-out finding is no point
    assert "“교통상해 특별약관 제1조 제1항에 따라 지급하지 않습니다.”" in text
    points = [s for s in letter.sections if s.heading.startswith("1.")]
    assert [s.heading for s in letter.sections if s.heading[0].isdigit()] == ["1. 거절 근거가 청구한 특약의 조항이 아님"]
    assert points[0].quotes == (("교통상해 특별약관 제1조 제1항, 65쪽", OTHER["quote"]), ("청구한 보장의 지급사유: 골절 특별약관 제1조, 56쪽", OWN["quote"]))
    assert "통지서" not in text and "안내문의 근거" in text
    assert "부지급 결정을 취소하고" in text and "1. 보험금 부지급 안내문 사본" in text and "2. 진단서(진단명 포함)" in text


def test_with_nothing_that_raises_the_band_the_letter_asks_for_the_grounds() -> None:
    low = copy.deepcopy(RESULT)
    low["findings"] = low["findings"][:1]
    letter = insurer_letter(low)
    (point,) = [s for s in letter.sections if s.heading[0].isdigit()]
    assert point.heading == "1. 거절 근거의 확인 요청" and "서면으로 제시해 주시기 바랍니다" in point.paragraphs[0]
    assert [c for c, _ in point.quotes] == ["교통상해 특별약관 제1조 제1항, 65쪽", "골절 특별약관 제1조, 56쪽"]
    assert "다시 심사하여 주시기 바랍니다" in letter.text() and "취소하고" not in letter.text()


def test_the_fss_text_names_the_parties_and_speaks_of_the_insurer_in_the_third_person() -> None:
    fss = fss_letter(RESULT)
    text = fss.text()
    assert fss.title == "금융분쟁조정 신청서" and fss.addressee == "금융감독원장 귀하"
    assert "피신청인(금융회사): 한별손해보험" in text and "신청 취지" in text and "피신청인은 약관에 따라 신청인에게 보험금을 지급하라는 조정을 구합니다." in text
    assert "귀사" not in text and "피신청인이 거절 근거로 든 조항은 신청인이 청구한 특약의 조항이 아닙니다." in text
    assert not [w for w in INTERNAL if w in text]


def test_the_three_formats(tmp_path: Path) -> None:
    md = to_markdown(letters(RESULT))
    assert md.startswith("# 보험금 부지급 결정에 대한 이의신청서") and "\n---\n" in md and "# 금융분쟁조정 신청서" in md
    assert "> ① 회사는 피보험자가 교통사고로 입원한 때에 입원일당을 지급합니다.\n> — 교통상해 특별약관 제1조 제1항, 65쪽" in md
    pdf, missing = write(RESULT, tmp_path)  # a folder: the case's name, as a PDF
    assert missing == 0
    assert pdf.name == "이의신청서_골절_특별약관_2025-01-27.pdf" and pdf.read_bytes().startswith(b"%PDF-")
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    assert len(doc) >= 2 and "금융분쟁조정 신청서" in "".join(p.get_textpage().get_text_range() for p in doc)
    docx_path, _ = write(RESULT, tmp_path / "편지.docx")
    made, _ = write(RESULT, tmp_path / "새 폴더")  # a path with no suffix is a folder, made
    assert made.parent.name == "새 폴더" and made.suffix == ".pdf"
    import docx

    paras = [p.text for p in docx.Document(str(docx_path)).paragraphs]
    assert "보험금 부지급 결정에 대한 이의신청서" in paras and "금융분쟁조정 신청서" in paras and OWN["quote"] in paras
    with pytest.raises(ValueError, match="written as .md, .pdf, .docx"):
        write(RESULT, tmp_path / "편지.html")


def test_a_name_without_a_suffix_is_the_stem() -> None:
    assert file_name(RESULT, "") == "이의신청서_골절_특별약관_2025-01-27" and file_name(RESULT, "md", stem="분석") == "분석_골절_특별약관_2025-01-27.md"


def test_the_clauses_a_reason_cites_are_named_as_the_policy_names_them() -> None:
    with_retrieval = copy.deepcopy(RESULT)
    with_retrieval["denial"]["reasons"][0]["cited"] = ["고객님께서 가입하신 보장은 교통상해 특약 제1조 제1항"]  # the words around it, as parsed
    with_retrieval["retrieval"] = [{"cited": [{"yakgwan": "교통상해 특별약관", "article": "제1조 제1항", "as_written": "고객님께서 가입하신 보장은 교통상해 특약 제1조 제1항"},
                                              {"yakgwan": None, "article": "제9조", "as_written": "약관 제9조"}]}]
    text = insurer_letter(with_retrieval).text()
    assert "(인용 조항: 교통상해 특별약관 제1조 제1항, 약관 제9조)" in text and "가입하신 보장은 교통상해 특약" not in text


def test_points_read_as_letters_one_per_finding_no_model_reading_quotes_untouched() -> None:
    """The finding's 통지서 is the letter's 안내문 with the particle that fits; two missing articles are
    two points; a model's finding is no point; the 금감원 text turns only its own lead sentences
    into the third person, never the notice's or the policy's words."""
    r = copy.deepcopy(RESULT)
    r["findings"] = [
        {"kind": "article_missing", "text": "통지서가 인용한 「골절 특별약관 제9조」가 「골절 특별약관」에 없습니다.", "effect": "decisive",
         "notice": "골절 특별약관 제9조에 따라 자기부담금 공제가 적용되어 지급하지 않습니다.", "policy": None},
        {"kind": "article_missing", "text": "통지서가 인용한 「골절 특별약관 제12조」가 「골절 특별약관」에 없습니다.", "effect": "decisive",
         "notice": "골절 특별약관 제12조에 따라 지급하지 않습니다.", "policy": None},
        {"kind": "coverage_conditions_met", "text": "[모델 판단] 통지서의 사실이 지급사유를 충족함: 골절 (근거: 「골절 특별약관 제1조」 “회사는”)",
         "effect": "arguable", "notice": None, "policy": OWN, "by": "llm"},
    ]
    letter = insurer_letter(r)
    heads = [sec.heading for sec in letter.sections if sec.heading[0].isdigit()]
    assert heads == ["1. 거절 근거 조항이 약관에 없음", "2. 거절 근거 조항이 약관에 없음"]
    text = letter.text()
    assert "안내문이 인용한 「골절 특별약관 제9조」가" in text and "통지서" not in text and "안내문가" not in text
    assert not [w for w in INTERNAL if w in text]
    fss = fss_letter(r).text()
    assert "피신청인이 거절 근거로 든 조항은 약관에 없습니다." in fss and "자기부담금 공제가 적용되어" in fss  # the quote as written
    assert "모델 판단" not in fss and "이의신청(한 경우): 신청일" in fss
