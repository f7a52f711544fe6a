"""A PDF read by its layout: page → glyphs with boxes → rows → header, body and footer → the
body's columns in reading order → lines; a page whose text layer is missing or broken is read
by OCR instead. The steps live one to a module (``glyphs``, ``lines``, ``edges``, ``columns``,
``quality``, ``ocr_pages``); this one runs them over a document and says how each page was read.

Engine: pypdfium2 (pdfium, Apache-2.0 and BSD-3-Clause), measured against pdfplumber
(pdfminer.six, MIT) on the same 30 pages of a 약관: pdfium gave the characters with their boxes
in 0.20 s and pdfplumber in 2.2 s, with the same boxes for the purpose (both place a glyph
where it is drawn, whatever its order in the content stream). PyMuPDF (AGPL) is not used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Callable

from yakgwan.core.errors import InputError
from yakgwan.ingest.pdf.ocr import OcrPage
from yakgwan.ingest.pdf.columns import Line, crosses, find_gutter, line_of, reading_order
from yakgwan.ingest.pdf.edges import TabCut, margins, recurring, tab_cuts, tab_glyphs
from yakgwan.ingest.pdf.glyphs import Glyph, read_glyphs, upright
from yakgwan.ingest.pdf.lines import Row, build_rows
from yakgwan.ingest.pdf.quality import MIN_CHARS, Layer, judge

OCR_MIN_LETTERS = 2
OCR_MIN_CONFIDENCE = 60.0
PICTURE_SHARE = 0.3  # a picture covering this share of a page with (almost) no text: a scan


class How(Enum):
    """How a page was read."""

    TEXT = "text"  # its text layer
    OCR = "ocr"  # a picture of it, by OCR
    BLANK = "blank"  # nothing on it to read
    UNREAD = "unread"  # it needed OCR and OCR could not read it (not installed, illegible)


@dataclass(frozen=True)
class PageRead:
    number: int  # 1-based
    lines: tuple[Line, ...]
    how: How
    layer: Layer  # what its text layer was worth
    confidence: float | None = None  # OCR's mean word confidence (0–100)


@dataclass(frozen=True)
class PdfReading:
    pages: tuple[PageRead, ...]
    ocr_engine: str | None = None
    ocr_error: InputError | None = None  # why pages that needed OCR were not read
    notes: tuple[str, ...] = field(default=())

    def pages_read(self, how: How) -> tuple[int, ...]:
        return tuple(p.number for p in self.pages if p.how is how)

    def indexed(self, page: PageRead) -> bool:
        """Whether a page's lines go into the document: read by text or OCR, or a text layer
        that OCR could not replace and that still holds words (broken digits, not mojibake)."""
        return page.how in (How.TEXT, How.OCR) or (page.how is How.UNREAD and page.layer is Layer.BROKEN)


def page_lines(rows: list[Row], height: float) -> list[Line]:
    """A page's rows as lines in reading order: header rows, the body by columns, footer rows."""
    head, body, foot = margins(rows, height)
    gutter = find_gutter(body)
    if gutter is not None:  # a header row that holds text of the columns (no margin above them) is read with them
        moved = False
        while head and not crosses(head[-1], *gutter) and len(head[-1].segments()) > 1:
            body.insert(0, head.pop())
            moved = True
        if moved:
            gutter = find_gutter(body)
    return [line_of(r) for r in head] + reading_order(body, gutter=gutter) + [line_of(r) for r in foot]


def _has_picture(page) -> bool:
    import pypdfium2.raw as pdfium_c

    width, height = page.get_size()
    area = 0.0
    for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=4):
        left, bottom, right, top = obj.get_bounds()
        area += max(right - left, 0) * max(top - bottom, 0)
    return area >= PICTURE_SHARE * width * height


def page_glyphs(page) -> list[Glyph]:
    """One pypdfium2 page's glyphs on its lines."""
    textpage = page.get_textpage()
    try:
        return upright(read_glyphs(page, textpage))
    finally:
        textpage.close()


def text_lines(glyphs: list[Glyph], width: float, height: float, cuts: tuple[TabCut, ...] = ()) -> list[Line]:
    """A page's glyphs (without those past its side tab ``cuts``) as lines in reading order."""
    tabs = tab_glyphs(glyphs, cuts, width)
    if tabs:
        glyphs = [g for i, g in enumerate(glyphs) if i not in tabs]
    return page_lines(build_rows(glyphs), height)


def read_pdf(pdf, source: str, ocr: bool = True, on_ocr_page: Callable[[int, int], None] | None = None) -> PdfReading:
    """Every page of an open pypdfium2 document, read by its layout; pages whose text layer is
    missing or broken are read by OCR when ``ocr`` (``on_ocr_page(done, total)`` as it goes)."""
    drawn: list[tuple[list[Glyph], float, float, bool]] = []  # each page's glyphs, size, and whether it is a picture
    for index in range(len(pdf)):
        page = pdf[index]
        try:
            glyphs = page_glyphs(page)
            width, height = page.get_size()
            drawn.append((glyphs, width, height, len(glyphs) < MIN_CHARS and _has_picture(page)))
        finally:
            page.close()
    cuts = recurring([tab_cuts(g, w) for g, w, _, _ in drawn], [(g, w) for g, w, _, _ in drawn])
    pages: list[PageRead] = []
    for index, (glyphs, width, height, picture) in enumerate(drawn):
        lines = text_lines(glyphs, width, height, cuts[index])
        text = "\n".join(ln.text for ln in lines)
        ink = len("".join(text.split()))
        layer = judge(text, picture)
        if layer is Layer.GOOD:
            how = How.TEXT if ink else How.BLANK
        else:
            how = How.UNREAD
        pages.append(PageRead(index + 1, tuple(lines), how, layer))
    todo = [p.number for p in pages if p.how is How.UNREAD]
    if not todo or not ocr:
        return PdfReading(tuple(pages))
    from yakgwan.ingest.pdf.ocr_pages import ocr_pages

    done = [0]

    def tick(_: int) -> None:
        done[0] += 1
        if on_ocr_page:
            on_ocr_page(done[0], len(todo))

    try:
        engine, read = ocr_pages(pdf, source, todo, tick)
    except InputError as exc:
        return PdfReading(tuple(pages), ocr_error=exc)
    return PdfReading(tuple(_with_ocr(p, read.get(p.number)) for p in pages), engine)


def legible(ocr: OcrPage) -> bool:
    """Whether OCR read words from a page: at least ``OCR_MIN_LETTERS`` letters, at a mean word
    confidence of ``OCR_MIN_CONFIDENCE`` or more (a divider page's one heading is legible; the
    specks of a photograph read as letters at low confidence are not)."""
    letters = sum(c.isalnum() for c in ocr.text)
    return letters >= OCR_MIN_LETTERS and ocr.confidence >= OCR_MIN_CONFIDENCE


def _with_ocr(page: PageRead, ocr: OcrPage | None) -> PageRead:
    if ocr is None:
        return page
    lines = tuple(Line(t) for t in ocr.text.splitlines() if t.strip())
    if not legible(ocr):
        return PageRead(page.number, page.lines, How.UNREAD, page.layer, ocr.confidence)
    return PageRead(page.number, lines, How.OCR, page.layer, ocr.confidence)
