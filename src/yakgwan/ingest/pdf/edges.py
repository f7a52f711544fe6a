"""What lies at a page's edges and is not its text: side tabs and the header and footer rows.
All functions are pure.

- **Side tabs.** Booklet 약관 print an index down the outer edge ("보/통/약/관", "별/표"), one or
  two letters a row. They are found in the glyphs' horizontal profile: beyond the body's last
  covered point there is a gap no row crosses, and past it a narrow band (at most
  ``TAB_BAND`` of the page width, in the outer ``TAB_BAND`` of the page) whose rows hold at
  most ``TAB_LETTERS`` glyphs each, mostly Hangul letters, on at least ``TAB_ROWS`` rows; and
  such a band recurs at the same place on many of the document's pages (``recurring``). A
  table's last column of figures is not one (its glyphs are digits), nor is a hanging paragraph
  mark (not a Hangul letter), nor a table's label column (it stands on a few pages only).
- **Header and footer rows.** Rows before the first (after the last) vertical gap wider than
  ``MARGIN_GAP`` line pitches, inside the top (bottom) ``MARGIN_SHARE`` of the page, at most
  ``MARGIN_ROWS`` of them: they are read before (after) the body and never joined to a column.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from yakgwan.ingest.pdf.glyphs import Glyph
from yakgwan.ingest.pdf.lines import Row, group_rows

TAB_BAND = 0.1
TAB_LETTERS = 4
TAB_ROWS = 3
TAB_HANGUL = 0.6
TAB_GAP = 1.0  # points of empty profile that separate the band from the body
TAB_PAGES = 0.05
TAB_ALIGN = 12.0
MARGIN_GAP = 1.8
MARGIN_SHARE = 0.12
MARGIN_ROWS = 3


def _hangul(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


def _is_tab(band: list[Glyph], ink: int) -> bool:
    if not band or len(band) > TAB_BAND * ink:
        return False
    rows = group_rows(band)
    if len(rows) < TAB_ROWS or max(len(r) for r in rows) > TAB_LETTERS:
        return False
    return sum(_hangul(g.ch) for g in band) >= TAB_HANGUL * len(band)


@dataclass(frozen=True)
class TabCut:
    """Where a page's side tab begins: ``inset`` points from the page's right edge (``side`` 1)
    or left edge (-1); every glyph past it is the tab's."""

    side: int
    inset: float

    def x(self, width: float) -> float:
        """The cut on a page ``width`` points wide."""
        return width - self.inset if self.side > 0 else self.inset


def _gaps(spans: list[tuple[float, float]], lo: float, hi: float) -> list[tuple[float, float]]:
    """The empty intervals of [lo, hi] between the union of ``spans`` (pure), inner to outer."""
    out = []
    reach = lo
    for a, b in sorted(spans):
        if a > reach:
            out.append((reach, min(a, hi)))
        reach = max(reach, b)
        if reach >= hi:
            break
    if reach < hi:
        out.append((reach, hi))
    return [(a, b) for a, b in out if b > a]


def _find_cut(glyphs: list[Glyph], width: float, sign: int, lo: float, hi: float) -> TabCut | None:
    """The innermost gap of at least ``TAB_GAP`` points between ``lo`` and ``hi`` (coordinates
    growing towards the edge looked at) past which the glyphs are a tab; the cut is the middle of
    that gap, where the same tab's cut falls on every page."""
    near = [g for g in glyphs if _outer(g, sign) > lo]
    for a, b in _gaps([(_outer_x0(g, sign), _outer(g, sign)) for g in near], lo, hi):
        if b - a < TAB_GAP:
            continue
        if _is_tab([g for g in near if _outer_x0(g, sign) >= b], len(glyphs)):
            mid = (a + b) / 2
            return TabCut(sign, width - mid if sign > 0 else -mid)
    return None


