"""Benchmark: warm search latency on the KB policy through the HTTP API (the server's app in
process, FastAPI's test client), default pipeline, k=10.

Not a test. Creates a collection, uploads the 168-page policy, waits for the ingest, then sends
every question of a question file (default: ../shared policy_qa dev) ``--rounds`` times; the first
round warms the models and is not counted. Prints p50/p95/max of the client-side latency and of
the latency the server reports, and what pipeline ran.

    .venv/bin/python bench/search_policy.py [--rounds 3] [--questions FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from yakgwan.config import ServerConfig, Settings
from yakgwan.eval.metrics import latency_summary
from yakgwan.server.app import create_app

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
PDF = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
QUESTIONS = SHARED / "policy_qa" / "questions_dev.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    args = ap.parse_args()
    if args.rounds < 2:
        raise SystemExit("--rounds must be at least 2 (the first round only warms up)")
    for f in (PDF, args.questions):
        if not f.is_file():
            raise SystemExit(f"needs {f} (the ../shared folder beside the repository)")
    questions = [json.loads(line)["question"] for line in args.questions.read_text("utf-8").splitlines() if line.strip()]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env().with_(index_dir=Path(tmp) / "unused", quiet=True)
        app = create_app(ServerConfig(settings, Path(tmp) / "data"))
        client = TestClient(app)
        assert client.post("/api/collections", json={"name": "kb", "title": "KB 운전자보험"}).status_code == 201
        t0 = time.perf_counter()
        res = client.post("/api/collections/kb/documents", files={"file": (PDF.name, PDF.read_bytes())})
        job = app.state.service.jobs.wait(res.json()["id"], 600)
        print(f"ingest job {job.status} in {time.perf_counter() - t0:.1f} s")
        client_ms: list[float] = []
        server_ms: list[float] = []
        pipelines = set()
        for r in range(args.rounds):
            for q in questions:
                t = time.perf_counter()
                out = client.post("/api/collections/kb/search", json={"query": q, "k": 10})
                ms = (time.perf_counter() - t) * 1000
                if out.status_code != 200:
                    raise SystemExit(f"search failed ({out.status_code}): {out.text[:300]}")
                if r > 0:  # the first round loads the models
                    client_ms.append(ms)
                    server_ms.append(out.json()["latency_ms"])
                    pipelines.add(out.json()["pipeline"])
        for what, xs in (("client", client_ms), ("server-reported", server_ms)):
            s = latency_summary(xs)
            print(f"{what:>16}: {len(xs)} searches, p50 {s['p50']:.1f} ms, p95 {s['p95']:.1f} ms, max {max(xs):.1f} ms")
        print(f"pipeline: {', '.join(sorted(pipelines))}; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
