"""PDF loader: pdfium text segments rebuilt into visual lines, page furniture stripped.

Why this shape (measured by ``bench/pdf_extractors.py`` on a 168-page 약관):

* pdfium's own ``get_text_range`` is fast but glues some lines together ("체결됩니다. 제2조(…)"),
  which hides article headings; pypdf keeps lines but is ~20x slower; pdfplumber keeps table rows
  but is ~10x slower. Reading pdfium's text *rectangles* and grouping them by vertical position
  gives pdfplumber-like lines (table rows on one line) at pdfium speed.
* Cells of a table row are separated by a tab, where the horizontal gap is far wider than a word
  space (> ``CELL_GAP`` line heights; gaps inside running text stay below 1.5).
* A word broken at the right margin ("청" + newline + "약을") is glued back, so the lexical index
  sees "청약을"; a line that ends in a space was wrapped at a word boundary and keeps its newline.
* Page numbers ("- 4 -", "4 / 168", "p. 4", a bare number that follows the page order) and lines
  repeated at the top or bottom of at least half the pages are removed before offsets are taken.
"""

from __future__ import annotations

import ctypes
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from yakgwan.messages import msg
from yakgwan.core.errors import InputError, NoTextLayer
from yakgwan.core.records import Document, PageSpan, sha256_hex

CELL_GAP = 1.8  # horizontal gap, in line heights, above which two segments are separate cells
MIN_LINE_HEIGHT = 6.0  # points; guards against zero-height boxes of glyphs without outlines
EDGE_LINES = 2  # lines at the top and at the bottom of a page inspected for furniture
MIN_TEXT_CHARS = 20  # fewer non-space characters in the whole file means no text layer

_PDFIUM_PASSWORD_ERROR = 4
_DECORATED_PAGE_NO = [
    re.compile(r"^[-–—]\s*(\d{1,4})\s*[-–—]$"),
    re.compile(r"^(\d{1,4})\s*/\s*\d{1,4}$"),
    re.compile(r"^(?:page|p\.)\s*(\d{1,4})(?:\s*(?:of|/)\s*\d{1,4})?$", re.IGNORECASE),
    re.compile(r"^(\d{1,4})\s*(?:쪽|페이지)$"),
]
_BARE_PAGE_NO = re.compile(r"^(\d{1,4})$")
_WRAP_TAIL = re.compile(r"[가-힣0-9]$")
_WRAP_HEAD = re.compile(r"^[가-힣0-9]")
_ITEM_MARKER = re.compile(r"^(?:\d{1,3}[.)]|[가-하][.)]|\(\d{1,3}\)|[①-⑳➀-➉]|제\s*\d+\s*[조관장절])")
_LEADER = re.compile(r"[·.…・]{4,}|…{2,}")


@dataclass(frozen=True)
class Segment:
    """A run of text on one baseline as pdfium reports it (PDF units, y grows upwards)."""

    x0: float
    top: float
    x1: float
    bottom: float
    text: str


@dataclass(frozen=True)
class Line:
    text: str
    x1: float
    is_row: bool  # has cells separated by a tab


def group_lines(segments: list[Segment]) -> list[list[Segment]]:
    """Group segments whose vertical extents overlap by half of the smaller one; top to bottom."""
    lines: list[tuple[float, float, list[Segment]]] = []
    for seg in sorted(segments, key=lambda s: -(s.top + s.bottom) / 2):
        for i in range(len(lines) - 1, max(len(lines) - 4, -1), -1):
            top, bottom, members = lines[i]
            overlap = min(seg.top, top) - max(seg.bottom, bottom)
            if overlap >= 0.5 * min(seg.top - seg.bottom, top - bottom):
                members.append(seg)
                lines[i] = (max(top, seg.top), min(bottom, seg.bottom), members)
                break
        else:
            lines.append((seg.top, seg.bottom, [seg]))
    return [sorted(members, key=lambda s: s.x0) for _, _, members in lines]


def line_from_segments(members: list[Segment]) -> Line:
    """Concatenate a line's segments left to right; a wide gap becomes a tab (a table cell)."""
    height = max(max(s.top for s in members) - min(s.bottom for s in members), MIN_LINE_HEIGHT)
    parts: list[str] = []
    is_row = False
    for prev, seg in zip([None, *members], members):
        if prev is not None and seg.x0 - prev.x1 > CELL_GAP * height:
            parts[-1] = parts[-1].rstrip(" ")
            parts.append("\t")
            is_row = True
        parts.append(seg.text)
    text = "".join(parts).replace("\r", "").replace("\n", " ")
    return Line(text=text, x1=members[-1].x1, is_row=is_row)


