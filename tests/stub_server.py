"""A loopback JSON server for tests that speak to OpenAI-compatible endpoints."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator


class JsonHandler(BaseHTTPRequestHandler):
    """Subclasses implement ``do_POST`` with ``self.body()`` and ``self.send_json(code, payload)``."""

    def body(self) -> dict[str, Any]:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def send_json(self, code: int, payload: dict[str, Any]) -> None:
        out = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args: object) -> None:
        pass

    def auth_or_embeddings(self, body: dict[str, Any], key: str, dim: int) -> bool:
        """Answer a request with a wrong key (401) or an embeddings request (hashing vectors of
        ``dim``); True when answered, so ``do_POST`` returns."""
        if self.headers.get("Authorization") != f"Bearer {key}":
            self.send_json(401, {"error": {"message": "invalid api key"}})
            return True
        if self.path.endswith("/embeddings"):
            from yakgwan.embedders.hashing import HashingEmbedder

            vecs = HashingEmbedder(dim=dim).embed(body["input"], "passage")
            self.send_json(200, {"data": [{"index": i, "embedding": v.tolist()} for i, v in enumerate(vecs)]})
            return True
        return False


def write_branch_kb(tmp_path: Path) -> Path:
    """A two-document knowledge base under ``tmp_path/kb`` and two answerable questions about it
    (seed format); returns the questions' file."""
    kb = tmp_path / "kb" / "faq"
    kb.mkdir(parents=True)
    (kb / "branch.md").write_text("# 지사\n\n| 지사 | 직원 수 |\n|---|---|\n| 부산 지사 | 8명 |\n| 제주 지사 | 6명 |\n", "utf-8")
    (kb / "refund.md").write_text("# 환불\n\n출발 30일 전까지 취소하면 전액 환불합니다.\n", "utf-8")
    tests = tmp_path / "t.jsonl"
    tests.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [
        {"question": "부산 지사 직원 수는?", "keywords": ["8명"], "reference_answer": "8명", "category": "direct_fact", "source_docs": ["faq/branch.md"]},
        {"question": "출발 30일 전 취소하면 환불은?", "keywords": ["전액"], "reference_answer": "전액 환불", "category": "direct_fact", "source_docs": ["faq/refund.md"]},
    ]), "utf-8")
    return tests


@contextmanager
def serve(handler: type[JsonHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 (a free port) and yield its ``/v1`` base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
