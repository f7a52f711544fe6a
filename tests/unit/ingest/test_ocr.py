"""Reading tesseract's outputs (hand-made TSV), Roman numerals as OCR reads them, misspelt 약관
names, and the error when the OCR program is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.appeal.citations import resolve_yakgwan
from yakgwan.core.errors import InputError
from yakgwan.ingest.pdf import ocr as O

HEADER = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"


def row(level: int, conf: float, text: str, line: int = 1) -> str:
    return f"{level}\t1\t1\t1\t{line}\t1\t0\t0\t10\t10\t{conf}\t{text}\n"


@pytest.mark.unit
def test_page_text_from_txt_and_confidence_from_word_rows() -> None:
    tsv = HEADER + row(4, -1, "") + row(5, 90, "보험금") + row(5, 80.5, "부지급") + row(5, -1, "x") + row(5, 70, " ") + row(5, 60, "안내", 2)
    page = O.page_of("보험금 부지급\n\n안내 (||) \n\n", tsv, 3)
    assert page.text == "보험금 부지급\n안내 (II)" and page.number == 3
    assert page.words == 3 and page.confidence == pytest.approx((90 + 80.5 + 60) / 3)
    assert O.page_of("", HEADER, 1).confidence == 0.0
    both = O.OcrText("n.png", "tesseract 5 (kor)", (O.OcrPage(1, "가", 90.0, 1), O.OcrPage(2, "나다", 60.0, 3)))
    assert both.text == "가\n\n나다" and both.confidence == pytest.approx((90 + 180) / 4)


@pytest.mark.unit
def test_roman_numerals_as_ocr_reads_them() -> None:
    assert O.roman_numerals("골절발생위로금(||) 특별약관") == "골절발생위로금(II) 특별약관"
    assert O.roman_numerals("지원금( | ) 특별약관, 지원금(|!) 특약, 지원금( ㅣ) 특약") == "지원금(I) 특별약관, 지원금(II) 특약, 지원금(I) 특약"
    assert O.roman_numerals("청구서(1) 제출, (||||)") == "청구서(1) 제출, (||||)"  # a digit, or four strokes, stay


@pytest.mark.unit
def test_a_misspelt_name_resolves_only_when_one_name_is_that_close() -> None:
    known = ["깁스치료비 특별약관", "벌금 특별약관", "가족벌금 특별약관", "자전거사고 벌금 특별약관",
             "교통사고처리지원금(Ⅰ) 특별약관", "교통사고처리지원금(Ⅱ) 특별약관", "골절발생위로금(II) 특별약관"]
    assert resolve_yakgwan("김스치료비 특별약관", known) == "깁스치료비 특별약관"  # one jamo off
    assert resolve_yakgwan("귀하의 청구는 벌굼 특별약관", known) == "벌금 특별약관"
    assert resolve_yakgwan("자전거사고 벌굼 특별약관", known) == "자전거사고 벌금 특별약관"  # the longest reading decides
    assert resolve_yakgwan("골절발생위로금(1) 특별약관", known) == "골절발생위로금(II) 특별약관"
    assert resolve_yakgwan("교통사고처리지원금(1) 특별약관", known) is None  # (Ⅰ) and (Ⅱ) are as close: not guessed
    assert resolve_yakgwan("운전자 특별약관", known) is None and resolve_yakgwan("이 특별약관", known) is None


@pytest.mark.unit
def test_missing_program_names_the_file_and_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    picture = tmp_path / "안내문.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n")
    monkeypatch.setattr(O.shutil, "which", lambda name: None)
    with pytest.raises(InputError, match=r"안내문\.png: .*needs OCR: install Debian's tesseract-ocr and tesseract-ocr-kor"):
        O.ocr_image(picture)
