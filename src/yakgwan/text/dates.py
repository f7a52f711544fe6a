"""Calendar dates written in full in Korean letters ("2025년 1월 27일", "2025. 1. 27.", "2025.01.21",
"2025-01-21"): where they stand in a text and the day each names (pure)."""

from __future__ import annotations

import re
from datetime import date
from typing import Iterator

FULL_DATE = re.compile(r"(\d{4})\s*[.년/-]\s*(\d{1,2})\s*[.월/-]\s*(\d{1,2})")


def full_dates(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[re.Match[str], date]]:
    """Each full date written in ``text[start:end]`` with the day it names; a form that names no
    day ("2025.13.45") is skipped."""
    for m in FULL_DATE.finditer(text, start, len(text) if end is None else end):
        try:
            yield m, date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            continue
