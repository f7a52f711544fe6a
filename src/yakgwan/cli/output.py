"""What several commands print: an ingest's report, search hits."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from yakgwan.core.errors import one_line
from yakgwan.core.location import IndexLocation, display_location
from yakgwan.core.records import Hit

if TYPE_CHECKING:  # the ingest service loads the ingest steps and their prompts: search and ask never need them
    from yakgwan.services.ingest import IngestReport


def err(msg: str) -> None:
    print(msg, file=sys.stderr)


def print_ingest_report(r: IngestReport, index_dir: IndexLocation) -> None:
    from yakgwan.services.ingest import index_summary

    s = index_summary(r.index) if r.index is not None else None
    documents, pages, yakgwan, articles, chunks = (s.documents, s.pages, s.yakgwan, s.articles, s.chunks) if s else (0, 0, 0, 0, 0)
    print(f"index {display_location(index_dir)}")
    print(
        f"  documents {documents} (added {len(r.added)}, replaced {len(r.replaced)}, unchanged {len(r.unchanged)})"
        f" · pages {pages} · 약관 {yakgwan} · articles {articles} · chunks {chunks}"
    )
    if r.added or r.replaced:
        rate = f" ({r.new_pages / r.seconds_load:.0f} pages/s)" if r.seconds_load and r.new_pages else ""
        print(f"  loaded in {r.seconds_load:.1f} s{rate} · BM25 searchable after {r.seconds_lexical:.1f} s · {r.new_chunks} new chunks")
    if r.embedded or r.from_cache:
        speed = f", {r.embedded / r.seconds_dense:.1f} chunks/s" if r.embedded and r.seconds_dense else ""
        print(f"  dense: {r.embedded} embedded in {r.seconds_dense:.1f} s{speed}, {r.from_cache} from cache")
    for line in label_lines(r, shown=10):
        print(f"  {line}")
    if r.removed:
        print(f"  removed {len(r.removed)} document(s) no longer in the corpus")
    if r.reindexed:
        print("  analyzer or embedder changed since the last ingest: every document was re-indexed")
    state = "ready" if r.dense_ready else f"NOT ready ({r.dense_error or 'incomplete'}; run ingest again to finish)"
    print(f"  hybrid {state} after {r.seconds_total:.1f} s total")
    for w in r.warnings:
        err(f"warning: {w}")
    if r.failed:
        err(f"failed ({len(r.failed)}):")
        for e in r.failed:
            err(f"  {e}")


def label_lines(r: IngestReport, shown: int) -> list[str]:
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
            if rec.meta.get(key):
                parts.append(f"{key} {rec.meta[key]} (set at ingest)")
            elif rec.printed.get(key):
                where = rec.printed_from.get(key, "")
                parts.append(f"{key} {rec.printed[key]} (printed{', ' + where.split(':')[0] if where.startswith('p.') else ''})")
        if parts:
            lines.append(f"{one_line(doc_id)}: " + " · ".join(parts))
    return lines[:shown] + ([f"… and {len(lines) - shown} more document(s) with labels"] if len(lines) > shown else [])


def print_hits(hits: Sequence[Hit], width: int = 160) -> None:
    if not hits:
        print("  (no matching chunks)")
    for h in hits:
        snippet = " ".join(h.chunk.text.split())
        print(f"{h.rank:>3}. {h.score:.4f}  {h.chunk.citation()}")
        print(f"      {snippet[:width]}{'…' if len(snippet) > width else ''}")
        if line := members_line(h):
            print(f"      {line}")


def members_line(h: Hit, shown: int = 4) -> str:
    """The other 약관 a grouped hit's clause is printed in (and how many pieces of its own 조
    it folds), e.g. ``same clause in: 교통사고처리지원금(Ⅱ) 특별약관 제1조 (p.79), … (+2 more)``."""
    own = [m for m in h.members if m.yakgwan == h.chunk.yakgwan and m.article == h.chunk.article]
    others = [m for m in h.members if m not in own]
    parts = []
    if others:
        names = [f"{m.yakgwan or m.source} {m.article or m.section or ''} (p.{','.join(map(str, m.pages))})".replace("  ", " ") for m in others[:shown]]
        more = f" (+{len(others) - shown} more)" if len(others) > shown else ""
        parts.append(f"same clause in: {', '.join(names)}{more}")
    if own:
        parts.append(f"{len(own)} more piece{'s' if len(own) > 1 else ''} of this {'조' if h.chunk.article else 'section'}")
    return "; ".join(parts)
