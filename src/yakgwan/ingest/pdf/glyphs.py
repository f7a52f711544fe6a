"""Page → glyphs: every character pdfium places on a page, with its box, in top-down page
coordinates (points; ``y`` grows downwards from the top edge of the page as displayed).

Only this module talks to pdfium's text API. What it gives is the drawing, not the text
layer's order: a glyph is kept wherever the content stream put it, so reading order is decided
later, by position (``yakgwan.ingest.pdf.lines`` and ``columns``).

Spaces are not glyphs here: a space that follows a glyph in the content stream is recorded on
that glyph (``space_after``: ``DRAWN`` when the document draws it, ``GUESSED`` when pdfium
inserted it, ``FPDFText_IsGenerated``), because the stream says where a word ends better than
the space's own box does (some documents place every space at the start of its line); whether
it is a word break is decided with the gap that follows the glyph on the page
(``yakgwan.ingest.pdf.lines``). Line breaks pdfium inserts are not kept. The loose box (the font's ascent and descent, not the ink) is
used, so every glyph of one font size on one line has the same top and bottom.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass, replace

# code points that are never text: the replacement character and non-characters a broken
# font's ToUnicode map produces (Unicode's "noncharacter" code points of the BMP)
NOT_TEXT = frozenset({"\ufffd", "\ufffe", "\uffff", "\x00"})
NO_SPACE, GUESSED, DRAWN = 0, 1, 2
# glyphs whose baseline is turned more than this (radians) from the page's lines: side labels
# printed down a margin, stamps
MAX_ANGLE = 0.2


@dataclass(frozen=True, slots=True)
class Glyph:
    """One drawn character (never a space)."""

    ch: str
    x0: float
    top: float
    x1: float
    bottom: float
    turned: bool = False
    space_after: int = 0  # NO_SPACE, GUESSED or DRAWN: the space that follows it in the stream  # its baseline is turned from the page's (vertical or rotated text)

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def yc(self) -> float:
        return (self.top + self.bottom) / 2


def is_private_use(ch: str) -> bool:
    """A code point of the Basic Multilingual Plane's private use area (U+E000–U+F8FF): a
    symbol font's glyph without a Unicode meaning (circled numbers, bullets in some 약관)."""
    return "\ue000" <= ch <= "\uf8ff"


def _to_top_down(rotation: int, width: float, height: float, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
    """A box in PDF user space (y up) → (left, top, right, bottom) on the page as displayed,
    for a page turned by ``rotation`` degrees clockwise (0, 90, 180, 270). ``width`` and
    ``height`` are the unrotated page's (pure)."""
    if rotation == 90:
        return y0, x0, y1, x1
    if rotation == 180:
        return width - x1, y0, width - x0, y1
    if rotation == 270:
        return height - y1, width - x1, height - y0, width - x0
    return x0, height - y1, x1, height - y0


def read_glyphs(page, textpage) -> list[Glyph]:
    """Every drawn glyph of one pypdfium2 page (``textpage`` is its text page), in the content
    stream's order; pdfium's guessed spaces and line breaks and the code points in
    ``NOT_TEXT`` are left out."""
    import pypdfium2.raw as pdfium_c

    raw = textpage.raw
    n = pdfium_c.FPDFText_CountChars(raw)
    rotation = page.get_rotation() % 360
    # the unrotated page's size: what the text API's coordinates are measured in
    width, height = page.get_size()
    if rotation in (90, 270):
        width, height = height, width
    rect = pdfium_c.FS_RECTF()
    ref = ctypes.byref(rect)
    get_unicode, generated = pdfium_c.FPDFText_GetUnicode, pdfium_c.FPDFText_IsGenerated
    loose, angle_of = pdfium_c.FPDFText_GetLooseCharBox, pdfium_c.FPDFText_GetCharAngle
    out: list[Glyph] = []
    for i in range(n):
        code = get_unicode(raw, i)
        if 0xDC00 <= code <= 0xDFFF:
            continue  # the second half of a pair read with the first, or a lone half: not text
        if 0xD800 <= code <= 0xDBFF:  # a character beyond the BMP comes as two UTF-16 units
            low = get_unicode(raw, i + 1) if i + 1 < n else 0
            if not 0xDC00 <= low <= 0xDFFF:
                continue
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        ch = chr(code)
        if ch.isspace() or code == 0x02:
            if out and ch not in "\r\n" and out[-1].space_after < DRAWN:
                out[-1] = replace(out[-1], space_after=GUESSED if generated(raw, i) == 1 else DRAWN)
            continue
        if ch in NOT_TEXT:
            continue
        if not loose(raw, i, ref):
            continue
        x0, top, x1, bottom = _to_top_down(rotation, width, height, rect.left, rect.bottom, rect.right, rect.top)
        if bottom - top <= 0:
            continue  # a glyph with no extent is not drawn anywhere a reader could see
        angle = angle_of(raw, i)
        turned = angle >= 0 and min(angle, 2 * math.pi - angle) > MAX_ANGLE
        out.append(Glyph(ch, x0, top, x1, bottom, turned))
    return out


def upright(glyphs: list[Glyph]) -> list[Glyph]:
    """The glyphs on the page's lines: those turned from the baseline (side labels printed down
    a margin) are dropped, unless most of the page is turned (then it is all kept: the text is
    the page's, and the lines are read from the boxes as they are)."""
    turned = sum(g.turned for g in glyphs)
    if not turned or turned * 2 > len(glyphs):
        return glyphs
    return [g for g in glyphs if not g.turned]
