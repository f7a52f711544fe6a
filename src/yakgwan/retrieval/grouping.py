"""Grouping a hit list so that its top k covers distinct clauses.

A 약관 repeats clauses: the same 조 text is printed in every variant of a 특약 (교통사고처리지원금
(Ⅰ)/(Ⅱ)/(Ⅲ), 가족…, 택시 포함/제외), and one long 조 is indexed as several chunks. Without
grouping, five copies of one clause fill the top 5. Two rules fold a hit into a better one above
it, which keeps it as a member (with its own provenance, so that every variant stays citable):

- the same unit: the same 약관 and the same 조 (pieces of one article), or the same table, as
  the group's first hit or any of its members (a unit is never split over two groups);
- the same text: character 4-gram shingles (whitespace removed) with a Jaccard similarity of at
  least ``threshold`` (Broder, "On the resemblance and containment of documents", 1997).

Both are pure functions of the hits; nothing here reads an index.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from yakgwan.core.records import Chunk, Hit

SHINGLE = 4
# at or above: the same clause (variants that differ in a name, a figure or a sentence); chosen on
# the policy_qa dev tuning half (0.9: hit@5 0.952, 0.8: 1.000; checking half 0.632 -> 0.684)
CLONE_JACCARD = 0.8
_SPACE = re.compile(r"\s+")

Shingles = Callable[[Chunk], frozenset[str]]


def shingles(text: str, n: int = SHINGLE) -> frozenset[str]:
    """The set of character n-grams of ``text`` with whitespace removed (the whole text when
    it is shorter than n)."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    t = _SPACE.sub("", text)
    if len(t) <= n:
        return frozenset({t}) if t else frozenset()
    return frozenset(t[i : i + n] for i in range(len(t) - n + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """``|a ∩ b| / |a ∪ b|``; 0 when both are empty."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def same_unit(a: Chunk, b: Chunk) -> bool:
    """Pieces of one 조 of one 약관 of one document, of one table (a 별표 printed under one
    heading after one 약관) or of one article of an appended statute; other chunks outside any
    약관 are never the same unit."""
    if a.doc_id != b.doc_id:
        return False
    if a.kind == b.kind == "table" and not (a.yakgwan or b.yakgwan):
        return bool(a.section) and (a.section, a.follows) == (b.section, b.follows)
    if a.kind == b.kind == "law":
        return bool(a.article) and (a.section, a.article) == (b.section, b.article)
    if not a.yakgwan or a.yakgwan != b.yakgwan:
        return False
    if a.article or b.article:
        return a.article == b.article
    return a.kind == b.kind == "table" and bool(a.section) and a.section == b.section


def group_hits(hits: list[Hit], k: int, threshold: float = CLONE_JACCARD, shingles_of: Shingles | None = None) -> list[Hit]:
    """The first ``k`` groups of ``hits`` (best first), each hit carrying the chunks folded into
    it as ``members``; ranks renumbered 1..n. ``shingles_of`` may cache each chunk's shingles."""
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    of = shingles_of or (lambda c: shingles(c.text))
    heads: list[Hit] = []
    folded: list[list[Chunk]] = []
    for h in hits:
        target = _group_of(h.chunk, heads, folded, threshold, of)
        if target is None:
            if len(heads) < k:
                heads.append(h)
                folded.append(list(h.members))
            continue
        members = folded[target]
        for c in (h.chunk, *h.members):
            if c.chunk_id != heads[target].chunk.chunk_id and all(c.chunk_id != m.chunk_id for m in members):
                members.append(c)
    return [replace(h, rank=r, members=tuple(m)) for r, (h, m) in enumerate(zip(heads, folded), 1)]


def _group_of(c: Chunk, heads: list[Hit], folded: list[list[Chunk]], threshold: float, of: Shingles) -> int | None:
    """The group ``c`` belongs to: one holding a piece of its unit (head or member), else one
    whose head has its text; None for a new group."""
    for i, (head, members) in enumerate(zip(heads, folded)):
        if same_unit(c, head.chunk) or any(same_unit(c, m) for m in members):
            return i
    mine = of(c)
    for i, head in enumerate(heads):
        if jaccard(mine, of(head.chunk)) >= threshold:
            return i
    return None


def restrict(h: Hit, keep: Callable[[Chunk], bool]) -> Hit | None:
    """``h`` cut to the chunks ``keep`` accepts: as it is when its own chunk is kept; else its
    first kept member stands for it (the other kept members stay members); None when none is
    kept. Scoping a grouped list must not lose the copy of a clause that lies in scope."""
    if keep(h.chunk):
        return replace(h, members=tuple(m for m in h.members if keep(m)))
    kept = [m for m in h.members if keep(m)]
    if not kept:
        return None
    return replace(h, chunk=kept[0], members=tuple(kept[1:]))
