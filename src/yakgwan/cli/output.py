"""What several commands print: an ingest's report, search hits."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from yakgwan.core.errors import YakgwanError, one_line
from yakgwan.core.location import IndexLocation, display_location
from yakgwan.core.records import Hit
from yakgwan.messages import msg
from yakgwan.messages.catalogue import Param

if TYPE_CHECKING:  # the ingest service loads the ingest steps and their prompts: search and ask never need them
    from yakgwan.services.ingest import IngestReport


def err(msg: str) -> None:
    print(msg, file=sys.stderr)


def say(lang: str, key: str, /, **params: Param) -> str:
    """The catalogue's text of ``key`` in the command line's language."""
    return msg(key, **params).text(lang)


def print_ingest_report(r: IngestReport, index_dir: IndexLocation, lang: str = "en", warnings: bool = True) -> None:
    """The ingest's summary; ``warnings`` False: its warnings were printed when found."""
    from yakgwan.services.ingest import index_summary

    s = index_summary(r.index) if r.index is not None else None
    documents, pages, yakgwan, articles, chunks = (s.documents, s.pages, s.yakgwan, s.articles, s.chunks) if s else (0, 0, 0, 0, 0)
    print(say(lang, "cli.index", where=display_location(index_dir)))
    print(say(lang, "cli.index_counts", documents=documents, added=len(r.added), replaced=len(r.replaced), unchanged=len(r.unchanged), pages=pages,
              yakgwan=yakgwan, articles=articles, chunks=chunks))
    if r.added or r.replaced:
        rate = say(lang, "cli.pages_rate", n=f"{r.new_pages / r.seconds_load:.0f}") if r.seconds_load and r.new_pages else ""
        print(say(lang, "cli.loaded", seconds=f"{r.seconds_load:.1f}", rate=rate, lexical=f"{r.seconds_lexical:.1f}", chunks=r.new_chunks))
    if r.embedded or r.from_cache:
        speed = say(lang, "cli.chunks_rate", n=f"{r.embedded / r.seconds_dense:.1f}") if r.embedded and r.seconds_dense else ""
        print(say(lang, "cli.dense", embedded=r.embedded, seconds=f"{r.seconds_dense:.1f}", speed=speed, cached=r.from_cache))
    for line in label_lines(r, shown=10, lang=lang):
        print(f"  {line}")
    if r.removed:
        print(say(lang, "cli.removed", n=len(r.removed)))
    if r.reindexed:
        print(say(lang, "cli.reindexed"))
    if r.dense_ready:
        print(say(lang, "cli.hybrid_ready", seconds=f"{r.seconds_total:.1f}"))
    else:
        print(say(lang, "cli.hybrid_not_ready", why=r.dense_error or say(lang, "cli.incomplete"), seconds=f"{r.seconds_total:.1f}"))
    for w in r.warnings if warnings else ():
        err(say(lang, "cli.warning", text=w))
    if r.failed:
        err(say(lang, "cli.failed", n=len(r.failed)))
        for e in r.failed:
            err(f"  {e.localized(lang) if isinstance(e, YakgwanError) else e}")


def label_lines(r: IngestReport, shown: int, lang: str = "en") -> list[str]:
    """One line per added or replaced document that has an insurer, product or version: each
    value with where it comes from (set at ingest with ``--meta``, or the page the document prints it on)."""
    if r.index is None:
        return []
    lines = []
    for doc_id in [*r.added, *r.replaced]:
        rec = r.index.docs.get(doc_id)
        if rec is None:
            continue
        parts = []
        for key in ("product", "insurer", "version"):
            name = say(lang, f"cli.key.{key}")
            if rec.meta.get(key):
                parts.append(say(lang, "cli.label_set", key=name, value=rec.meta[key]))
            elif rec.printed.get(key):
                where = rec.printed_from.get(key, "")
                parts.append(say(lang, "cli.label_printed", key=name, value=rec.printed[key], where=", " + where.split(":")[0] if where.startswith("p.") else ""))
        if parts:
            lines.append(f"{one_line(doc_id)}: " + " · ".join(parts))
    return lines[:shown] + ([say(lang, "cli.labels_more", n=len(lines) - shown)] if len(lines) > shown else [])


def print_hits(hits: Sequence[Hit], width: int = 160, lang: str = "en") -> None:
    if not hits:
        print(say(lang, "cli.no_hits"))
    for h in hits:
        snippet = " ".join(h.chunk.text.split())
        print(f"{h.rank:>3}. {h.score:.4f}  {h.chunk.citation()}")
        print(f"      {snippet[:width]}{'…' if len(snippet) > width else ''}")
        if line := members_line(h, lang=lang):
            print(f"      {line}")


def members_line(h: Hit, shown: int = 4, lang: str = "en") -> str:
    """The other 약관 a grouped hit's clause is printed in (and how many pieces of its own 조
    it folds), e.g. ``same clause in: 교통사고처리지원금(Ⅱ) 특별약관 제1조 (p.79), … (+2 more)``."""
    own = [m for m in h.members if m.yakgwan == h.chunk.yakgwan and m.article == h.chunk.article]
    others = [m for m in h.members if m not in own]
    parts = []
    if others:
        names = [f"{m.yakgwan or m.source} {m.article or m.section or ''} (p.{','.join(map(str, m.pages))})".replace("  ", " ") for m in others[:shown]]
        more = say(lang, "cli.more_places", n=len(others) - shown) if len(others) > shown else ""
        parts.append(say(lang, "cli.same_clause", names=", ".join(names), more=more))
    if own:
        parts.append(say(lang, "cli.more_pieces_article" if h.chunk.article else "cli.more_pieces_section", n=len(own)))
    return "; ".join(parts)
