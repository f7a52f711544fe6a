"""What a claim's cited sentences say, and what names them: their headings, their documents'
titles and the header rows of cited table rows."""

from __future__ import annotations

from typing import Any

from yakgwan.answer.anchors import bare_term, normalise
from yakgwan.answer.passages import header_row
from yakgwan.answer.records import Sentence


def char_bigrams(text: str) -> set[str]:
    """The character bigrams of ``text``'s letters and digits, lower-cased."""
    flat = "".join(ch for ch in text.lower() if ch.isalnum())
    return {flat[i : i + 2] for i in range(len(flat) - 1)}


def shown(cite: list[str], by_number: dict[str, Sentence]) -> tuple[list[str], list[str]]:
    """The cited sentences as shown, and the headings shown above them."""
    found = [by_number[n] for n in cite if n in by_number]
    return [s.text for s in found], [s.chunk.heading() for s in found]


def labels(cite: list[str], by_number: dict[str, Sentence]) -> list[str]:
    """What names the cited sentences besides their headings: their documents' titles, and the
    header row of each cited table row ("| 권나라 | 52,000,000원 |" under "| 이름 | 연봉 |")."""
    found = [by_number[n] for n in cite if n in by_number]
    return [s.chunk.title for s in found] + [h for s in found if (h := header_row(s))]


def evidence(claims: list[dict[str, Any]], by_number: dict[str, Sentence]) -> tuple[list[str], list[str]]:
    """What the claims' cited sentences say, and what names them (headings, titles, header rows)."""
    cited: list[str] = []
    heads: list[str] = []
    for c in claims:
        texts, above = shown(c["cite"], by_number)
        cited += texts
        heads += above + labels(c["cite"], by_number)
    return cited, heads


def all_in(nouns: list[str], texts: list[str]) -> bool:
    """Every noun (its particle dropped) is in what ``texts`` say, spaces and case aside."""
    said = normalise(" ".join(texts))
    return all(normalise(bare_term(w)) in said for w in nouns)
