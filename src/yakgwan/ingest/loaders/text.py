"""Plain text and Markdown files."""

from __future__ import annotations

import re
from pathlib import Path

from yakgwan.messages import msg
from yakgwan.core.errors import InputError
from yakgwan.ingest.loaders.textdecode import DecodeFailure, decode_text
from yakgwan.core.records import Document, sha256_hex

_MD_TITLE = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def read_decoded(path: Path) -> tuple[bytes, str]:
    """A text file's bytes and its decoded text; an empty or undecodable file is an ``InputError``
    naming it."""
    data = path.read_bytes()
    if not data.strip():
        raise InputError(str(path), msg("load.empty"))
    try:
        text, _encoding = decode_text(data)
    except DecodeFailure as exc:
        raise InputError(str(path), exc.message) from None
    return data, text


def read_text_document(path: Path, root: Path, kind: str) -> Document:
    data, text = read_decoded(path)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise InputError(str(path), msg("load.no_text"))
    return Document(
        doc_id=relative_id(path, root),
        source=relative_id(path, root),
        title=_title(text, path, kind),
        text=text,
        kind=kind,
        content_hash=sha256_hex(data),
        doc_type=doc_type_of(path, root),
    )


def relative_id(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def doc_type_of(path: Path, root: Path) -> str | None:
    """The first folder under the ingest root (the seed format's document type), if any."""
    parts = Path(relative_id(path, root)).parts
    return parts[0] if len(parts) > 1 else None


def _title(text: str, path: Path, kind: str) -> str:
    if kind == "markdown":
        m = _MD_TITLE.search(text)
        if m:
            return m.group(1).strip()
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:120]
    return path.stem


class TextLoader:
    def load(self, path: Path, root: Path) -> list[Document]:
        return [read_text_document(path, root, "text")]


class MarkdownLoader:
    def load(self, path: Path, root: Path) -> list[Document]:
        return [read_text_document(path, root, "markdown")]
