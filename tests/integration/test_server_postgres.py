"""The server with its indexes and jobs in PostgreSQL (``serve --index postgresql://…``): a
collection's index is a collection of the database, jobs outlive the process, and a server
killed in the middle of an ingest comes back with that ingest going on under the same job id,
the upload kept, and the collection consistent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from live_server import free_port

from yakgwan.config import EmbedderConfig, ServerConfig, Settings
from yakgwan.server.app import create_app
from yakgwan.store import open_records, open_store, sibling_collection

pytestmark = pytest.mark.integration

CALL_S = 60  # seconds a test waits for one answer of a live server
REFUND = "# 환불\n\n출발 30일 전까지 취소하면 전액 환불합니다. 출발 당일 취소는 환불하지 않습니다.\n"


def _uri(base: str, collection: str) -> str:
    return f"{base}{'&' if '?' in base else '?'}collection={collection}"


def _settings(tmp: Path, index: str) -> Settings:
    return Settings(index_dir=index, cache_dir=tmp / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)


def test_collections_live_in_the_database_and_jobs_are_kept_there(tmp_path: Path, postgres_uri: str) -> None:
    base = _uri(postgres_uri, "srv_a")
    app = create_app(ServerConfig(_settings(tmp_path, base), tmp_path / "data"))
    c = TestClient(app)
    assert c.post("/api/collections", json={"name": "my-faq", "title": "자주 묻는 질문"}).status_code == 201
    res = c.post("/api/collections/my-faq/documents", files={"file": ("refund.md", REFUND.encode())})
    assert res.status_code == 202, res.text
    job = app.state.service.jobs.wait(res.json()["id"], 120)
    assert job.status == "succeeded", job.error
    index = sibling_collection(base, "my-faq")
    assert open_store(index).exists() and not (tmp_path / "data" / "collections" / "my-faq" / "index").exists()
    hits = c.post("/api/collections/my-faq/search", json={"query": "당일 취소 환불", "pipeline": "bm25"}).json()["hits"]
    assert "당일" in hits[0]["text"]
    record = open_records(base, "jobs").all()[job.id]
    assert record["status"] == "succeeded" and record["kind"] == "ingest" and record["collection"] == "my-faq"
    again = TestClient(create_app(ServerConfig(_settings(tmp_path, base), tmp_path / "data")))  # a new server on the same database
    assert again.get(f"/api/jobs/{job.id}").json()["status"] == "succeeded"
    assert again.delete("/api/collections/my-faq").status_code in (200, 204)
    assert not open_store(index).exists()


def _wait(url: str, timeout_s: float = 60) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("the server did not start")


def _serve(tmp: Path, base: str, port: int, workers: int = 1) -> subprocess.Popen[bytes]:
    env = {**os.environ, "YAKGWAN_EMBEDDER": "hashing", "YAKGWAN_TOKENIZER": "mecab", "YAKGWAN_CACHE_DIR": str(tmp / "cache"),
           "YAKGWAN_JOB_STALE_S": "2"}
    return subprocess.Popen([sys.executable, "-m", "yakgwan.cli", "serve", "--index", base, "--data", str(tmp / "data"), "--port", str(port),
                             "--workers", str(workers), "--quiet"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    """A client that waits up to CALL_S for each answer: these servers run a large ingest while
    other test processes share the machine's cores, and a call is checked for what it answers,
    not for how fast (test_server_load measures latency)."""
    with httpx.Client(timeout=CALL_S) as client:
        yield client


def test_a_server_killed_mid_ingest_comes_back_and_the_same_job_goes_on(tmp_path: Path, postgres_uri: str, http: httpx.Client) -> None:
    base, port = _uri(postgres_uri, "srv_b"), free_port()
    url = f"http://127.0.0.1:{port}"
    big = "\n\n".join(f"## 제{i}조(조항 {i})\n\n" + " ".join(f"보험금 {i}-{j} 지급 사유와 한도를 정합니다." for j in range(40)) for i in range(1, 1500))
    server = _serve(tmp_path, base, port)
    try:
        _wait(url)
        assert http.post(f"{url}/api/collections", json={"name": "big"}).status_code == 201
        first = http.post(f"{url}/api/collections/big/documents", files={"file": ("refund.md", REFUND.encode())}).json()["id"]
        end = time.monotonic() + 60
        while http.get(f"{url}/api/jobs/{first}").json()["status"] != "succeeded" and time.monotonic() < end:
            time.sleep(0.2)
        res = http.post(f"{url}/api/collections/big/documents", files={"file": ("terms.md", big.encode())})
        assert res.status_code == 202, res.text
        job = res.json()["id"]
        end = time.monotonic() + 60
        while (status := http.get(f"{url}/api/jobs/{job}").json()["status"]) == "queued" and time.monotonic() < end:
            time.sleep(0.05)
        assert status == "running"
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(10)
    before = open_records(base, "jobs").all()[job]
    assert before["status"] == "running"  # as the killed server left it
    server = _serve(tmp_path, base, port, workers=2)  # two processes start together: one of them resumes it
    try:
        _wait(url)
        end = time.monotonic() + 180
        while (got := http.get(f"{url}/api/jobs/{job}").json())["status"] in ("queued", "running") and time.monotonic() < end:
            time.sleep(0.5)
        assert got["status"] == "succeeded" and got["result"]["resumed"] and got["result"]["dense_ready"], json.dumps(got, ensure_ascii=False)
        listed = {j["id"]: j["status"] for j in http.get(f"{url}/api/jobs").json()}
        assert listed[job] == "succeeded" and listed[first] == "succeeded"
        assert [j for j in http.get(f"{url}/api/jobs").json() if j["collection"] == "big" and j["id"] not in (first, job)] == []  # resumed once
        # the upload was kept and indexed: the collection's documents are what its index holds
        docs = {d["name"] for d in http.get(f"{url}/api/collections/big/documents").json()}
        indexed = open_store(sibling_collection(base, "big")).read()
        assert docs == {"refund.md", "terms.md"} and len(indexed.docs) == 2 and indexed.dense_ready
        terms = http.post(f"{url}/api/collections/big/search", json={"query": "보험금 1499-39 지급 사유", "pipeline": "bm25"}).json()["hits"]
        assert terms and terms[0]["doc_name"] == "terms.md"
        hits = http.post(f"{url}/api/collections/big/search", json={"query": "당일 취소 환불", "pipeline": "bm25"}).json()["hits"]
        assert "당일" in hits[0]["text"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(20)


def test_two_worker_processes_answer_200_concurrent_searches_while_an_ingest_runs(tmp_path: Path, postgres_uri: str, http: httpx.Client) -> None:
    from concurrent.futures import ThreadPoolExecutor

    base, port = _uri(postgres_uri, "srv_c"), free_port()
    url = f"http://127.0.0.1:{port}"
    server = _serve(tmp_path, base, port, workers=2)
    try:
        _wait(url)
        assert http.post(f"{url}/api/collections", json={"name": "load"}).status_code == 201
        first = http.post(f"{url}/api/collections/load/documents", files={"file": ("refund.md", REFUND.encode())}).json()["id"]
        end = time.monotonic() + 60
        while http.get(f"{url}/api/jobs/{first}").json()["status"] != "succeeded" and time.monotonic() < end:  # whichever worker answers
            time.sleep(0.2)
        big = "\n\n".join(f"## 제{i}조(조항 {i})\n\n" + " ".join(f"보험금 {i}-{j} 지급 사유와 한도를 정합니다." for j in range(30)) for i in range(1, 600))
        ingest = http.post(f"{url}/api/collections/load/documents", files={"file": ("terms.md", big.encode())}).json()["id"]
        assert http.get(f"{url}/api/jobs/{ingest}").json()["status"] in ("queued", "running")

        def one(i: int) -> tuple[int, int, float]:
            t = time.perf_counter()
            res = http.post(f"{url}/api/collections/load/search", json={"query": "당일 취소 환불", "pipeline": "bm25", "k": 5})
            return res.status_code, len(res.json().get("hits", [])) if res.status_code == 200 else 0, (time.perf_counter() - t) * 1000

        with ThreadPoolExecutor(max_workers=20) as pool:
            results = list(pool.map(one, range(200)))
        statuses = http.get(f"{url}/api/jobs/{ingest}").json()["status"]
        ms = sorted(r[2] for r in results)
        print(f"\n200 concurrent searches, 2 workers, ingest {statuses} meanwhile: p50 {ms[99]:.0f} ms, p95 {ms[189]:.0f} ms")
        assert [r[0] for r in results] == [200] * 200
        assert all(r[1] >= 1 for r in results)  # every answer whole: hits from a committed index
        end = time.monotonic() + 120
        while http.get(f"{url}/api/jobs/{ingest}").json()["status"] in ("queued", "running") and time.monotonic() < end:
            time.sleep(0.3)
        assert http.get(f"{url}/api/jobs/{ingest}").json()["status"] == "succeeded"
        assert {d["name"] for d in http.get(f"{url}/api/collections/load/documents").json()} == {"refund.md", "terms.md"}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)


def test_search_and_ask_through_the_api_take_filters(tmp_path: Path, postgres_uri: str) -> None:
    app = create_app(ServerConfig(_settings(tmp_path, _uri(postgres_uri, "srv_d")), tmp_path / "data"))
    c = TestClient(app)
    assert c.post("/api/collections", json={"name": "two"}).status_code == 201
    for name, text in (("refund.md", REFUND), ("claim.md", "# 청구\n\n보험금 청구는 사고일부터 3년 안에 합니다. 취소 서류는 필요 없습니다.\n")):
        job = c.post("/api/collections/two/documents", files={"file": (name, text.encode())}).json()["id"]
        assert app.state.service.jobs.wait(job, 60).status == "succeeded"
    assert {d["name"] for d in c.get("/api/collections/two/documents").json()} == {"refund.md", "claim.md"}
    stored = {h["doc"] for h in c.post("/api/collections/two/search", json={"query": "취소", "pipeline": "bm25"}).json()["hits"]}
    assert len(stored) == 2
    one = sorted(stored)[0]
    res = c.post("/api/collections/two/search", json={"query": "취소", "pipeline": "bm25", "filters": [f"doc={one}"]}).json()
    assert {h["doc"] for h in res["hits"]} == {one} and res["filters"] == [f"doc={one}"]
    answer = c.post("/api/collections/two/ask", json={"question": "취소하면 환불되나요?", "pipeline": "bm25", "mode": "extract", "filters": [f"doc={one}"]}).json()
    assert all(cit["doc"] == one for cit in answer["citations"])
    bad = c.post("/api/collections/two/search", json={"query": "취소", "filters": ["page=3"]})
    assert bad.status_code in (400, 422) and "알 수 없는 키 'page'" in bad.json()["detail"]


NOTICE = """한빛손해보험 보험금 부지급 안내

