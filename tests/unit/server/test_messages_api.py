"""The HTTP API speaks Korean unless the reader asks for English: problem+json title and detail,
job stages and states, and the catalogue the web app loads; a notice whose reason is not
recognised fails with its sentences, and the reasons the reader gives finish the job."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yakgwan.config import EmbedderConfig, ServerConfig, Settings
from yakgwan.messages import catalogue
from yakgwan.server.app import create_app

pytestmark = pytest.mark.unit


@pytest.fixture()
def client(tmp_path: Path) -> TestClient:
    settings = Settings(index_dir=tmp_path / "unused", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    return TestClient(create_app(ServerConfig(settings, tmp_path / "data")))


def test_errors_are_korean_by_default_and_english_on_request(client: TestClient) -> None:
    ko = client.get("/api/collections/nope")
    assert ko.status_code == 404 and ko.headers["content-language"] == "ko"
    assert ko.json()["title"] == "찾을 수 없음" and ko.json()["detail"] == "컬렉션 'nope'이(가) 없습니다."
    en = client.get("/api/collections/nope", headers={"Accept-Language": "en-US,en;q=0.9"})
    assert en.headers["content-language"] == "en" and (en.json()["title"], en.json()["detail"]) == ("Not found", "no such collection: 'nope'")
    assert client.get("/api/nowhere").json()["detail"] == "없는 경로입니다: GET /api/nowhere"
    invalid = client.post("/api/collections", json={"title": 5})
    assert invalid.status_code == 422 and invalid.json()["detail"].startswith("요청이 올바르지 않습니다: title:")
    big = client.post("/api/collections/x/documents", content=b"x", headers={"Content-Length": str(10**10)})
    assert big.status_code == 413 and big.json()["detail"].startswith("요청 본문이 업로드 한도")


def test_a_job_reads_in_the_readers_language(client: TestClient) -> None:
    made = client.post("/api/collections", json={"title": "내 문서"}).json()
    up = client.post(f"/api/collections/{made['name']}/documents", files={"file": ("빈.txt", b"   \n  ")})
    job = up.json()
    assert up.status_code == 202 and job["status_text"] == {"queued": "대기 중", "running": "진행 중"}[job["status"]], job
    done = client.app.state.service.jobs.wait(job["id"], 60)  # type: ignore[attr-defined]
    assert done.status == "failed"
    ko = client.get(f"/api/jobs/{job['id']}").json()
    en = client.get(f"/api/jobs/{job['id']}", headers={"Accept-Language": "en"}).json()
    assert (ko["status_text"], en["status_text"]) == ("실패", "failed")
    assert (ko["error"], en["error"], ko["error_kind"]) == ("빈.txt: 빈 파일입니다", "빈.txt: empty file", "unreadable")


def test_the_catalogue_is_served_whole_without_a_key(tmp_path: Path) -> None:
    settings = Settings(index_dir=tmp_path / "unused", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    locked = TestClient(create_app(ServerConfig(settings, tmp_path / "data", api_key="a-long-key")))
    body = locked.get("/api/messages").json()
    assert body["default"] == "ko" and body["langs"] == ["ko", "en"]
    assert body["messages"]["ko"] == catalogue().for_lang("ko") and body["messages"]["en"]["nav.appeal"] == "Appeal"
    refused = locked.get("/api/collections")
    assert refused.status_code == 401 and refused.json()["detail"] == "이 서버는 API 키가 필요합니다. X-API-Key 헤더로 보내 주세요."


NOTICE = "보험금 지급 안내\n\n고객님께서 청구하신 건에 대해 안내드립니다.\n검토 결과를 알려 드립니다. 문의는 고객센터로 연락 바랍니다.\n"


def _wait(client: TestClient, job: dict[str, Any]) -> dict[str, Any]:
    client.app.state.service.jobs.wait(job["id"], 120)  # type: ignore[attr-defined]
    return client.get(f"/api/jobs/{job['id']}").json()


def test_a_notice_without_a_recognised_reason_gives_its_sentences_and_the_readers_reason_finishes_it(client: TestClient, tmp_path: Path) -> None:
    made = client.post("/api/collections", json={"title": "약관"}).json()["name"]
    policy = ("보통약관\n\n제1조(보상하는 손해) 회사는 피보험자가 교통사고로 상해를 입은 때에 보험금을 지급합니다.\n\n"
              "제2조(보상하지 않는 손해) 회사는 피보험자가 음주운전을 하는 동안 생긴 손해는 보상하지 않습니다.\n")
    ingest = client.post(f"/api/collections/{made}/documents", files={"file": ("policy.txt", policy.encode())}).json()
    assert _wait(client, ingest)["status"] == "succeeded"
    failed = _wait(client, client.post(f"/api/collections/{made}/appeals", files={"notice": ("안내문.txt", NOTICE.encode())}, data={"analysis": "rules"}).json())
    assert failed["status"] == "failed" and failed["error_kind"] == "no-reason", failed
    assert failed["error"].startswith("안내문.txt: 통지서에서 거절 사유를 찾지 못했습니다")
    assert failed["details"]["sentences"][:3] == ["보험금 지급 안내", "고객님께서 청구하신 건에 대해 안내드립니다.", "검토 결과를 알려 드립니다."]
    typed = "음주운전 중 사고이므로 보통약관 제2조에 따라 보험금을 지급하지 않습니다."
    done = _wait(client, client.post(f"/api/collections/{made}/appeals", files={"notice": ("안내문.txt", NOTICE.encode())},
                                     data={"analysis": "rules", "reasons": [failed["details"]["sentences"][1], typed]}).json())
    assert done["status"] == "succeeded", done
    reasons = [r["text"] for r in done["result"]["denial"]["reasons"]]
    assert reasons == ["고객님께서 청구하신 건에 대해 안내드립니다.", typed]
    assert done["result"]["retrieval"][1]["cited"][0]["article"] == "제2조"
    # the pack names the policy as it was uploaded, and reads in the reader's language
    assert {e["provenance"]["doc_name"] for e in done["result"]["evidence_pack"]} == {"policy.txt"}
    assert all(e["provenance"]["doc"].endswith(".txt") and len(e["provenance"]["doc"]) == 20 for e in done["result"]["evidence_pack"])  # the id stays
    assert "accept-language" in client.get(f"/api/jobs/{done['id']}").headers["vary"].lower()
    ko = client.get(f"/api/appeals/{done['id']}/pack.md").text
    en = client.get(f"/api/appeals/{done['id']}/pack.md", headers={"Accept-Language": "en"}).text
    assert ko.startswith("# 보험금 부지급 재심사 근거 자료") and "출처: policy.txt" in ko
    assert en.startswith("# Evidence for a review of the claim denial") and "Source: policy.txt" in en and typed in en
