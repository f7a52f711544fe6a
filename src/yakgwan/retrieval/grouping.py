"""Grouping a hit list so that its top k covers distinct clauses.

A 약관 repeats clauses: the same 조 text is printed in every variant of a 특약 (교통사고처리지원금
(Ⅰ)/(Ⅱ)/(Ⅲ), 가족…, 택시 포함/제외), and one long 조 is indexed as several chunks. Without
grouping, five copies of one clause fill the top 5. Two rules fold a hit into a better one above
it, which keeps it as a member (with its own provenance, so that every variant stays citable):

- the same unit: the same 약관 and the same 조 (pieces of one article), or the same table, as
  the group's first hit or any of its members (a unit is never split over two groups);
- the same text: character 4-gram shingles (whitespace removed) with a Jaccard similarity of at
  least ``threshold`` (Broder, "On the resemblance and containment of documents", 1997);
- the same clause printed in two 약관: pieces of two 조 of one document that carry the same title
  and whose whole texts are copies by the rule above (:func:`clone_articles`: a 특약 that restates
  the 보통약관's 청약의 철회 article; one piece of each need not be alike, a paragraph cut
  differently or a figure changed).

Both are pure functions of the hits; nothing here reads an index.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Mapping, Sequence

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


def clone_articles(chunks: Sequence[Chunk], threshold: float = CLONE_JACCARD) -> dict[str, str]:
    """Chunk id -> a key shared by the pieces of every 조 that is a copy of another: two 조 of one
    document in two different 약관, with the same title, whose whole texts (pieces joined) have a
    shingle Jaccard of at least ``threshold``; copies of copies share the key. Chunks of a 조
    without a copy are left out. Pure."""
    articles: dict[tuple[str, str, str], list[Chunk]] = {}
    for c in chunks:
        if c.yakgwan and c.article and c.article_title and c.kind != "law":
            articles.setdefault((c.doc_id, c.yakgwan, c.article), []).append(c)
    by_title: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for key, pieces in articles.items():
        by_title.setdefault((key[0], _SPACE.sub("", pieces[0].article_title or "")), []).append(key)
    parent: dict[tuple[str, str, str], tuple[str, str, str]] = {}

    def root(x: tuple[str, str, str]) -> tuple[str, str, str]:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for keys in by_title.values():
        if len({k[1] for k in keys}) < 2:
            continue
        texts = {k: shingles("".join(c.text for c in articles[k])) for k in keys}
        for i, a in enumerate(keys):
            for b in keys[i + 1:]:
                if a[1] != b[1] and root(a) != root(b) and jaccard(texts[a], texts[b]) >= threshold:
                    parent[root(b)] = root(a)
    out: dict[str, str] = {}
    for key in parent:
        top = "\x1f".join(root(key))
        for k in (key, root(key)):
            for c in articles[k]:
                out[c.chunk_id] = top
    return out


def group_hits(hits: list[Hit], k: int, threshold: float = CLONE_JACCARD, shingles_of: Shingles | None = None,
               clones: Mapping[str, str] | None = None) -> list[Hit]:
    """The first ``k`` groups of ``hits`` (best first), each hit carrying the chunks folded into
    it as ``members``; ranks renumbered 1..n. ``shingles_of`` may cache each chunk's shingles;
    ``clones`` (:func:`clone_articles`) folds the pieces of copied 조 together."""
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    of = shingles_of or (lambda c: shingles(c.text))
    heads: list[Hit] = []
    folded: list[list[Chunk]] = []
    for h in hits:
        target = _group_of(h.chunk, heads, folded, threshold, of, clones if clones is not None else {})
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


def _group_of(c: Chunk, heads: list[Hit], folded: list[list[Chunk]], threshold: float, of: Shingles,
              clones: Mapping[str, str]) -> int | None:
    """The group ``c`` belongs to: one holding a piece of its unit or of a copy of its 조 (head or
    member), else one whose head has its text; None for a new group."""
    mine_clone = clones.get(c.chunk_id)
    for i, (head, members) in enumerate(zip(heads, folded)):
        if same_unit(c, head.chunk) or any(same_unit(c, m) for m in members):
            return i
        if mine_clone is not None and any(clones.get(m.chunk_id) == mine_clone for m in (head.chunk, *members)):
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
