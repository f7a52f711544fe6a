"""Clause-level retrieval metrics over 약관: the ranked items are (약관, 조) units, not documents.

A test question names its governing units (``GoverningUnit``: 약관 name, article, title, page;
the first is the primary one). A retrieved chunk stands for a unit: ``(약관 name without
whitespace, article)`` when it has an article, else its pages (a table or a page without a
heading). A governing unit whose article is ``제N조`` matches a chunk of the same 약관 (compared
without whitespace) and the same article; a table unit (``별표``, ``별표1``, ``부표``, ``분류표``:
no 제N조) matches a chunk whose pages hold its page. Units are de-duplicated down the list: a
unit's rank is the rank of its best chunk, as doc-level metrics rank a document by its best chunk.

Everything here is a pure function of the ranked chunk places and the governing units.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from yakgwan.core.records import Chunk

ARTICLE = re.compile(r"제\d+조")
# the metrics of one question, in the order ``eval --json`` writes them
CLAUSE_KEYS = ("hit@1", "hit@5", "mrr", "any_hit@1", "any_hit@5", "any_mrr")


def norm_name(name: str | None) -> str:
    """A 약관 name compared without whitespace: ``"교통사고처리지원금(Ⅰ) 특별약관"`` and
    ``"교통사고처리지원금(Ⅰ)특별약관"`` are one name."""
    return re.sub(r"\s+", "", name or "")


@dataclass(frozen=True)
class GoverningUnit:
    """A unit a good answer cites: the 약관 as printed, the article (``제18조``, or a table's
    stand-in label), its title and the 1-based PDF page its heading is on."""

    yakgwan: str
    article: str
    article_title: str | None
    page: int

    @property
    def is_table(self) -> bool:
        """A table (no 제N조): matched by its page."""
        return ARTICLE.match(self.article) is None

    def label(self) -> str:
        return f"{self.yakgwan} {self.article} (p.{self.page})"


@dataclass(frozen=True)
class Place:
    """Where a retrieved chunk sits: its 약관 (as printed), article and pages."""

    yakgwan: str | None
    article: str | None
    pages: tuple[int, ...]

    @classmethod
    def of(cls, chunk: Chunk) -> Place:
        return cls(chunk.yakgwan, chunk.article, tuple(chunk.pages))

    def key(self) -> tuple[str, ...] | tuple[str, tuple[int, ...]]:
        """The unit this place stands for: ``(약관 without whitespace, article)``, or its pages
        when it has no article."""
        return (norm_name(self.yakgwan), self.article) if self.article else ("page", self.pages)

    def label(self) -> str:
        if self.article:
            return f"{self.yakgwan or '?'} {self.article}"
        if not self.pages:
            return "p.?"
        return f"p.{self.pages[0]}" if len(self.pages) == 1 else f"pp.{self.pages[0]}-{self.pages[-1]}"


def matches(place: Place, unit: GoverningUnit) -> bool:
    """Whether a chunk at ``place`` is evidence of ``unit``: same 약관 (whitespace aside) and
    same article for a 제N조 unit; the unit's page among the chunk's pages for a table."""
    if unit.is_table:
        return unit.page in place.pages
    return norm_name(place.yakgwan) == norm_name(unit.yakgwan) and (place.article or "") == unit.article


def rank_units(hits: Sequence[Sequence[Place]]) -> list[tuple[Place, ...]]:
    """The unit ranking of a hit list. Each hit is its chunk's place first, then the places of
    the chunks it stands for beside it (a grouping step's members); its unit is that of its own
    chunk. A unit already ranked is skipped, so its rank is that of its best hit:
    ``[[a 제1조], [b p.3], [a 제1조 ②]] -> [[a 제1조], [b p.3]]``."""
    seen: set[object] = set()
    out: list[tuple[Place, ...]] = []
    for places in hits:
        if not places:
            continue
        key = places[0].key()
        if key not in seen:
            seen.add(key)
            out.append(tuple(places))
    return out


def first_match_rank(units: Sequence[Sequence[Place]], governing: Sequence[GoverningUnit], k: int) -> int | None:
    """``min{ i <= k : some place of unit_i matches some unit of governing }`` (1-based), None
    when no unit of the first k matches."""
    if k <= 0:
        raise ValueError(f"k must be greater than 0. Currently, k is {k}")
    for i, places in enumerate(units[:k], start=1):
        if any(matches(p, g) for p in places for g in governing):
            return i
    return None


def hit_at(rank: int | None, n: int) -> float:
    """``hit@n = 1 if rank <= n else 0`` (0 when nothing matched): the share of questions whose
    unit is among the first n (trec_eval ``success_n``)."""
    return 1.0 if rank is not None and rank <= n else 0.0


def reciprocal_rank(rank: int | None) -> float:
    """``RR = 1 / rank``, 0 when nothing matched within the cut; its mean is MRR@k."""
    return 1.0 / rank if rank is not None else 0.0


def clause_metrics(units: Sequence[Sequence[Place]], governing: Sequence[GoverningUnit], k: int) -> dict[str, float]:
    """One question's clause metrics over its first ``k`` units (``units`` from :func:`rank_units`):

    - ``hit@1``, ``hit@5``, ``mrr`` (MRR@k): with ``r`` the rank of the first unit matching the
      *primary* governing unit (``governing[0]``), ``hit@n = [r <= n]``, ``mrr = 1/r`` (0 when
      none of the first k matches; ``hit@5`` with k < 5 counts the first k only);
    - ``any_hit@1``, ``any_hit@5``, ``any_mrr``: the same with ``r`` the rank of the first unit
      matching *any* governing unit.
    """
    if not governing:
        raise ValueError("a question needs at least one governing unit")
    primary = first_match_rank(units, governing[:1], k)
    anyone = first_match_rank(units, governing, k)
    return {
        "hit@1": hit_at(primary, 1), "hit@5": hit_at(primary, 5), "mrr": reciprocal_rank(primary),
        "any_hit@1": hit_at(anyone, 1), "any_hit@5": hit_at(anyone, 5), "any_mrr": reciprocal_rank(anyone),
    }


def missing_units(governing: Sequence[GoverningUnit], places: Sequence[Place]) -> list[GoverningUnit]:
    """The governing units no chunk of the index matches (every metric on them reads 0)."""
    return [g for g in dict.fromkeys(governing) if not any(matches(p, g) for p in places)]
