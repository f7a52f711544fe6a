"""PDF loader: the pages as ``yakgwan.ingest.pdf`` reads them (by layout, OCR where the text
layer is missing or broken), furniture stripped, broken words glued, private-use marks
resolved, joined into one ``Document`` with a ``PageSpan`` per page and a record of how each
page was read (``ocr_pages``, ``textless_pages``, ``unread_pages``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from yakgwan.messages import Message, msg
from yakgwan.core.errors import InputError, NoTextLayer
from yakgwan.core.records import Document, PageSpan, sha256_hex
from yakgwan.ingest.pdf.furniture import glue_wrapped_words, labels_first, strip_furniture
from yakgwan.ingest.pdf.marks import resolve_marks
from yakgwan.ingest.pdf.reader import How, PdfReading, read_pdf

MIN_TEXT_CHARS = 20  # fewer non-space characters in the whole file means no text layer

_PDFIUM_PASSWORD_ERROR = 4


def assemble(pages: list[list[str]]) -> tuple[str, tuple[PageSpan, ...]]:
    """Join page texts with a newline; each non-empty page gets its span in the result (pure)."""
    parts: list[str] = []
    spans: list[PageSpan] = []
    pos = 0
    for no, lines in enumerate(pages, 1):
        text = "\n".join(lines).strip("\n")
        if not text.strip():
            continue
        if parts:
            parts.append("\n")
            pos += 1
        spans.append(PageSpan(page=no, start=pos, end=pos + len(text)))
        parts.append(text)
        pos += len(text)
    return "".join(parts), tuple(spans)


def page_texts(reading: PdfReading) -> list[list[str]]:
    """Each page's lines as they go into the document (pure): furniture stripped, a table's label
    read before the wrapped cell beside it, words glued back, private-use marks resolved; a page
    that is not indexed has none."""
    kept = [list(p.lines) if reading.indexed(p) else [] for p in reading.pages]
    glued = [glue_wrapped_words(labels_first(lines)) for lines in strip_furniture(kept)]
    flat = resolve_marks([line for lines in glued for line in lines])
    out, pos = [], 0
    for lines in glued:
        out.append(flat[pos:pos + len(lines)])
        pos += len(lines)
    return out


def _open(path: Path, data: bytes):
    if not data:
        raise InputError(str(path), msg("load.empty"))
    if b"%PDF-" not in data[:1024]:
        raise InputError(str(path), msg("load.not_pdf"))
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == _PDFIUM_PASSWORD_ERROR:
            raise InputError(str(path), msg("load.encrypted")) from None
        raise InputError(str(path), msg("load.corrupt_pdf", why=str(exc))) from None


def _relative_id(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def _title(pdf, text: str) -> str:
    """The metadata's title unless it is a file name or holds no two letters or digits in a
    row ("`", "-"), else the first line of text that does."""
    title = (pdf.get_metadata_value("Title") or "").strip()
    if _WORDY.search(title) and not re.search(r"\.(hwp|docx?|pdf)$", title, re.IGNORECASE):
        return title
    first = next((ln.strip() for ln in text.splitlines() if _WORDY.search(ln)), "")
    return first[:120]


_WORDY = re.compile(r"\w\w")


def _mean_confidence(reading: PdfReading) -> float | None:
    read = [p.confidence for p in reading.pages if p.how is How.OCR and p.confidence is not None]
    return sum(read) / len(read) if read else None


def _unread_reason(reading: PdfReading) -> Message:
    """Why pages that needed OCR were not read, and what became of a broken text layer."""
    why: Message = reading.ocr_error.given_reason if reading.ocr_error else msg("ingest.ocr_illegible")  # type: ignore[assignment]
    if any(reading.indexed(p) for p in reading.pages if p.how is How.UNREAD):
        return msg("ingest.unread_kept", why=why)
    return why


class PdfLoader:
    """Loads one PDF into one ``Document`` (``kind="pdf"``) with a ``PageSpan`` per page.

    ``ocr``: read pages whose text layer is missing or broken by OCR (else they are named in
    ``unread_pages``, and a PDF with no text layer at all is a ``NoTextLayer`` error);
    ``on_ocr_page(done, total)`` is called as OCR reads each page.
    """

    def __init__(self, ocr: bool = True, on_ocr_page: Callable[[int, int], None] | None = None) -> None:
        self.ocr = ocr
        self.on_ocr_page = on_ocr_page

    def load(self, path: Path, root: Path) -> list[Document]:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(str(path), msg("load.cannot_read", why=str(exc.strerror or exc))) from None
        pdf = _open(path, data)
        try:
            if len(pdf) == 0:
                raise InputError(str(path), msg("load.pdf_no_pages"))
            try:
                reading = read_pdf(pdf, str(path), self.ocr, self.on_ocr_page)
            except InputError:
                raise
            except Exception as exc:  # any pdfium failure on a damaged page
                raise InputError(str(path), msg("load.pdf_text_unreadable", why=str(exc))) from None
            text, spans = assemble(page_texts(reading))
            if len(re.sub(r"\s", "", text)) < MIN_TEXT_CHARS:
                if reading.ocr_error is not None:
                    raise reading.ocr_error
                raise NoTextLayer(str(path), msg("load.no_legible_text" if self.ocr else "load.no_text_layer"))
            doc_id = _relative_id(path, Path(root))
            parts = doc_id.split("/")
            read = {s.page for s in spans}
            unread = reading.pages_read(How.UNREAD)
            return [Document(doc_id=doc_id, source=doc_id, title=_title(pdf, text), text=text, kind="pdf",
                             content_hash=sha256_hex(data), pages=spans,
                             doc_type=parts[0] if len(parts) > 1 else None,
                             textless_pages=tuple(p.number for p in reading.pages if p.number not in read and p.number not in unread),
                             ocr_pages=reading.pages_read(How.OCR), unread_pages=unread,
                             ocr_engine=reading.ocr_engine, ocr_confidence=_mean_confidence(reading),
                             unread_reason=_unread_reason(reading) if unread else None)]
        finally:
            pdf.close()
