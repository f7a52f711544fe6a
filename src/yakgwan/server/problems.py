"""Errors as RFC 9457 problem details (``application/problem+json``) with a human message.

Every error a route raises on purpose is a :class:`Problem` whose detail is a catalogue message;
yakgwan's own errors map to one by kind (bad input or an unknown name 422, index trouble 409,
provider failure 502), and anything unexpected is a 500 whose detail names no internals. ``title``
and ``detail`` are in Korean unless the request's ``Accept-Language`` prefers English."""

from __future__ import annotations

import logging

from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from yakgwan.core.errors import IndexStoreError, InputError, ProviderError, UnknownName, YakgwanError
from yakgwan.messages import DEFAULT_LANG, Message, catalogue, msg, negotiate

MEDIA_TYPE = "application/problem+json"
TITLES = {400: "Bad request", 401: "Unauthorized", 404: "Not found", 405: "Method not allowed", 409: "Conflict", 413: "Content too large",
          415: "Unsupported media type", 422: "Unprocessable content", 500: "Internal server error", 502: "Bad gateway", 503: "Unavailable"}
log = logging.getLogger("yakgwan.server")


def request_lang(request: Request) -> str:
    """The language a request reads: its ``Accept-Language`` (Korean by default)."""
    return negotiate(request.headers.get("accept-language"))


Lang = Annotated[str, Depends(request_lang)]  # a route's parameter: the language its answer is in


def title(status: int, lang: str = DEFAULT_LANG) -> str:
    key = f"problem.title.{status}"
    return msg(key if catalogue().has(key) else "problem.title.other").text(lang)


class Problem(Exception):
    """An HTTP error with a message a person can act on: a catalogue message, or yakgwan's own
    error (shown in its message's language where it has one)."""

    def __init__(self, status: int, detail: "Message | YakgwanError", kind: str | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(str(detail))
        self.details = details  # what a client needs to finish the job itself (a failed job's ``details``)
        self.status = status
        self.message = detail if isinstance(detail, Message) else None
        self.error = detail if isinstance(detail, YakgwanError) else None
        self.kind = kind or TITLES.get(status, "Error").lower().replace(" ", "-")

    def detail(self, lang: str) -> str:
        if self.message is not None:
            return self.message.text(lang)
        assert self.error is not None
        return self.error.localized(lang)


def problem_response(status: int, detail: str, kind: str, instance: str, headers: dict[str, str] | None = None, lang: str = DEFAULT_LANG) -> JSONResponse:
    body = {"type": f"/problems/{kind}", "title": title(status, lang), "status": status, "detail": detail, "instance": instance}
    extra = dict(headers or {})
    if status == 401:
        extra["WWW-Authenticate"] = 'ApiKey header="X-API-Key"'
    extra["Content-Language"] = lang
    return JSONResponse(body, status_code=status, media_type=MEDIA_TYPE, headers=extra)


def from_yakgwan(exc: YakgwanError) -> Problem:
    if isinstance(exc, UnknownName):
        return Problem(422, exc, "unknown-name")
    if isinstance(exc, InputError):
        return Problem(422, exc, "bad-input")
    if isinstance(exc, IndexStoreError):
        return Problem(409, exc, "index")
    if isinstance(exc, ProviderError):
        return Problem(502, exc, "provider")
    return Problem(400, exc, "yakgwan")


def install(app: FastAPI) -> None:
    @app.exception_handler(Problem)
    async def _problem(request: Request, exc: Problem) -> JSONResponse:
        lang = request_lang(request)
        return problem_response(exc.status, exc.detail(lang), exc.kind, request.url.path, lang=lang)

    @app.exception_handler(YakgwanError)
    async def _yakgwan(request: Request, exc: YakgwanError) -> JSONResponse:
        p, lang = from_yakgwan(exc), request_lang(request)
        return problem_response(p.status, p.detail(lang), p.kind, request.url.path, lang=lang)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors()[:5]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
        lang = request_lang(request)
        return problem_response(422, msg("error.invalid_request", fields="; ".join(parts) or "-").text(lang), "validation", request.url.path, lang=lang)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        lang = request_lang(request)
        if exc.status_code == 404 and exc.detail == "Not Found":
            detail = msg("error.no_route", method=request.method, path=request.url.path).text(lang)
        elif isinstance(exc.detail, str) and exc.detail != TITLES.get(exc.status_code) and exc.status_code != 405:
            detail = exc.detail
        else:
            detail = title(exc.status_code, lang)
        kind = TITLES.get(exc.status_code, "error").lower().replace(" ", "-")
        return problem_response(exc.status_code, detail, kind, request.url.path, dict(exc.headers or {}), lang=lang)  # e.g. Allow on a 405

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        lang = request_lang(request)
        return problem_response(500, msg("error.internal").text(lang), "internal", request.url.path, lang=lang)
