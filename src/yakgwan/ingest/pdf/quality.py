"""Is a page's text layer fit to index? (pure)

A page is read by OCR instead when its text layer is:

- **missing**: fewer than ``MIN_CHARS`` characters on a page that is mostly a picture (a scan,
  a heading set as an image);
- **broken**: the article markers of a 약관 stand without their numbers ("제 조 … ( )": the
  digits are drawn as outlines, not as text) — at least ``MIN_MARKERS`` bare "제 조" markers
  and more of them than numbered ones;
- **mojibake**: more than ``MAX_ODD`` of its characters are of no script a Korean document is
  written in (Latin-1 letters from a wrong code page, private-use glyphs, control codes), on a
  page of at least ``MIN_CHARS`` characters.
"""

from __future__ import annotations

import re
from enum import Enum

MIN_MARKERS = 2
MAX_ODD = 0.25
MIN_CHARS = 20

_BARE_MARKER = re.compile(r"(?<![가-힣0-9])제\s+조(?=\s|[(（]|$)", re.M)  # "제 조 (…)": not 제조(製造)
_NUMBERED_MARKER = re.compile(r"제\s*\d+\s*조")
# blocks a Korean document's text is written in: ASCII, Latin-1 punctuation and signs, Greek
# (α, β in 약관 tables), general punctuation, letterlike symbols and number forms (Ⅰ, №),
# arrows, mathematical operators, enclosed alphanumerics (①, ⑴), box drawing and geometric
# shapes (■, ○), miscellaneous symbols (★), CJK symbols and punctuation (「」, 【】), Hangul
# compatibility jamo, enclosed CJK letters (㉠), CJK compatibility (㎞, ㎡), Hanja, Hangul
# syllables and jamo, fullwidth forms
_EXPECTED = re.compile(
    "[\u0020-\u007e\u00a0-\u00bf\u00d7\u00f7\u0391-\u03c9\u2000-\u206f\u2100-\u21ff\u2200-\u22ff"
    "\u2460-\u24ff\u2500-\u25ff\u2600-\u26ff\u3000-\u303f\u3130-\u318f\u3200-\u32ff\u3300-\u33ff"
    "\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7a3\u1100-\u11ff\uff00-\uffef\t\n]"
)


class Layer(Enum):
    """What a page's text layer is worth."""

    GOOD = "good"
    MISSING = "missing"
    BROKEN = "broken"
    MOJIBAKE = "mojibake"


def odd_share(text: str) -> float:
    """The share of ``text``'s non-space characters outside the expected blocks."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    return sum(not _EXPECTED.match(c) for c in chars) / len(chars)


def judge(text: str, has_picture: bool) -> Layer:
    """The worth of a page's text layer, read as ``text`` (see the module docstring)."""
    ink = "".join(text.split())
    if len(ink) < MIN_CHARS and has_picture:
        return Layer.MISSING
    if not ink:
        return Layer.GOOD
    bare = len(_BARE_MARKER.findall(text))
    if bare >= MIN_MARKERS and bare > len(_NUMBERED_MARKER.findall(text)):
        return Layer.BROKEN
    if len(ink) >= MIN_CHARS and odd_share(ink) > MAX_ODD:
        return Layer.MOJIBAKE
    return Layer.GOOD
