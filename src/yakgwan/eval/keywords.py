"""Keyword matching for answers: a keyword is found when it occurs in the answer, with whitespace
ignored and numbers compared by value.

Test sets list one fact in several spellings (``52,000명`` and ``52000명``; ``150,000,000원``,
``1억 5천만원`` and ``150000000``). Read literally, no answer quoting the document could hold
more than one of them. So both the answer and each keyword are first put in a canonical form:

* thousands separators dropped (``1,590,000`` → ``1590000``);
* a Korean amount, a number written right before ``조 억 만 천 백 십``, becomes its value
  (``1억 5천만`` → ``150000000``, ``5천 2백만`` → ``52000000``, ``2.5억`` → ``250000000``,
  ``20만`` → ``200000``); ``30 만기`` is no amount;
* whitespace removed, except one space between two digits (two numbers stay two).

A keyword that starts or ends with a digit never matches inside a longer number (``5억`` is not
found in ``15억``).

Keywords whose canonical forms are one number with the same short word or sign around it, or
the number bare (``52000명`` and ``52000명``; ``150000000원`` and ``150000000``), are one keyword
written several ways; :func:`keyword_recall` counts such a group once, found when any spelling is.
Other keywords count one each, as before: ``12개월`` and ``1년`` (the same time, not the same
number), ``5명`` and ``5개``, ``$25`` and ``25달러`` stay apart. Pure functions.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Sequence

_SPACE = re.compile(r"[^\S ]+| (?!(?<=\d )\d)")  # whitespace, except one space between two digits
_DIGIT_GAP = re.compile(r"(?<=\d)\s+(?=\d)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_NUM = r"\d+(?:\.\d+)?"
_UNIT = "조억만천백십"
# a Korean amount: a number written right before a unit ("30 만기" is no amount), then further
# groups, each after at most one space when it has a unit of its own ("1억 5천만", "5천 2백만"),
# or right after the last unit when it is a bare number ("3만5000"); never inside a longer number
_AMOUNT = re.compile(rf"(?<![\d.]){_NUM}[{_UNIT}]+(?:\s?{_NUM}[{_UNIT}]+|(?<=[{_UNIT}]){_NUM}(?![\d.]))*")
_TOKEN = re.compile(rf"({_NUM})|([{_UNIT}])|(\s)")
_SMALL = {"천": 1000, "백": 100, "십": 10}
_LARGE = {"조": 10**12, "억": 10**8, "만": 10**4}
# a keyword that is one number with at most a short word or sign around it (``45명``, ``$25``,
# ``150000000원``, ``2008년``): its spellings are grouped by that number
_ONE_NUMBER = re.compile(r"^(\D{0,2})(\d+(?:\.\d+)?)(\D{0,2})$")


def amount_value(run: str) -> Decimal:
    """The value of a Korean amount (``1억 5천만`` → 150000000, ``2.5억`` → 250000000).

    Read left to right: a number; ``천 백 십`` multiply the number before them (1 when none) into
    the part below 만; ``만``, ``억`` and ``조`` multiply that part plus the number into the total,
    each smaller than the one before (``1만억`` is no amount). A large unit with nothing before it
    (``1억만``), or anything but numbers, units and single spaces, raises ValueError.
    """
    if not run or not run[0].isdigit():
        raise ValueError(f"an amount starts with a digit, got {run!r}")
    total, part, num = Decimal(0), Decimal(0), None
    last_large: str | None = None
    pos = 0
    for m in _TOKEN.finditer(run):
        if m.start() != pos:
            raise ValueError(f"{run!r}: {run[pos:m.start()]!r} is not a number or a number unit")
        pos = m.end()
        number, unit = m.group(1), m.group(2)
        if number is not None:
            if num is not None:
                raise ValueError(f"{run!r}: two numbers without a unit between them")
            num = Decimal(number)
        elif unit in _SMALL:
            part += (num if num is not None else Decimal(1)) * _SMALL[unit]
            num = None
        elif unit in _LARGE:
            if last_large is not None and _LARGE[unit] >= _LARGE[last_large]:
                raise ValueError(f"{run!r}: {unit} after {last_large} is not a Korean amount")
            if num is None and part == 0:
                raise ValueError(f"{run!r}: {unit} with no number before it")
            total += (part + (num or 0)) * _LARGE[unit]
            part, num, last_large = Decimal(0), None, unit
    if pos != len(run):
        raise ValueError(f"{run!r}: {run[pos:]!r} is not a number or a number unit")
    return total + part + (num or 0)


def _digits(value: Decimal) -> str:
    """A value as plain digits (``250000000``, ``1234.5``)."""
    text = format(value.normalize(), "f")
    return text.split(".")[0] if "." in text and not text.split(".")[1].strip("0") else text


def canonical(text: str) -> str:
    """``text`` without thousands separators, with Korean amounts as digits, then without whitespace."""

    def value(m: re.Match[str]) -> str:
        try:
            return _digits(amount_value(m.group(0)))
        except ValueError:
            return m.group(0)

    amounts = _AMOUNT.sub(value, _THOUSANDS.sub("", text))
    return _SPACE.sub("", _DIGIT_GAP.sub(" ", amounts))  # two numbers stay two: "1억 2024년" is not 1000000002024


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
    return sum(any(_occurs(canonical(k), flat) for k in g) for g in groups) / len(groups)


def _occurs(keyword: str, text: str) -> bool:
    """``keyword`` in ``text``; a keyword that starts or ends with a digit does not match inside a
    longer number (``5억`` is not in ``15억`` or ``2.5억``, ``2천만`` not in ``120000000``)."""
    if not keyword:
        return False
    head = r"(?<![\d.])" if keyword[0].isdigit() else ""
    tail = r"(?![\d])" if keyword[-1].isdigit() else ""
    return re.search(head + re.escape(keyword) + tail, text) is not None
