"""Errors as RFC 9457 problem details (``application/problem+json``) with a human message.

Every error a route raises on purpose is a :class:`Problem`; yakgwan's own errors map to one by
kind (bad input or an unknown name 422, index trouble 409, provider failure 502), and anything unexpected is a
500 whose detail names no internals."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from yakgwan.core.errors import IndexStoreError, InputError, ProviderError, UnknownName, YakgwanError

MEDIA_TYPE = "application/problem+json"
TITLES = {400: "Bad request", 401: "Unauthorized", 404: "Not found", 405: "Method not allowed", 409: "Conflict", 413: "Content too large",
          415: "Unsupported media type", 422: "Unprocessable content", 500: "Internal server error", 502: "Bad gateway", 503: "Unavailable"}
log = logging.getLogger("yakgwan.server")


class Problem(Exception):
    """An HTTP error with a message a person can act on."""

    def __init__(self, status: int, detail: str, kind: str | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.kind = kind or TITLES.get(status, "Error").lower().replace(" ", "-")


def problem_response(status: int, detail: str, kind: str, instance: str, headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"type": f"/problems/{kind}", "title": TITLES.get(status, "Error"), "status": status, "detail": detail, "instance": instance}
    extra = dict(headers or {})
    if status == 401:
        extra["WWW-Authenticate"] = 'ApiKey header="X-API-Key"'
    return JSONResponse(body, status_code=status, media_type=MEDIA_TYPE, headers=extra or None)


def from_yakgwan(exc: YakgwanError) -> Problem:
    if isinstance(exc, UnknownName):
        return Problem(422, str(exc), "unknown-name")
    if isinstance(exc, InputError):
        return Problem(422, str(exc), "bad-input")
    if isinstance(exc, IndexStoreError):
        return Problem(409, str(exc), "index")
    if isinstance(exc, ProviderError):
        return Problem(502, str(exc), "provider")
    return Problem(400, str(exc), "yakgwan")


def install(app: FastAPI) -> None:
    @app.exception_handler(Problem)
    async def _problem(request: Request, exc: Problem) -> JSONResponse:
        return problem_response(exc.status, exc.detail, exc.kind, request.url.path)

    @app.exception_handler(YakgwanError)
    async def _yakgwan(request: Request, exc: YakgwanError) -> JSONResponse:
        p = from_yakgwan(exc)
        return problem_response(p.status, p.detail, p.kind, request.url.path)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors()[:5]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
        return problem_response(422, "; ".join(parts) or "invalid request", "validation", request.url.path)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else TITLES.get(exc.status_code, "Error")
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no such route: {request.method} {request.url.path}"
        kind = TITLES.get(exc.status_code, "error").lower().replace(" ", "-")
        return problem_response(exc.status_code, detail, kind, request.url.path, dict(exc.headers or {}))  # e.g. Allow on a 405

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return problem_response(500, "the server failed on this request; its log has the details", "internal", request.url.path)