상품명: 한빛안심운전자보험
청구 담보: 벌금 특별약관

[부지급 사유]
피보험자가 음주운전을 하던 중 일으킨 사고로 부담하게 된 벌금으로 확인되어 보험금을 지급하지 않습니다.

[관련 약관]
벌금 특별약관 제2조(보험금을 지급하지 않는 사유)
"""


def test_an_appeal_on_the_database_reads_the_part_of_the_collection_its_filters_keep(tmp_path: Path, postgres_uri: str) -> None:
    app = create_app(ServerConfig(_settings(tmp_path, _uri(postgres_uri, "srv_e")), tmp_path / "data"))
    jobs, c = app.state.service.jobs, TestClient(app)
    assert c.post("/api/collections", json={"name": "pol"}).status_code == 201
    sample = Path(__file__).resolve().parents[2] / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"
    for name, data in (("한빛 약관.txt", sample.read_bytes()), ("refund.md", REFUND.encode())):
        job = c.post("/api/collections/pol/documents", files={"file": (name, data)}).json()["id"]
        assert jobs.wait(job, 120).status == "succeeded"
    listed = c.get("/api/collections/pol/documents").json()
    docs = {d["name"]: d["doc_id"] for d in listed}
    assert next(d for d in listed if d["name"] == "한빛 약관.txt")["labels"] == {"insurer": "한빛손해보험", "product": "한빛안심운전자보험"}  # as printed
    keep = f"doc={docs['한빛 약관.txt']}"
    bad = c.post("/api/collections/pol/appeals", files={"notice": ("n.txt", NOTICE.encode())}, data={"filters": ["doc=없는문서"]})
    assert bad.status_code == 422 and "doc=없는문서에 맞는 조각이 없습니다" in bad.json()["detail"]
    res = c.post("/api/collections/pol/appeals", files={"notice": ("통지서.txt", NOTICE.encode())}, data={"analysis": "rules", "filters": [keep]})
    assert res.status_code == 202, res.text
    job = jobs.wait(res.json()["id"], 300)
    assert job.status == "succeeded", job.error
    result = job.result
    assert result is not None and result["policy"]["source"] == f"pol [{keep}]" and result["policy"]["index"] == "pol"
    assert result["policy"]["products"][0] == "한빛안심운전자보험"  # the product its 보통약관 heading prints, then its title
    cited = {(item["provenance"]["doc"], item["provenance"]["doc_name"]) for item in result["evidence_pack"]}
    assert cited == {(docs["한빛 약관.txt"], "한빛 약관.txt")}, cited  # the kept document only, with the name it was uploaded with
    assert postgres_uri.split("@")[-1] not in json.dumps(result, ensure_ascii=False)  # where the server keeps the index is not shown