def tab_cuts(glyphs: list[Glyph], width: float) -> tuple[TabCut, ...]:
    """The candidate side tabs of one page (see the module docstring), at most one a side."""
    if len(glyphs) < 20:
        return ()
    found = []
    for sign in (1, -1):  # the right edge, then the left (mirrored)
        edge = max(_outer(g, sign) for g in glyphs)
        page_edge = width if sign > 0 else 0.0
        cut = _find_cut(glyphs, width, sign, max(edge - TAB_BAND * width, sign * page_edge - TAB_BAND * width), edge)
        if cut is not None:
            found.append(cut)
    return tuple(found)


def recurring(cuts: list[tuple[TabCut, ...]], pages: list[tuple[list[Glyph], float]]) -> list[tuple[TabCut, ...]]:
    """The side tabs of every page. A side tab is printed down the same edge of many pages, so a
    candidate counts only when at least ``TAB_PAGES`` of the pages (and three) have one on the
    same side within ``TAB_ALIGN`` points of the page edge (a table's label column on a few
    pages does not). ``pages``: each page's glyphs and width. Such a tab is then looked for on
    every page: at the place it recurs (no glyph straddles it and the glyphs past it pass the
    band test), else within ``TAB_ALIGN`` points of it, as on the page it was found."""
    need = max(3, TAB_PAGES * len(cuts))
    flat = [c for page in cuts for c in page]
    places: list[TabCut] = []
    for c in sorted(flat, key=lambda c: (c.side, c.inset)):
        near = [o for o in flat if o.side == c.side and abs(o.inset - c.inset) <= TAB_ALIGN]
        if len(near) >= need and not any(p.side == c.side and abs(p.inset - c.inset) <= TAB_ALIGN for p in places):
            insets = sorted(o.inset for o in near)
            places.append(TabCut(c.side, insets[len(insets) // 2]))
    out = []
    for glyphs, width in pages:
        found = []
        for place in places if len(glyphs) >= 20 else ():
            x = place.x(width)
            beyond = [g for g in glyphs if (g.x0 >= x if place.side > 0 else g.x1 <= x)]
            if not any(g.x0 < x < g.x1 for g in glyphs) and _is_tab(beyond, len(glyphs)):
                found.append(place)
                continue
            x *= place.side  # in coordinates growing towards the edge
            cut = _find_cut(glyphs, width, place.side, x - TAB_ALIGN, x + TAB_ALIGN)
            if cut is not None:
                found.append(cut)
        out.append(tuple(found))
    return out


def tab_glyphs(glyphs: list[Glyph], cuts: tuple[TabCut, ...], width: float) -> set[int]:
    """Indices of the glyphs past a page's tab cuts (the page ``width`` points wide)."""
    drop: set[int] = set()
    for c in cuts:
        x = c.x(width)
        drop.update(i for i, g in enumerate(glyphs) if (g.x0 >= x if c.side > 0 else g.x1 <= x))
    return drop


def _outer(g: Glyph, sign: int) -> float:
    """The glyph's edge towards the page edge looked at, in coordinates growing towards it."""
    return g.x1 if sign > 0 else -g.x0


def _outer_x0(g: Glyph, sign: int) -> float:
    return g.x0 if sign > 0 else -g.x1


def margins(rows: list[Row], height: float) -> tuple[list[Row], list[Row], list[Row]]:
    """(header rows, body rows, footer rows) of a page's rows (top to bottom)."""
    if len(rows) < 4:
        return [], rows, []
    pitch = median(b.top - a.top for a, b in zip(rows, rows[1:]))
    h = median(r.bottom - r.top for r in rows)
    gap = max(MARGIN_GAP * pitch, 1.5 * h)
    head = 0
    for i in range(min(MARGIN_ROWS, len(rows) - 1)):
        if rows[i].bottom > MARGIN_SHARE * height:
            break
        if rows[i + 1].top - rows[i].bottom > gap:
            head = i + 1
    foot = len(rows)
    for i in range(len(rows) - 1, max(len(rows) - 1 - MARGIN_ROWS, head), -1):
        if rows[i].top < (1 - MARGIN_SHARE) * height:
            break
        if rows[i].top - rows[i - 1].bottom > gap:
            foot = i
    return rows[:head], rows[head:foot], rows[foot:]
