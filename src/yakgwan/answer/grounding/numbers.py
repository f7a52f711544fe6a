"""The numbers a claim states, checked against the sentences it cites."""

from __future__ import annotations

import re
from collections.abc import Sequence

from yakgwan.answer.ko_rules.lexicon import COMPUTES

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NUMBER_UNIT = re.compile(rf"({_NUMBER.pattern})\s*([^\s\d.,]?)")  # a number and the character after it
MAX_OPERANDS = 12


def unsupported_numbers(claim: str, cited: Sequence[str], headings: Sequence[str] = (), arithmetic: bool = True) -> list[str]:
    """Numbers in ``claim`` that none of its cited sentences contains (a made-up figure). A
    number the cited sentences' headings show (the section "2012년 - 지방 확장" above "12월: 연간
    매출 50억원 돌파") also counts, when the claim writes it with the same unit ("2012년", not
    "2012명"; an article's "제3조" does not support "3일"). When the claim says it computes (a
    difference, total, ratio: :data:`~yakgwan.answer.ko_rules.lexicon.COMPUTES`) and
    ``arithmetic`` is on (the rule of that name), a number is also supported when it is the sum,
    difference, product, quotient or percentage change of two cited numbers, or the sum of
    several (1% tolerance, for rounding)."""
    have = {n.replace(",", "") for t in cited for n in _NUMBER.findall(t)}
    titled = {(n.replace(",", ""), unit) for t in headings for n, unit in _NUMBER_UNIT.findall(t)}
    missing = [n for n, unit in _NUMBER_UNIT.findall(claim) if n.replace(",", "") not in have and (n.replace(",", ""), unit) not in titled]
    if not missing or not arithmetic or not COMPUTES.search(claim):
        return missing
    values = sorted({v for h in have if (v := _value(h)) is not None})[:MAX_OPERANDS]
    derived = derivable(values)
    # a number that is no plain decimal (a date "2024.1.2", a version) is never an arithmetic result
    return [n for n in missing if (v := _value(n)) is None or not any(abs(v - d) <= 0.01 * max(abs(d), 1.0) for d in derived)]


def _value(number: str) -> float | None:
    """A number as written ("1,500", "2.5") as a float; None when it is no plain decimal ("2024.1.2")."""
    digits = number.replace(",", "")
    return float(digits) if digits.replace(".", "", 1).isdigit() else None


def derivable(values: Sequence[float]) -> set[float]:
    """What one arithmetic step makes of ``values``: every pair's sum, difference, product,
    quotients and percentage changes, and the sum of every subset (at most ``MAX_OPERANDS``
    values)."""
    out: set[float] = set()
    vs = list(values)[:MAX_OPERANDS]
    for i, a in enumerate(vs):
        for b in vs[i + 1 :]:
            out |= {a + b, abs(a - b), a * b}
            if a:
                out |= {b / a, (b - a) / a * 100, b / a * 100}
            if b:
                out |= {a / b, (a - b) / b * 100, a / b * 100}
    sums = {0.0}
    for v in vs:
        sums |= {s + v for s in sums}
    return out | {abs(x) for x in out if x < 0} | sums
