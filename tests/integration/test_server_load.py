"""Load and abuse against a real server on loopback: 200 concurrent searches while an ingest runs
(no errors, no short result lists), and requests a server must turn away cleanly (a 100 MB body,
an archive bomb named .pdf, a path in a file name, a missing or wrong API key). Latencies are
written to artifacts/load.json."""

from __future__ import annotations

import http.client
import io
import json
import statistics
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from live_server import live_server

from yakgwan.config import ServerConfig, Settings
from yakgwan.server.app import create_app
from yakgwan.server.runtime.datasets import SAMPLE

pytestmark = pytest.mark.integration

KEY = "load-test-key"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def _request(base: str, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None, timeout: float = 120) -> tuple[int, dict[str, Any], float]:
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    t0 = time.perf_counter()
    conn.request(method, path, body=body, headers={"X-API-Key": KEY, **(headers or {})})
    res = conn.getresponse()
    data = res.read()
    ms = (time.perf_counter() - t0) * 1000
    conn.close()
    try:
        parsed = json.loads(data) if data else {}
    except ValueError:
        parsed = {"raw": data[:200].decode("utf-8", "replace")}
    return res.status, parsed, ms


def _multipart(field: str, name: str, data: bytes) -> tuple[bytes, str]:
    boundary = "yakgwanboundary7MA4YWxk"
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _upload(base: str, collection: str, name: str, data: bytes) -> tuple[int, dict[str, Any]]:
    body, ctype = _multipart("file", name, data)
    status, out, _ = _request(base, "POST", f"/api/collections/{collection}/documents", body, {"Content-Type": ctype})
    return status, out


def _wait(base: str, job_id: str, timeout_s: float = 600) -> dict[str, Any]:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        _, job, _ = _request(base, "GET", f"/api/jobs/{job_id}")
        if job["status"] in ("succeeded", "failed"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout_s} s")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    settings = Settings.from_env().with_(quiet=True)  # the real bundled embedder
    cfg = ServerConfig(settings, tmp_path_factory.mktemp("load"), api_key=KEY, max_upload_bytes=20 * 1024 * 1024)
    with live_server(create_app(cfg)) as url:
        status, _, _ = _request(url, "POST", "/api/collections", json.dumps({"name": "load"}).encode(), {"Content-Type": "application/json"})
        assert status == 201
        for doc in sorted((SAMPLE / "knowledge_base").rglob("*.md")):
            status, job = _upload(url, "load", doc.name, doc.read_bytes())
            assert status == 202 and _wait(url, job["id"])["status"] == "succeeded"
        yield url


def test_200_concurrent_searches_while_an_ingest_runs(server: str) -> None:
    # a long document never seen before (no cached embeddings): its ingest overlaps the searches
    run = time.time_ns()
    big = "# 긴 약관\n\n" + "\n\n".join(f"## 제{i}조(조항 {i})\n\n회사는 제{i}조에 따라 여행 중 사고 {i}건에 대하여 보험금 {i * 10}만원을 지급합니다. (판 {run})"
                                     for i in range(1, 401))
    status, job = _upload(server, "load", "long.md", big.encode())
    assert status == 202
    while _request(server, "GET", f"/api/jobs/{job['id']}")[1]["status"] == "queued":
        time.sleep(0.05)
    queries = ["해외 의료비 한도", "여행 취소 보상", "휴대품 도난 서류", "가입 나이", "고객센터 운영 시간"]
    k = 5

    finished_at: list[float] = []

    def search(i: int) -> tuple[int, dict[str, Any], float]:
        body = json.dumps({"query": queries[i % len(queries)], "k": k}).encode()
        out = _request(server, "POST", "/api/collections/load/search", body, {"Content-Type": "application/json"})
        finished_at.append(time.time())
        return out

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=200) as pool:
        results = list(pool.map(search, range(200)))
    wall = time.perf_counter() - t0
    done = _wait(server, job["id"])
    assert done["status"] == "succeeded", done
    during = sum(done["started"] <= t <= done["finished"] for t in finished_at)
    assert during > 0, "no search finished while the ingest ran"
    errors = [(s, r) for s, r, _ in results if s != 200]
    assert not errors, errors[:3]
    short = [(len(r["hits"]), r.get("dense"), [h["doc_name"] for h in r["hits"]]) for _, r, _ in results if len(r["hits"]) != k or not all(h["text"] and h["doc_name"] for h in r["hits"])]
    assert not short, short[:3]
    ms = sorted(m for _, _, m in results)
    report = {"searches": len(ms), "concurrency": 200, "k": k, "wall_s": round(wall, 2), "p50_ms": round(statistics.median(ms), 1),
              "p95_ms": round(ms[int(0.95 * len(ms)) - 1], 1), "max_ms": round(ms[-1], 1), "searches_finished_during_ingest": during,
              "ingest_seconds": done["result"]["seconds"], "ingest_chunks": done["result"]["chunks"]}
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "load.json").write_text(json.dumps(report, indent=1), "utf-8")
    print(f"\nload: {report}")
    after = search(0)[1]
    assert len(after["hits"]) == k and after["dense"] == "ready"


def test_a_100_mb_body_is_refused_before_it_is_read(server: str) -> None:
    host, port = server.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    size = 100 * 1024 * 1024
    conn.putrequest("POST", "/api/collections/load/documents")
    conn.putheader("X-API-Key", KEY)
    conn.putheader("Content-Type", "multipart/form-data; boundary=x")
    conn.putheader("Content-Length", str(size))
    conn.endheaders()
    sent = 0
    t0 = time.perf_counter()
    try:
        chunk = b"0" * (1024 * 1024)
        while sent < size:
            conn.send(chunk)
            sent += len(chunk)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server answered and closed: what we want
    res = conn.getresponse()
    body = json.loads(res.read())
    assert res.status == 413 and "업로드 한도" in body["detail"] and res.getheader("content-type").startswith("application/problem+json")
    assert time.perf_counter() - t0 < 20


def test_abusive_uploads_and_keys_are_refused(server: str, tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", b"0" * (400 * 1024 * 1024))
    status, body = _upload(server, "load", "policy.pdf", buf.getvalue())
    assert status == 413 and "압축 폭탄" in body["detail"]
    status, body = _upload(server, "load", "../../../../../tmp/yakgwan-escape.md", "# 탈출\n\n경로 이름은 쓰이지 않습니다.".encode())
    assert status == 202 and _wait(server, body["id"])["result"]["name"] == "yakgwan-escape.md"
    assert not Path("/tmp/yakgwan-escape.md").exists()
    status, body, _ = _request(server, "GET", "/api/collections", headers={"X-API-Key": ""})
    assert status == 401 and "X-API-Key" in body["detail"]
    status, body, _ = _request(server, "GET", "/api/collections", headers={"X-API-Key": "wrong-key-123"})
    assert status == 401 and body["detail"] == "API 키가 올바르지 않습니다."
    status, body, _ = _request(server, "GET", "/api/health", headers={"X-API-Key": ""})
    assert status == 200 and body["auth"] is True
