"""Characters of the text layer that are not the text: private-use glyphs (a symbol font's
circled numbers with no Unicode meaning) and compatibility forms. Pure.

A private-use glyph that opens a line inside an article is that article's next paragraph mark:
a 약관 numbers its 항 ①, ②, … in order, so the glyph gets the circled number that follows the
last one of the article (counting restarts at each "제N조(" heading). Anywhere else a private-use
glyph has no meaning a reader could see and is dropped.
"""

from __future__ import annotations

import re
import unicodedata

from yakgwan.ingest.pdf.glyphs import is_private_use

_ARTICLE = re.compile(r"^\s*제\s*\d+\s*조(?:\s*의\s*\d+)?\s*[(（]")
_CIRCLED = re.compile(r"^\s*([①-⑳])")
_LEADING_MARK = re.compile(r"^(\s*)([\ue000-\uf8ff])(?=\s|[가-힣「『“‘(])")
_PRIVATE = re.compile(r"[\ue000-\uf8ff]+")


def circled(n: int) -> str:
    """①…⑳ for 1…20 (pure)."""
    if not 1 <= n <= 20:
        raise ValueError(f"n must be between 1 and 20. Currently, n is {n}")
    return chr(ord("①") + n - 1)


def resolve_marks(lines: list[str]) -> list[str]:
    """The lines (of a whole document, in reading order) with private-use paragraph marks
    numbered and every other private-use glyph dropped, in Unicode NFC."""
    out = []
    last = 0  # the article's last paragraph number; -1 outside any article
    in_article = False
    for line in lines:
        if _ARTICLE.match(line):
            in_article, last = True, 0
        m = _CIRCLED.match(line)
        if m:
            last = ord(m.group(1)) - ord("①") + 1
        m = _LEADING_MARK.match(line)
        if m and in_article and last < 20:
            last += 1
            line = m.group(1) + circled(last) + line[m.end():]
        if any(is_private_use(c) for c in line):
            line = re.sub(r"[ ]{2,}", " ", _PRIVATE.sub("", line))
        out.append(unicodedata.normalize("NFC", line))
    return out
