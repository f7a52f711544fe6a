"""Inline SVG bar charts for the HTML report: drawn here, no scripts, no network."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

from yakgwan.eval.rows import num

LABELS = {
    "mrr": "MRR@K",
    "ndcg": "nDCG@K",
    "precision": "Precision@K",
    "recall": "Recall@K",
    "keyword_coverage": "Keyword coverage",
    "hit@1": "Hit@1 (primary unit)",
    "hit@5": "Hit@5 (primary unit)",
    "any_hit@1": "Hit@1 (any governing unit)",
    "any_hit@5": "Hit@5 (any governing unit)",
    "any_mrr": "MRR@K (any governing unit)",
    "p50": "p50",
    "p95": "p95",
}
PALETTE = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3", "#8C8C8C")
# with more series than colours, every bar is also named under the axis, slanted at 60°:
# the room below the axis is the longest name's height at ~6.5 px per character of 11 px text
NAME_CHAR_PX = 6.5 * math.sin(math.radians(60))
PLOT_H = 180.0
BAR_W = 30.0
GROUP_GAP = 24.0
MIN_GROUP_W = 110.0
LEFT, TOP, BOTTOM = 52.0, 22.0, 46.0


def escape(value: object) -> str:
    return html.escape(str(value), quote=True)


def nice_ceiling(x: float) -> float:
    """Smallest of 1, 2, 2.5, 5 × 10^n that is >= x (axis maximum for unbounded values)."""
    if x <= 0:
        return 1.0
    base = 10.0 ** math.floor(math.log10(x))
    return next(m * base for m in (1, 2, 2.5, 5, 10) if m * base >= x)


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def bar_chart(
    groups: Sequence[str],
    series: Sequence[str],
    values: Mapping[tuple[str, str], float | None],
    ymax: float,
    label: str,
    digits: int = 3,
) -> str:
    """An inline SVG grouped bar chart: one group per ``groups`` item, one bar per ``series`` item.

    A bar's height is ``value / ymax * PLOT_H`` pixels; each bar carries ``data-group``,
    ``data-series`` and ``data-value`` and a value label above it. Missing values draw no bar.
    With more series than colours, each bar's series is also written under it (slanted), so
    that no bar depends on its colour to be told apart.
    """
    named = len(series) > len(PALETTE)
    name_room = 12.0 + NAME_CHAR_PX * max(map(len, series)) if named else 0.0
    group_w = max(len(series) * BAR_W + GROUP_GAP, MIN_GROUP_W)
    width = LEFT + len(groups) * group_w + 10
    height = TOP + PLOT_H + BOTTOM + name_room
    parts = [f'<svg class="chart" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(label)}">']
    tick_digits = 2 if ymax <= 1 else 1 if ymax < 10 else 0
    for t in range(5):  # y axis: 0, 1/4, 1/2, 3/4, 1 of ymax
        v = ymax * t / 4
        y = TOP + PLOT_H - PLOT_H * t / 4
        parts.append(f'<line x1="{LEFT}" x2="{width - 10:.0f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{v:.{tick_digits}f}</text>')
    for g, group in enumerate(groups):
        x0 = LEFT + g * group_w + (group_w - len(series) * BAR_W) / 2
        for s, name in enumerate(series):
            x = x0 + s * BAR_W
            if named:
                nx, ny = x + BAR_W / 2 + 3, TOP + PLOT_H + 8
                parts.append(f'<text class="series" x="{nx:.1f}" y="{ny:.1f}" text-anchor="end" '
                             f'transform="rotate(-60 {nx:.1f} {ny:.1f})">{escape(name)}</text>')
            value = num(values.get((group, name)))
            if value is None:
                parts.append(f'<text x="{x + BAR_W / 2:.1f}" y="{TOP + PLOT_H - 3:.1f}" '
                             'text-anchor="middle">–</text>')
                continue
            h = max(value, 0.0) / ymax * PLOT_H
            y = TOP + PLOT_H - h
            parts.append(
                f'<rect class="bar" x="{x + 1:.1f}" y="{y:.3f}" width="{BAR_W - 2:.1f}" height="{h:.3f}" '
                f'fill="{colour(s)}" data-group="{escape(group)}" data-series="{escape(name)}" data-value="{value!r}">'
                f"<title>{escape(name)} · {escape(group)}: {value:.{digits}f}</title></rect>"
            )
            parts.append(f'<text class="value" x="{x + BAR_W / 2:.1f}" y="{y - 3:.1f}" text-anchor="middle">'
                         f"{value:.{digits}f}</text>")
        parts.append(f'<text x="{x0 + len(series) * BAR_W / 2:.1f}" y="{TOP + PLOT_H + 16 + name_room:.1f}" '
                     f'text-anchor="middle">{escape(LABELS.get(group, group))}</text>')
    parts.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + PLOT_H}" stroke="#999"/>')
    parts.append("</svg>")
    return "".join(parts)


def legend(names: Sequence[str]) -> str:
    items = "".join(f'<span><i style="background:{colour(i)}"></i>{escape(n)}</span>' for i, n in enumerate(names))
    return f'<div class="legend">{items}</div>'