def right_margin(pages: list[list[Line]]) -> float:
    """The document's right text edge: the median over pages of each page's widest body line."""
    edges = sorted(max(ln.x1 for ln in body) for body in
                   ([ln for ln in page if not ln.is_row and ln.text.strip()] for page in pages) if body)
    return edges[len(edges) // 2] if edges else 0.0


def glue_wrapped_words(lines: list[Line], right: float) -> list[str]:
    """Join a line that was broken inside a word at the right margin ``right`` with its continuation.

    A line is glued to the next when it reaches the right margin, does not end in a space, ends in
    a Hangul syllable or digit, is not a table-of-contents line (dot leaders), and the next line
    starts with a Hangul syllable or digit and is not a list item or a 조/관 heading.
    """
    out: list[str] = []
    glue_next = False
    for ln in lines:
        text = ln.text.rstrip()
        if glue_next and _WRAP_HEAD.match(text) and not _ITEM_MARKER.match(text) and not ln.is_row:
            out[-1] += text
        else:
            out.append(text)
        glue_next = (not ln.is_row and ln.x1 >= right - MIN_LINE_HEIGHT * 1.5
                     and bool(_WRAP_TAIL.search(ln.text)) and not _LEADER.search(text))
    return out


def _page_number(line: str) -> tuple[int | None, bool]:
    """The page number a furniture line shows, and whether it is decorated ("- 4 -")."""
    s = line.strip()
    for pattern in _DECORATED_PAGE_NO:
        m = pattern.match(s)
        if m:
            return int(m.group(1)), True
    m = _BARE_PAGE_NO.match(s)
    return (int(m.group(1)), False) if m else (None, False)


def _edge_indices(n: int) -> list[int]:
    return sorted(set(range(min(EDGE_LINES, n))) | set(range(max(n - EDGE_LINES, 0), n)))


def _furniture_key(line: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", line)).strip()


def strip_furniture(pages: list[list[Line]]) -> list[list[Line]]:
    """Drop page numbers and running headers/footers from the edges of each page (pure)."""
    offsets: Counter[int] = Counter()
    keys: Counter[str] = Counter()
    for no, lines in enumerate(pages, 1):
        seen = set()
        for i in _edge_indices(len(lines)):
            value, decorated = _page_number(lines[i].text)
            if value is not None and not decorated:
                offsets[value - no] += 1
            seen.add(_furniture_key(lines[i].text))
        keys.update(k for k in seen if k)
    bare_offset = next((o for o, c in offsets.most_common(1) if c >= 3), None)
    repeated = {k for k, c in keys.items() if len(pages) >= 3 and c >= max(3, len(pages) / 2)}
    out = []
    for no, lines in enumerate(pages, 1):
        drop = set()
        for i in _edge_indices(len(lines)):
            value, decorated = _page_number(lines[i].text)
            if decorated or (value is not None and bare_offset is not None and value - no == bare_offset):
                drop.add(i)
            elif _furniture_key(lines[i].text) in repeated:
                drop.add(i)
        out.append([ln for i, ln in enumerate(lines) if i not in drop])
    return out


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


def _read_segments(textpage) -> list[Segment]:
    import pypdfium2.raw as pdfium_c

    raw = textpage.raw
    left, top, right, bottom = (ctypes.c_double() for _ in range(4))
    size = 4096
    buf = (ctypes.c_ushort * size)()
    segments = []
    for i in range(pdfium_c.FPDFText_CountRects(raw, 0, -1)):
        pdfium_c.FPDFText_GetRect(raw, i, ctypes.byref(left), ctypes.byref(top),
                                  ctypes.byref(right), ctypes.byref(bottom))
        n = pdfium_c.FPDFText_GetBoundedText(raw, left.value, top.value, right.value, bottom.value, buf, size)
        text = ctypes.string_at(buf, 2 * n).decode("utf-16-le", "ignore").rstrip("\x00") if n > 0 else ""
        if text:
            segments.append(Segment(left.value, top.value, right.value, bottom.value, text))
    return segments


def extract_lines(pdf) -> list[list[Line]]:
    """Visual lines of every page of an open ``pypdfium2.PdfDocument``."""
    pages = []
    for index in range(len(pdf)):
        page = pdf[index]
        textpage = page.get_textpage()
        try:
            pages.append([line_from_segments(m) for m in group_lines(_read_segments(textpage))])
        finally:
            textpage.close()
            page.close()
    return pages


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
    title = (pdf.get_metadata_value("Title") or "").strip()
    if title and not re.search(r"\.(hwp|docx?|pdf)$", title, re.IGNORECASE):
        return title
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return first[:120]


class PdfLoader:
    """Loads one PDF into one ``Document`` (``kind="pdf"``) with a ``PageSpan`` per page."""

    def load(self, path: Path, root: Path) -> list[Document]:
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(str(path), msg("load.cannot_read", why=str(exc.strerror or exc))) from None
        pdf = _open(path, data)
        try:
            try:
                pages = extract_lines(pdf)
            except Exception as exc:  # any pdfium failure on a damaged page
                raise InputError(str(path), msg("load.pdf_text_unreadable", why=str(exc))) from None
            if not pages:
                raise InputError(str(path), msg("load.pdf_no_pages"))
            pages = strip_furniture(pages)
            right = right_margin(pages)
            text, spans = assemble([glue_wrapped_words(p, right) for p in pages])
            if len(re.sub(r"\s", "", text)) < MIN_TEXT_CHARS:
                raise NoTextLayer(str(path), msg("load.no_text_layer"))
            doc_id = _relative_id(path, Path(root))
            parts = doc_id.split("/")
            read = {s.page for s in spans}
            return [Document(doc_id=doc_id, source=doc_id, title=_title(pdf, text), text=text, kind="pdf",
                             content_hash=sha256_hex(data), pages=spans,
                             doc_type=parts[0] if len(parts) > 1 else None,
                             textless_pages=tuple(n for n in range(1, len(pages) + 1) if n not in read))]
        finally:
            pdf.close()
