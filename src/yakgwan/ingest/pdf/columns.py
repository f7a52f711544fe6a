"""Rows → lines in reading order: a page set in two columns, or a landscape sheet holding two
pages, is read column by column. All functions are pure.

A **gutter** is a vertical band of the page's body that (almost) no row crosses, at least
``GUTTER_MIN`` row heights wide, away from the body's edges (its centre in the middle
``1 - 2 * GUTTER_EDGE`` of the width), with text on either side of it on at least
``GUTTER_ROWS`` of the rows each (two columns need not share baselines), the two sides side by
side (their vertical extents overlapping), and on both sides text set as a column is: on at
least ``FILLED_ROWS`` of its rows a side's text spans ``COLUMN_FILL`` of that side's width,
and not both sides have more than ``CELL_ROWS`` of their rows cut into cells (a table of term |
meaning pairs set twice side by side is a table, not two columns; a column that holds a small
table or an example beside a column of text is still a column), and the narrower side is at least
``COLUMN_RATIO`` of the wider (a label column beside its text is a table's). A table's narrow label
column never fills its side, so a table is read by its rows, each row one line with its cells
separated by tabs.

The rows are then cut into **zones**: runs of consecutive rows none of which crosses the
gutter. A row crosses it when its ink leaves no empty stretch of ``GUTTER_MIN`` row heights
inside it (a title over both columns); a line of the left column that ends a little into the
gutter beside a heading of the right column that starts in it does not, and each glyph goes
to the side of the gutter's middle it stands on. A zone with text on each side on at least two
rows is read left column first, each column in turn looked at for a gutter of its own (a
landscape sheet of two pages, each in two columns); a row that crosses the gutter is read
where it stands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median

import numpy as np

from yakgwan.ingest.pdf.lines import Row

GUTTER_MIN = 1.2
GUTTER_EDGE = 0.2
GUTTER_CROSS = 0.1  # share of rows that may cross a gutter (titles over both columns)
GUTTER_ROWS = 0.25
COLUMN_FILL = 0.6
FILLED_ROWS = 0.25
COLUMN_RATIO = 0.5  # the narrower side is at least this share of the wider
CELL_ROWS = 0.3  # a side with more of its rows cut into cells than this is part of a table
LONG_ROW = 12
FULL_LINE = 1.5
FULL_START = 0.25  # a line ending within this many row heights of its block's right edge is full
MAX_DEPTH = 2


@dataclass(frozen=True)
class Line:
    """One line of a page in reading order. ``full``: it runs to its block's right edge (a
    word may be broken there); ``is_row``: it holds table cells separated by tabs."""

    text: str
    full: bool = False
    is_row: bool = False
    x0: float = 0.0  # where the line starts on the page (points from the left edge)
    height: float = 0.0  # its row's height (0: unknown, a line read by OCR)


def crosses(row: Row, g0: float, g1: float) -> bool:
    """Whether the row's ink runs across the gutter [g0, g1]: no empty stretch of ``GUTTER_MIN``
    row heights is left inside it (a line of the left column that ends a little into the gutter,
    or a heading of the right column that starts in it, leaves one; a title over both columns
    does not)."""
    spans = sorted((max(g.x0, g0), min(g.x1, g1)) for g in row.ink if g.x0 < g1 and g.x1 > g0)
    if not spans:
        return False
    need = GUTTER_MIN * row.height
    reach = g0
    for a, b in spans:
        if a - reach >= need:
            return False
        reach = max(reach, b)
    return g1 - reach < need


def find_gutter(rows: list[Row]) -> tuple[float, float] | None:
    """The gutter of the module docstring in ``rows``, as (left, right) x; None without one."""
    if len(rows) < 4:
        return None
    left, right = min(r.x0 for r in rows), max(r.x1 for r in rows)
    width = right - left
    h = median(r.height for r in rows)
    if width < 10 * h:
        return None
    n = int(width) + 1
    count = _rows_covering(rows, left, n)
    allowed = int(GUTTER_CROSS * len(rows))
    best: tuple[int, tuple[float, float]] | None = None
    k = 0
    while k < n:
        if count[k] > allowed:
            k += 1
            continue
        j = k
        while j + 1 < n and count[j + 1] <= allowed:
            j += 1
        g0, g1 = left + k, left + j + 1
        centre = (g0 + g1) / 2
        if g1 - g0 >= GUTTER_MIN * h and left + GUTTER_EDGE * width <= centre <= right - GUTTER_EDGE * width:
            both = _two_sided(rows, g0, g1, left, right)
            if both >= max(3, GUTTER_ROWS * len(rows)) and (best is None or both > best[0]):
                best = (both, (g0, g1))
        k = j + 1
    return best[1] if best else None


def _rows_covering(rows: list[Row], left: float, n: int) -> list[int]:
    """For each whole point x = left + k (k < n), how many rows have ink there (pure)."""
    diff = np.zeros(n + 1, dtype=np.int64)
    for r in rows:
        box = r.boxes  # (x0, x1) of each glyph, by x0
        a = np.clip((box[:, 0] - left).astype(np.int64), 0, n - 1)
        b = np.clip((box[:, 1] - left).astype(np.int64), 0, n - 1)
        reach = np.maximum.accumulate(b)
        new = np.ones(len(a), dtype=bool)
        new[1:] = a[1:] > reach[:-1] + 1  # the row's ink as a union of intervals: each point counts once a row
        starts = a[new]
        ends = reach[np.append(np.flatnonzero(new)[1:] - 1, len(a) - 1)]
        np.add.at(diff, starts, 1)
        np.add.at(diff, ends + 1, -1)
    return np.cumsum(diff[:n]).tolist()


def _two_sided(rows: list[Row], g0: float, g1: float, left: float, right: float) -> int:
    """How many rows hold text on the side of [g0, g1] that has fewer; 0 unless the two sides
    stand side by side (their vertical extents overlap by half of the shorter) and both fill
    like columns. Two columns need not share baselines: a row may hold one side only."""
    sides: list[list[Row]] = [[], []]
    for r in rows:
        if crosses(r, g0, g1):
            continue
        for k, (lo, hi) in enumerate(((left, g0), (g1, right))):
            part = r.part(lo, hi)
            if part is not None:
                sides[k].append(part)
    if not sides[0] or not sides[1]:
        return 0
    spans = [(min(r.top for r in side), max(r.bottom for r in side)) for side in sides]
    overlap = min(spans[0][1], spans[1][1]) - max(spans[0][0], spans[1][0])
    if overlap < 0.5 * min(b - a for a, b in spans):
        return 0
    widths = (g0 - left, right - g1)
    if min(widths) < COLUMN_RATIO * max(widths):
        return 0  # a narrow side beside a wide one: a table's label column, not a column of text
    for side, width in zip(sides, widths):
        if sum((r.x1 - r.x0) >= COLUMN_FILL * width for r in side) < FILLED_ROWS * len(side):
            return 0
    if all(sum(len(r.segments()) > 1 for r in side) > CELL_ROWS * len(side) for side in sides):
        return 0  # both sides' rows are cells: a table set twice side by side
    return min(len(side) for side in sides)


def line_of(row: Row, left: float = -math.inf, right: float = math.inf) -> Line:
    """A row as one line: its segments joined by tabs. It is full when it ends within
    ``FULL_LINE`` row heights of the block's right edge ``right`` and starts in the first
    ``FULL_START`` of the block's width from ``left`` (a centred title that happens to reach the
    edge is not a wrapped line)."""
    segs = row.segments()
    h = row.height
    full = row.x1 >= right - FULL_LINE * h and row.x0 <= left + FULL_START * (right - left)
    text = "\t".join(s.text.rstrip() for s in segs[:-1]) + ("\t" if len(segs) > 1 else "") + segs[-1].text
    return Line(text, full, len(segs) > 1, row.x0, h)


def _edges(rows: list[Row]) -> tuple[float, float]:
    """A block's text edges: where its long rows (``LONG_ROW`` glyphs or more, at least two)
    start and end (10th and 90th percentiles); (inf, inf) for a block without long rows (a
    title page, a table of short cells), which then has no full line."""
    long = [r for r in rows if len(r.glyphs) >= LONG_ROW]
    if len(long) < 2:
        return math.inf, math.inf
    starts, ends = sorted(r.x0 for r in long), sorted(r.x1 for r in long)
    return starts[int(0.1 * (len(starts) - 1))], ends[int(0.9 * (len(ends) - 1))]


def _as_lines(rows: list[Row]) -> list[Line]:
    left, right = _edges(rows)
    return [line_of(r, left, right) for r in rows]


def reading_order(rows: list[Row], depth: int = 0, gutter: tuple[float, float] | None = None) -> list[Line]:
    """The rows of a page's body as lines in reading order (see the module docstring);
    ``gutter``: the rows' gutter when the caller has found it already."""
    if gutter is None:
        gutter = find_gutter(rows) if depth < MAX_DEPTH else None
    if gutter is None:
        return _as_lines(rows)
    g0, g1 = gutter
    left = min(r.x0 for r in rows)
    right = max(r.x1 for r in rows)
    page_left, page_right = _edges(rows)
    out: list[Line] = []
    zone: list[Row] = []

    def flush() -> None:
        mid = (g0 + g1) / 2  # a glyph a little into the gutter stays with its own side
        sides = [(r.part(left, mid), r.part(mid, right)) for r in zone]
        if sum(a is not None for a, _ in sides) >= 2 and sum(b is not None for _, b in sides) >= 2:
            out.extend(reading_order([a for a, _ in sides if a is not None], depth + 1))
            out.extend(reading_order([b for _, b in sides if b is not None], depth + 1))
        else:
            out.extend(_as_lines(zone))
        zone.clear()

    for r in rows:
        if crosses(r, g0, g1):
            flush()
            out.append(line_of(r, page_left, page_right))
        else:
            zone.append(r)
    flush()
    return out
