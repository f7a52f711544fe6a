"""Keyword matching for answers: a keyword is found when it occurs in the answer, with whitespace
ignored and numbers compared by value.

Test sets list one fact in several spellings (``52,000명`` and ``52000명``; ``150,000,000원``,
``1억 5천만원`` and ``150000000``). Read literally, no answer quoting the document could hold
more than one of them. So both the answer and each keyword are first put in a canonical form:

* whitespace removed;
* thousands separators dropped (``1,590,000`` → ``1590000``);
* a Korean amount written with the large units ``억`` and ``만`` (and ``천 백 십`` inside them)
  after a digit becomes its value (``1억5천만`` → ``150000000``, ``5천2백만`` → ``52000000``,
  ``20만`` → ``200000``).

Keywords whose canonical forms are one number with the same short word or sign around it, or
the number bare (``52000명`` and ``52000명``; ``150000000원`` and ``150000000``), are one keyword
written several ways; :func:`keyword_recall` counts such a group once, found when any spelling is.
Other keywords count one each, as before: ``12개월`` and ``1년`` (the same time, not the same
number), ``5명`` and ``5개``, ``$25`` and ``25달러`` stay apart. Pure functions.
"""

from __future__ import annotations

import re
from typing import Sequence

_SPACE = re.compile(r"\s+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# a digit followed by a run of digits and the Korean number units; only a run that holds a unit
# after a digit is rewritten (``3월`` and ``2008년`` are left alone)
_AMOUNT = re.compile(r"\d[\d천백십억만]*")
_SMALL = {"천": 1000, "백": 100, "십": 10}
_LARGE = {"억": 10**8, "만": 10**4}
# a keyword that is one number with at most a short word or sign around it (``45명``, ``$25``,
# ``150000000원``, ``2008년``): its spellings are grouped by that number
_ONE_NUMBER = re.compile(r"^(\D{0,2})(\d+(?:\.\d+)?)(\D{0,2})$")


def amount_value(run: str) -> int:
    """The value of a run of digits and Korean number units (``1억5천만`` → 150000000).

    Read left to right: digits form a number; ``천 백 십`` multiply the number before them (1 when
    none) into the part below 만; ``만`` and ``억`` multiply that part plus the number into the
    total. ``억`` after ``만`` (``1만억``) is not a Korean amount and raises ValueError.
    """
    if not run or not run[0].isdigit():
        raise ValueError(f"an amount starts with a digit, got {run!r}")
    total, part, num, last_large = 0, 0, "", None
    for ch in run:
        if ch.isdigit():
            num += ch
        elif ch in _SMALL:
            part += int(num or "1") * _SMALL[ch]
            num = ""
        elif ch in _LARGE:
            if last_large is not None and _LARGE[ch] >= _LARGE[last_large]:
                raise ValueError(f"{run!r}: {ch} after {last_large} is not a Korean amount")
            total += (part + int(num or "0")) * _LARGE[ch] if (part or num) else _LARGE[ch]
            part, num, last_large = 0, "", ch
        else:
            raise ValueError(f"{run!r}: {ch!r} is not a digit or a number unit")
    return total + part + int(num or "0")


def canonical(text: str) -> str:
    """``text`` without whitespace, thousands separators, and with Korean amounts as digits."""
    flat = _THOUSANDS.sub("", _SPACE.sub("", text))

    def value(m: re.Match[str]) -> str:
        run = m.group(0)
        if run.isdigit():
            return run
        try:
            return str(amount_value(run))
        except ValueError:
            return run

    return _AMOUNT.sub(value, flat)


def keyword_groups(keywords: Sequence[str]) -> list[list[str]]:
    """The keywords in groups of spellings of one fact (see the module docstring), in order of
    first appearance; a keyword that is not a lone number is a group of its own."""
    groups: list[list[str]] = []
    numbers: list[tuple[str, str, str] | None] = []  # each group's (number, prefix, suffix), None for a word
    for k in keywords:
        m = _ONE_NUMBER.match(canonical(k))
        key = (m.group(2), m.group(1), m.group(3)) if m else None
        at = next((i for i, n in enumerate(numbers) if key and n and _same_fact(key, n)), None)
        if at is None:
            groups.append([k])
            numbers.append(key)
        else:
            groups[at].append(k)
            if not numbers[at][1] + numbers[at][2]:  # a bare number takes the affixes of a spelling that has them
                numbers[at] = key
    return groups


def _same_fact(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    """One number, with the same affixes or none on one side."""
    return a[0] == b[0] and (a[1:] == b[1:] or not a[1] + a[2] or not b[1] + b[2])


def keyword_recall(answer: str, keywords: Sequence[str]) -> float | None:
    """Share of the keyword groups of which some spelling occurs in ``answer``, both in canonical
    form; None without keywords."""
    if not keywords:
        return None
    flat = canonical(answer)
    groups = keyword_groups(keywords)
    return sum(any(canonical(k) in flat for k in g) for g in groups) / len(groups)
