"""Glyphs → rows → segments: glyphs on one baseline form a row; a row splits into segments
where the gap between two glyphs is wider than a table cell's padding; a segment's text puts a
space where the document draws one or where the gap is a word's. All functions are pure.

- **Rows.** Glyphs sorted by their vertical centre join a row when their box overlaps the row's
  band by at least half of the smaller height (superscript note marks "주1)" stay on their
  line; two columns whose baselines differ by a little share a row, and are told apart by the
  gutter between them, in ``columns``).
- **Glyphs drawn twice.** A bold heading is often printed by drawing each glyph twice, a
  fraction of a point apart (fake bold). A glyph that repeats the one before it in the row
  (the same character, its box shifted by less than ``DOUBLE_SHIFT`` of its size) is one glyph.
- **Segments.** A gap wider than ``CELL_GAP`` times the row's height ends a segment: table
  cells, the two halves of a two-column page, a label and its value.
- **Spaces.** Between two glyphs of a segment there is a word break when the first is followed
  by a space in the content stream and the gap agrees (wider than ``DRAWN_GAP`` of the row's
  height for a space the document draws, ``GUESSED_GAP`` for one pdfium guessed: both stand
  in the stream's order, which need not be the page's), or when the gap is wider than
  ``SPACE_GAP`` (words placed apart by position). A segment whose last glyph is followed by a
  space ends in one: the line was wrapped between words. Measured on four 약관 (pages 11–60): a
  drawn space leaves a gap of 0.14–0.53 heights; 99 % of the gaps between the glyphs of a word
  are below 0.25.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from statistics import median

import numpy as np

from yakgwan.ingest.pdf.glyphs import DRAWN, GUESSED, Glyph

CELL_GAP = 1.8  # gap (in row heights) that ends a segment
DOUBLE_SHIFT = 0.3  # a repeated glyph shifted by less than this share of its width and height is the same glyph
SPACE_GAP = 0.3  # gap (in row heights) that is a word break without a space in the stream
GUESSED_GAP = 0.15  # gap above which a space pdfium guessed is a word break
DRAWN_GAP = 0.05  # gap above which a space the document draws is a word break
ROW_OVERLAP = 0.5


@dataclass(frozen=True)
class Segment:
    """A run of glyphs on one row with no cell-wide gap: its box, its text and glyph count."""

    x0: float
    top: float
    x1: float
    bottom: float
    text: str
    glyphs: int

    @property
    def height(self) -> float:
        return self.bottom - self.top


@dataclass(frozen=True)
class Row:
    """Glyphs on one baseline, left to right, doubles dropped."""

    top: float
    bottom: float
    glyphs: tuple[Glyph, ...]

    @property
    def ink(self) -> tuple[Glyph, ...]:
        return self.glyphs

    @cached_property
    def x0(self) -> float:
        return min(g.x0 for g in self.ink)

    @cached_property
    def x1(self) -> float:
        return max(g.x1 for g in self.ink)

    @cached_property
    def height(self) -> float:
        return median(g.height for g in self.ink)

    @cached_property
    def boxes(self) -> np.ndarray:
        """Each glyph's (x0, x1), ordered by x0 (float64, one row per glyph)."""
        out = np.array([(g.x0, g.x1) for g in self.ink], dtype=np.float64).reshape(-1, 2)
        return out[np.argsort(out[:, 0], kind="stable")]

    def part(self, lo: float, hi: float) -> "Row | None":
        """The glyphs of the row that lie within [lo, hi] (None when none do)."""
        kept = tuple(g for g in self.glyphs if g.x0 >= lo - 1e-6 and g.x1 <= hi + 1e-6)
        if not kept:
            return None
        return Row(min(g.top for g in kept), max(g.bottom for g in kept), kept)

    def segments(self) -> tuple[Segment, ...]:
        return segments(list(self.glyphs))


def group_rows(glyphs: list[Glyph]) -> list[list[Glyph]]:
    """Glyphs grouped by baseline, top to bottom; each row's glyphs left to right. A glyph joins
    one of the last three rows when its box overlaps that row's band by half of the smaller
    height."""
    rows: list[tuple[float, float, list[Glyph]]] = []
    for g in sorted(glyphs, key=lambda g: g.yc):
        h = max(g.height, 1e-6)
        for i in range(len(rows) - 1, max(len(rows) - 4, -1), -1):
            top, bottom, members = rows[i]
            overlap = min(g.bottom, bottom) - max(g.top, top)
            if overlap >= ROW_OVERLAP * min(h, bottom - top):
                members.append(g)
                break
        else:
            rows.append((g.top, g.bottom, [g]))
    return [sorted(members, key=lambda g: g.x0) for _, _, members in rows]


def drop_doubles(row: list[Glyph]) -> list[Glyph]:
    """A row (left to right) without the second drawing of a glyph drawn twice (pure)."""
    kept: list[Glyph] = []
    for g in row:
        if any(_same_drawing(k, g) for k in kept[-3:]):
            continue
        kept.append(g)
    return kept


def _same_drawing(a: Glyph, b: Glyph) -> bool:
    if a.ch != b.ch:
        return False
    w = max(a.x1 - a.x0, b.x1 - b.x0, 1e-6)
    h = max(a.height, b.height, 1e-6)
    return abs(a.x0 - b.x0) < DOUBLE_SHIFT * w and abs(a.top - b.top) < DOUBLE_SHIFT * h


def segments(row: list[Glyph]) -> tuple[Segment, ...]:
    """A row's glyphs (left to right, doubles dropped) cut into segments at cell-wide gaps, each
    with its text."""
    h = median(g.height for g in row)
    out: list[Segment] = []
    run: list[Glyph] = []
    parts: list[str] = []
    for g in row:
        if run:
            prev = run[-1]
            gap = g.x0 - prev.x1
            if gap > CELL_GAP * h:
                out.append(_segment(run, parts))
                run, parts = [], []
            elif (gap > SPACE_GAP * h or (prev.space_after == DRAWN and gap > DRAWN_GAP * h)
                  or (prev.space_after == GUESSED and gap > GUESSED_GAP * h)):
                parts.append(" ")
        parts.append(g.ch)
        run.append(g)
    if run:
        out.append(_segment(run, parts))
    return tuple(out)


def _segment(run: list[Glyph], parts: list[str]) -> Segment:
    if run[-1].space_after == DRAWN:  # a line the document ends with a space was wrapped between words
        parts.append(" ")
    return Segment(run[0].x0, min(g.top for g in run), max(g.x1 for g in run), max(g.bottom for g in run), "".join(parts), len(run))


def build_rows(glyphs: list[Glyph]) -> list[Row]:
    """The rows of a page's glyphs (top to bottom), doubles dropped."""
    out = []
    for members in group_rows(glyphs):
        row = drop_doubles(members)
        out.append(Row(min(g.top for g in row), max(g.bottom for g in row), tuple(row)))
    return out
