"""Uploads: a size limit enforced while the body arrives, the type read from the content (never
from the name), archives checked before any parser opens them, and names kept for display only.

A stored upload is ``<sha256 prefix><suffix of the sniffed type>``: what the client called the
file never becomes part of a path."""

from __future__ import annotations

import io
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from yakgwan.services.ingest import DecodeFailure, decode_prefix, docx_verdict, looks_binary
from yakgwan.core.records import sha256_hex
from yakgwan.messages import Message as Text, msg, negotiate
from yakgwan.server.problems import Problem, problem_response

BODY_OVERHEAD = 64 * 1024  # multipart boundaries and form fields around the file

KINDS = {"pdf": ".pdf", "docx": ".docx", "html": ".html", "markdown": ".md", "text": ".txt", "png": ".png", "jpeg": ".jpg"}
NAME_KINDS = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown", ".txt": "text", ".text": "text",
              ".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg"}
PICTURES = ("png", "jpeg")  # read only as a denial notice (by OCR), never indexed


@dataclass(frozen=True)
class Sniffed:
    kind: str  # a key of KINDS
    sha256: str
    display_name: str

    @property
    def stored_name(self) -> str:
        return f"{self.sha256[:16]}{KINDS[self.kind]}"


SNIFF_BYTES = 256 * 1024  # what an upload's kind is told from

def display_name(raw: str | None, fallback: str = "upload") -> str:
    """The client's file name for display: its last path part, no control characters, at most
    120 characters. Never used to build a path."""
    name = (raw or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in unicodedata.normalize("NFC", name) if unicodedata.category(ch)[0] != "C").strip()
    name = name.lstrip(".") or fallback
    return name[:120]


def sniff(data: bytes, name: str | None) -> Sniffed:
    """What the bytes are, or a 415/413 :class:`Problem` that says why they cannot be used."""
    shown = display_name(name)
    if not data:
        raise Problem(422, msg("error.upload_empty", file=shown), "empty-upload")
    kind = _kind(data, shown)
    claimed = NAME_KINDS.get(_suffix(shown))
    text_kinds = {"markdown", "text", "html"}
    if claimed is not None and claimed != kind and not (claimed in text_kinds and kind in text_kinds):
        raise Problem(415, msg("error.type_mismatch", file=shown, suffix=_suffix(shown), content=describe(kind)), "type-mismatch")
    if kind == "text" and claimed in ("markdown", "html"):  # a fragment without <html> is still the page its name says
        kind = claimed
    return Sniffed(kind, sha256_hex(data), shown)


def _suffix(name: str) -> str:
    return ("." + name.rsplit(".", 1)[-1].lower()) if "." in name else ""


def describe(kind: str) -> Text:
    """What content of ``kind`` (a key of :data:`KINDS`) is, in words."""
    return msg(f"content.{kind}")


def _kind(data: bytes, shown: str) -> str:
    if data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06"):  # before %PDF-: an entry may be named so
        _check_zip(data, shown)
        return "docx"
    if data.startswith(b"%PDF-"):
        return "pdf"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    try:  # the decoder ``ingest`` reads text files with: a UTF-16 file (NUL bytes after its BOM) is text
        text, _ = decode_prefix(data, SNIFF_BYTES)
    except (DecodeFailure, LookupError) as exc:  # LookupError: a guessed codec Python does not have
        if b"%PDF-" in data[:1024]:  # a PDF may carry a few bytes before its header
            return "pdf"
        if looks_binary(data):
            raise Problem(415, msg("error.not_a_document", file=shown, start=repr(data[:8])), "unsupported-type") from None
        raise Problem(415, msg("error.not_text", file=shown, why=exc.message if isinstance(exc, DecodeFailure) else str(exc)), "unsupported-type") from None
    if re.match(r"\s*(<!doctype html|<html)", text[:2048], re.IGNORECASE):
        return "html"
    return "text"


def _check_zip(data: bytes, shown: str) -> None:
    """A Word document, not an archive bomb (:func:`~yakgwan.ingest.loaders.archive.docx_verdict`: the
    central directory's sizes are read before anything is expanded)."""
    verdict = docx_verdict(io.BytesIO(data), len(data), shown)
    if verdict is not None:
        raise Problem(413 if verdict.bomb else 415, verdict.message, "archive-bomb" if verdict.bomb else "unsupported-type")


class BodyLimit:
    """ASGI middleware: a request whose body is larger than ``limit`` bytes is answered 413, from
    its Content-Length before reading, or as soon as a streamed body passes the limit."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        lang = negotiate(headers.get(b"accept-language", b"").decode("latin-1"))
        detail = msg("error.body_too_large", limit=f"{self.limit - BODY_OVERHEAD:,}").text(lang)
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            return await problem_response(413, detail, "too-large", scope["path"], lang=lang)(scope, receive, send)
        seen = 0
        over = False  # the body passed the limit: whatever the app answers is replaced by a 413
        replaced = False

        async def limited() -> Message:
            nonlocal seen, over
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    over = True
                    raise _TooLarge()
            return msg

        async def guarded_send(msg: Message) -> None:
            nonlocal replaced
            if not over:
                return await send(msg)
            if not replaced:
                replaced = True
                await problem_response(413, detail, "too-large", scope["path"], lang=lang)(scope, receive, send)

        try:
            await self.app(scope, limited, guarded_send)
        except _TooLarge:
            if not replaced:
                replaced = True
                await problem_response(413, detail, "too-large", scope["path"], lang=lang)(scope, receive, send)


class _TooLarge(Exception):
    pass


def renamed(value: Any, old: str, new: str) -> Any:
    """``value`` (JSON) with ``old`` replaced by ``new`` in every string it holds: where the server
    stored a file, in what a client reads, becomes the name the client gave it. Pure."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {k: renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, old, new) for v in value]
    return value
