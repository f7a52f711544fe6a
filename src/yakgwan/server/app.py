"""The FastAPI application: API routes under /api, the web app at /, errors as problem+json."""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint

from yakgwan import __version__
from yakgwan.messages import DEFAULT_LANG, LANGS, catalogue, msg
from yakgwan.server import problems
from yakgwan.server.routes import eval as routes_eval
from yakgwan.server.routes import appeal as routes_appeal
from yakgwan.server.routes import collections as routes_collections
from yakgwan.server.routes import query as routes_query
from yakgwan.server.schemas import Health
from yakgwan.config import ServerConfig
from yakgwan.server.runtime.service import Service
from yakgwan.server.runtime.uploads import BODY_OVERHEAD, BodyLimit

WEB = Path(__file__).resolve().parent / "web"
OPEN_PATHS = ("/api/health", "/api/messages")  # API routes answered without a key even when one is required (no data)


def needs_key(path: str) -> bool:
    """Everything needs the key but the page (``/``, ``/static/…``: no data) and /api/health.
    ``path`` is the route path (without any root path the app is mounted under)."""
    if path in ("", "/") or path.startswith("/static/"):
        return False
    return path.rstrip("/") not in OPEN_PATHS


def create_app(config: ServerConfig, service: Service | None = None) -> FastAPI:
    service = service or Service.build(config)
    app = FastAPI(title="yakgwan", version=__version__, description="Korean-first retrieval, grounded answers, denial appeals and evaluation.",
                  docs_url="/api/docs", redoc_url=None, openapi_url="/openapi.json")
    app.state.service = service
    problems.install(app)

    @app.get("/api/health", response_model=Health, tags=["service"], summary="Liveness and configuration (no key needed)")
    def health() -> Health:
        s = config.settings
        llm = "none" if s.llm.provider == "none" else f"{s.llm.provider}:{s.llm.model or 'default'}"
        return Health(status="ok", version=__version__, embedder=s.embedder.name, llm=llm, llm_provider=s.llm.provider, auth=config.api_key is not None)

    @app.get("/api/messages", tags=["service"], summary="The message catalogue the web app shows, in Korean and English (no key needed)")
    def messages() -> dict[str, Any]:
        return {"default": DEFAULT_LANG, "langs": list(LANGS), "messages": {lang: catalogue().for_lang(lang) for lang in LANGS}}

    for module in (routes_collections, routes_query, routes_appeal, routes_eval):
        app.include_router(module.router(service))

    app.mount("/static", StaticFiles(directory=WEB), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(WEB / "index.html", media_type="text/html; charset=utf-8")

    if config.api_key is not None:
        app.add_middleware(_ApiKey, key=config.api_key)
    app.add_middleware(BodyLimit, limit=config.max_upload_bytes + BODY_OVERHEAD)
    app.add_middleware(VaryByLanguage)
    app.openapi = lambda: _openapi(app, config.api_key is not None)  # type: ignore[method-assign]
    app.router.on_shutdown.append(service.jobs.shutdown)
    if config.warm_up:
        app.router.on_startup.append(lambda: _warm_up(service))
    return app


def _warm_up(service: Service) -> None:
    """Load the embedder and the question analyser in the background, so that the first search
    or question does not wait seconds for them."""
    import threading

    def load() -> None:
        try:
            service.models.embedder().embed(["준비"], "query")
            service.models.anchor_finder().anchors("준비")
            service.models.tokenizer(service.config.settings.tokenizer).tokenize("준비")
        except Exception:  # noqa: BLE001 - a failed warm-up shows up on the first real request instead
            problems.log.warning("warm-up failed", exc_info=True)

    threading.Thread(target=load, name="yakgwan-warm-up", daemon=True).start()


class VaryByLanguage:
    """ASGI middleware: every answer says it varies by ``Accept-Language`` (errors, job stages and
    evidence packs are in the reader's language), so no cache serves one reader's to another."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_varied(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"vary"]
                vary = [v.decode("latin-1") for k, v in message.get("headers", []) if k.lower() == b"vary"]
                headers.append((b"vary", ", ".join([*vary, "Accept-Language"]).encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_varied)


class _ApiKey(BaseHTTPMiddleware):
    """Every route but the page and /api/health needs the key (see :func:`needs_key`): header
    ``X-API-Key`` or ``Authorization: Bearer KEY``."""

    def __init__(self, app: Any, key: str) -> None:
        super().__init__(app)
        self.key = key.encode()

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        path = request.url.path
        root = request.scope.get("root_path") or ""
        route_path = path[len(root):] if root and path.startswith(root) else path
        if needs_key(route_path):
            given = request.headers.get("x-api-key") or ""
            auth = request.headers.get("authorization") or ""
            lang = problems.request_lang(request)
            if not given and auth.lower().startswith("bearer "):
                given = auth[7:].strip()
            if not given:
                return problems.problem_response(401, msg("error.missing_key").text(lang), "missing-key", path, lang=lang)
            if not hmac.compare_digest(given.encode(), self.key):
                return problems.problem_response(401, msg("error.invalid_key").text(lang), "invalid-key", path, lang=lang)
        return await call_next(request)


def _openapi(app: FastAPI, auth: bool) -> dict[str, Any]:
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        problem = {"type": "object", "required": ["type", "title", "status", "detail"], "properties": {
            "type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer"}, "detail": {"type": "string"},
            "instance": {"type": "string"}}}
        schema.setdefault("components", {}).setdefault("schemas", {})["Problem"] = problem
        for path_item in schema.get("paths", {}).values():
            for op in path_item.values():
                op.setdefault("responses", {}).setdefault("default", {"description": "an error (RFC 9457 problem details)",
                                                                       "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}})
        if auth:
            schema["components"]["securitySchemes"] = {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}
            for path, path_item in schema.get("paths", {}).items():
                if path not in OPEN_PATHS:
                    for op in path_item.values():
                        op["security"] = [{"ApiKey": []}]
        app.openapi_schema = schema
    return app.openapi_schema
