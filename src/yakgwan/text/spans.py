"""Character spans of a text."""

from __future__ import annotations


def trim_span(text: str, s: int, e: int) -> tuple[int, int]:
    """``(s, e)`` moved inwards past leading and trailing whitespace of ``text[s:e]``."""
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e
