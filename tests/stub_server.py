"""A loopback JSON server for tests that speak to OpenAI-compatible endpoints."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
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
