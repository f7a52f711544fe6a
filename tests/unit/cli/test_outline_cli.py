"""``yakgwan outline``: a small PDF policy ingested into a fresh index, then its outline as text
(in English and in Korean) and as JSON; one error line for a missing index or an unknown --doc."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdfs import build_pdf

from yakgwan.cli import main

pytestmark = pytest.mark.unit

PAGES = [
    [(60, 780, "보통약관"), (60, 750, "제1조(목적) 이 약관은 보험금 지급을 정합니다."), (60, 730, "제2조(보상하는 손해) 회사는 상해에 보험금을 지급합니다.")],
    [(60, 780, "벌금 특별약관"), (60, 750, "제1조(보험금의 지급사유) 회사는 벌금을 보상합니다."),
     (60, 730, "제2조(보험금을 지급하지 않는 사유) 고의로 생긴 손해는 보상하지 않습니다.")],
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("outline")
    pdf = root / "약관.pdf"
    pdf.write_bytes(build_pdf(PAGES))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("YAKGWAN_EMBEDDER", "hashing")
        mp.setenv("YAKGWAN_CACHE_DIR", str(root / "cache"))
        assert main(["ingest", str(pdf), "--index", str(root / "index"), "--quiet", "--meta", "insurer=시험손해보험"]) == 0
    return root / "index"


def _outline(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["outline", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_outline_text_names_each_yakgwan_with_its_pages_and_articles(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _outline(["--index", str(index)], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"index {index}: 1 document(s)" and lines[2].startswith("약관.pdf (pdf, 2 pages, ")
    assert "  insurer        시험손해보험  (set at ingest)" in lines
    assert any(ln.split() == ["보통약관", "p.1", "2", "article(s)"] for ln in lines), out
    assert any(ln.split() == ["벌금", "특별약관", "p.2", "2", "article(s)"] for ln in lines), out
    assert "        제1조 보험금의 지급사유 · 제2조 보험금을 지급하지 않는 사유" in lines
    assert "  every page read from its text layer (no OCR)" in lines and lines[-1] == "  no warnings"


def test_outline_speaks_korean(index: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YAKGWAN_LANG", "ko")
    code, out, _ = _outline(["--index", str(index), "--doc", "약관.pdf"], capsys)
    assert code == 0 and "  보험회사   시험손해보험  (색인할 때 지정)" in out and "  약관 2개" in out and "조 2개" in out, out


def test_outline_json_is_the_documented_object(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _outline(["--index", str(index), "--json"], capsys)
    assert code == 0
    j = json.loads(out)
    assert j["schema"] == "yakgwan.outline/1" and [d["name"] for d in j["documents"]] == ["약관.pdf"]
    d = j["documents"][0]
    assert d["identity"]["insurer"] == {"value": "시험손해보험", "source": "meta", "where": None}
    assert [(y["name"], y["kind"], y["first_page"], y["last_page"], [a["article"] for a in y["articles"]]) for y in d["yakgwan"]] == [
        ("보통약관", "base", 1, 1, ["제1조", "제2조"]), ("벌금 특별약관", "rider", 2, 2, ["제1조", "제2조"])]
    assert d["pages"]["total"] == 2 and d["pages"]["ocr"] == [] and d["warnings"] == []


def test_an_unknown_doc_or_a_missing_index_is_one_error_line(index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _outline(["--index", str(index), "--doc", "없는.pdf"], capsys)
    assert code == 2 and out == "" and err.splitlines() == ["yakgwan outline: error: '없는.pdf': no such document in this index; it holds: 약관.pdf"]
    code, _, err = _outline(["--index", str(tmp_path / "none")], capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "no index here" in err
