"""A denial notice that is a picture: rendered with a Korean font and rasterised here (a PNG, and a
PDF of that image with no text layer), read by Debian's tesseract-ocr with its Korean model, it
reaches the same claimed 특약, reasons and citations as the text version, and the same analysis."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from pictures import need_tesseract, rasterise

from yakgwan.appeal.citations import resolve_yakgwan
from yakgwan.appeal.notice import DenialNotice, parse_notice
from yakgwan.appeal.run import read_notice

pytestmark = pytest.mark.integration
DATA = Path(__file__).resolve().parents[1] / "data" / "appeal"
NOTICE = DATA / "notices" / "13_fine_spouse_victim_wrong_article.txt"
NAMES = ["벌금 특별약관", "가족벌금 특별약관", "자전거사고 벌금 특별약관", "교통사고처리지원금(Ⅰ) 특별약관", "교통사고처리지원금(Ⅱ) 특별약관"]


@pytest.fixture(scope="module")
def tesseract() -> str:
    return need_tesseract()


def read_as_policy_names(n: DenialNotice) -> tuple[list[str | None], list[list[tuple[str | None, str]]]]:
    items = [resolve_yakgwan(i, NAMES) for i in n.claim_items]
    refs = [[(resolve_yakgwan(r.yakgwan, NAMES) if r.yakgwan else None, r.label) for r in reason.refs] for reason in n.reasons]
    return items, refs


def test_a_picture_and_a_scan_read_as_the_text_does(tesseract: str, tmp_path: Path) -> None:
    from PIL import Image

    text = parse_notice(NOTICE.read_text("utf-8"), str(NOTICE))
    png = rasterise(NOTICE.read_text("utf-8"), tmp_path / "notice.png")
    scan = tmp_path / "scan.pdf"
    Image.open(png).save(scan, "PDF", resolution=150.0)  # a PDF page that is only an image
    for picture in (png, scan):
        got = read_notice(picture)
        assert got.ocr is not None and got.ocr.engine.startswith("tesseract") and got.ocr.engine.endswith("(kor)")
        assert got.ocr.confidence > 70 and got.ocr.pages[0].words > 50, picture.name
        assert read_as_policy_names(got) == read_as_policy_names(text) == (
            ["벌금 특별약관"], [[("교통사고처리지원금(Ⅰ) 특별약관", "제1조 제1항")]]), picture.name
        assert "배우자" in got.reasons[0].text


def test_the_analysis_of_a_photo_matches_the_text(tesseract: str, kb_policy_pdf: Path, tmp_path: Path) -> None:
    import sys

    png = rasterise(NOTICE.read_text("utf-8"), tmp_path / "안내문.png")
    runs = {}
    for name, notice in (("text", NOTICE), ("photo", png)):
        out = tmp_path / f"{name}.json"
        p = subprocess.run([sys.executable, "-m", "yakgwan.cli", "appeal", str(notice), "--policy", str(kb_policy_pdf), "--json", str(out), "--quiet"],
                           capture_output=True, text=True, timeout=600, env={**os.environ, "YAKGWAN_LANG": "ko"})  # the summary in Korean
        assert p.returncode == 0, p.stderr
        runs[name] = (json.loads(out.read_text("utf-8")), p.stdout)
    (text, _), (photo, shown) = runs["text"], runs["photo"]
    assert text["denial"]["ocr"] is None
    ocr = photo["denial"]["ocr"]
    assert ocr["engine"].startswith("tesseract") and ocr["confidence"] > 70 and "부지급" in ocr["text"]
    assert f"평균 신뢰도 {ocr['confidence']:.0f}%" in shown  # the reader is told the text was read by OCR, and how sure
    assert photo["success_probability"]["band"] == text["success_probability"]["band"] == "HIGH"
    resolved = lambda run: [[(c["yakgwan"], c["article"], c["found"]) for c in r["cited"]] for r in run["retrieval"]]  # noqa: E731
    assert resolved(photo) == resolved(text) == [[("교통사고처리지원금(Ⅰ) 특별약관", "제1조 제1항", True)]]


def test_the_scanned_scenario_reaches_the_same_finding(tesseract: str, kb_policy_pdf: Path, tmp_path: Path) -> None:
    """Scenario 37 is the set's scanned notice: rasterised here, it gets the band and the finding
    (the ground is another 특약's clause) the text version gets."""
    from yakgwan.config import Settings
    from yakgwan.services.appeal import appeal

    text_file = DATA / "notices" / "37_injury_grade_driver_wrong_article_scan.txt"
    scan = rasterise(text_file.read_text("utf-8"), tmp_path / "scan37.png")
    settings = Settings.from_env().with_(quiet=True)
    runs = [appeal(f, kb_policy_pdf, settings).to_json() for f in (text_file, scan)]
    for run in runs:
        assert run["success_probability"]["band"] == "HIGH"
        (other,) = [f for f in run["findings"] if f["kind"] == "other_yakgwan"]
        assert other["policy"]["yakgwan"] == "자동차사고부상보장(비운전자) 특별약관"
    assert runs[1]["denial"]["ocr"]["confidence"] > 70
