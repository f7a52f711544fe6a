"""The appeal workflow over HTTP with the real KB policy: upload the policy into a collection,
upload a denial notice, follow the job, read the analysis, open a cited clause, download the
evidence pack in each format."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pictures import need_tesseract, rasterise

from yakgwan.config import EmbedderConfig, ServerConfig, Settings
from yakgwan.server.app import create_app

pytestmark = pytest.mark.integration

NOTICES = Path(__file__).resolve().parents[1] / "data" / "appeal" / "notices"


def test_appeal_over_http(tmp_path: Path, kb_policy_pdf: Path) -> None:
    settings = Settings(index_dir=tmp_path / "unused", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    app = create_app(ServerConfig(settings, tmp_path / "data"))
    jobs = app.state.service.jobs
    c = TestClient(app)
    assert c.post("/api/collections", json={"name": "kb", "title": "KB 스마트운전자보험"}).status_code == 201
    empty = c.post("/api/collections/kb/appeals", files={"notice": ("n.txt", b"x")})
    assert empty.status_code == 409 and "아직 문서가 없습니다" in empty.json()["detail"]
    up = c.post("/api/collections/kb/documents", files={"file": ("KB 약관.pdf", kb_policy_pdf.read_bytes())}).json()
    done = jobs.wait(up["id"], 600)
    assert done.status == "succeeded", done.error
    assert done.result is not None and done.result["pages"] > 100 and done.result["name"] == "KB 약관.pdf"
    wrong = c.post("/api/collections/kb/appeals", files={"notice": ("notice.docx", b"PK\x03\x04broken")})
    assert wrong.status_code == 415
    vague = c.post("/api/collections/kb/appeals", files={"notice": ("막연한 통지.txt", "안녕하세요. 검토 결과를 알려드립니다.".encode())}).json()
    failed = jobs.wait(vague["id"], 120)
    assert failed.status == "failed" and failed.error.startswith("막연한 통지.txt:") and str(tmp_path) not in failed.error
    res = c.post("/api/collections/kb/appeals", files={"notice": ("01 통지서.txt", (NOTICES / "01_fine_drunk_driving.txt").read_bytes())},
                 data={"analysis": "rules"})
    assert res.status_code == 202 and res.json()["kind"] == "appeal"
    too_early = c.get(f"/api/appeals/{res.json()['id']}/pack.md")
    assert too_early.status_code in (200, 409)  # 409 while it runs
    job = jobs.wait(res.json()["id"], 600)
    assert job.status == "succeeded", job.error
    result = c.get(f"/api/jobs/{job.id}").json()["result"]
    assert result["notice_name"] == "01 통지서.txt" and result["analysis_by"] == "rules"
    assert result["success_probability"]["band"] in ("LOW", "MEDIUM", "HIGH")
    assert all(v == 1.0 for v in result["metrics"].values()), result["metrics"]
    item = result["evidence_pack"][0]["provenance"]
    clause = c.get(f"/api/collections/kb/chunks/{item['chunk_id']}").json()
    assert " ".join(item["quote"].split()) in " ".join(clause["text"].split()) and item["page"] in clause["pages"]
    assert clause["doc_name"] == "KB 약관.pdf"
    md = c.get(f"/api/appeals/{job.id}/pack.md")
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown") and "벌금" in md.text
    html = c.get(f"/api/appeals/{job.id}/pack.html")
    assert html.status_code == 200 and "<html" in html.text.lower()
    pdf = c.get(f"/api/appeals/{job.id}/pack.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    # the letters to send: named from the case in Korean, nothing internal in them
    from urllib.parse import unquote

    letter = c.get(f"/api/appeals/{job.id}/letter.pdf")
    assert letter.status_code == 200 and letter.content.startswith(b"%PDF-")
    assert "이의신청서_벌금_특별약관_2024-11-02.pdf" in unquote(letter.headers["content-disposition"])
    letter_md = c.get(f"/api/appeals/{job.id}/letter.md")
    assert letter_md.status_code == 200 and "# 보험금 부지급 결정에 대한 이의신청서" in letter_md.text and "# 금융분쟁조정 신청서" in letter_md.text
    assert not any(w in letter_md.text for w in ("LOW", "MEDIUM", "HIGH", "claimed_exclusion", ".txt", "규칙"))
    docx = c.get(f"/api/appeals/{job.id}/letter.docx")
    assert docx.status_code == 200 and docx.content.startswith(b"PK")
    assert c.get(f"/api/appeals/{job.id}/letter.html").status_code == 422
    bad = c.get(f"/api/appeals/{up['id']}/pack.md")
    assert bad.status_code == 404 and "이의신청 분석이 아닙니다" in bad.json()["detail"]
    fmt = c.get(f"/api/appeals/{job.id}/pack.exe")
    assert fmt.status_code == 422
    # a photo of a notice is read by OCR on the appeal page, and never indexed as a document
    need_tesseract()
    photo = rasterise((NOTICES / "13_fine_spouse_victim_wrong_article.txt").read_text("utf-8"), tmp_path / "통지서 사진.png").read_bytes()
    refused = c.post("/api/collections/kb/documents", files={"file": ("통지서 사진.png", photo)})
    assert refused.status_code == 415 and "사진은 색인하지 않습니다" in refused.json()["detail"]
    read = jobs.wait(c.post("/api/collections/kb/appeals", files={"notice": ("통지서 사진.png", photo)}, data={"analysis": "rules"}).json()["id"], 600)
    assert read.status == "succeeded", read.error
    assert read.result["denial"]["ocr"]["engine"].startswith("tesseract") and read.result["denial"]["claim_items"]
    assert read.result["success_probability"]["band"] == "HIGH"
