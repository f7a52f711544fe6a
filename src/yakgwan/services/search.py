"""``search``: one query through one pipeline over an index, as a typed result."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Sequence

from yakgwan.config import Settings
from yakgwan.core.errors import InputError
from yakgwan.messages import Message, msg, said
from yakgwan.core.records import Chunk, Hit, Route
from yakgwan.pipelines import PipelineContext, build_pipeline, ran_as, route_of
from yakgwan.pipelines.scoping import scope_note, scoped
from yakgwan.query.scope import Scope
from yakgwan.services.context import open_context
from yakgwan.store import parse_filters


@dataclass(frozen=True)
class SearchResult:
    """The hits of one search and what produced them: the pipeline's registered name, how far
    the dense list was (``pending`` while an ingest embeds), and a note when the pipeline fell
    back (dense not ready, no LLM)."""

    query: str
    pipeline: str
    hits: tuple[Hit, ...]
    note: Message | None
    latency_ms: float
    route: Route | None = None  # where the route step sent the question (a policy's clause stage)
    filters: tuple[str, ...] = ()  # the filters the search ran under (``store.filters``)
    pending: tuple[int, int] | None = None  # while an ingest embeds: (chunks embedded, chunks); None when dense is ready
    scope: Scope | None = None  # the documents the query named (``query.scope``): searched alone
    scope_note: Message | None = None  # what the reader is told of it (None: the query named nothing)

    @property
    def dense(self) -> str:
        """``"ready"``, or how many chunks are embedded so far (the API's ``dense``)."""
        return "ready" if self.pending is None else f"pending ({self.pending[0]}/{self.pending[1]} chunks embedded)"

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        """The ``search --json`` object, its note in ``lang``."""
        return {
            "pipeline": self.pipeline,
            "lists": {"bm25": "ready", "dense": self.dense},  # the BM25 list is written before a search sees the documents
            "note": said(self.note, lang),
            "latency_ms": self.latency_ms,
            "query": self.query,
            "route": self.route.to_json() if self.route is not None else None,
            "filters": list(self.filters),
            "scope": None if self.scope is None else {**self.scope.to_json(), "note": said(self.scope_note, lang)},
            "hits": [hit_json(h) for h in self.hits],
        }


def check_query(query: str, k: int) -> None:
    """The arguments of a search, checked before any index is opened."""
    if k <= 0:
        raise InputError(None, msg("query.k", k=k))
    if not query.strip():
        raise InputError(None, msg("query.empty"))


def search_index(settings: Settings, query: str, pipeline: str, k: int, filters: Sequence[str] = ()) -> SearchResult:
    """One search over the index at ``settings.index_dir`` (its context opened for it), inside
    the part of it that ``filters`` keep (``KEY=VALUE`` … , ``store.filters``)."""
    check_query(query, k)
    parsed = parse_filters(filters)
    res = search(open_context(settings, filters=parsed), query, pipeline, k)
    return replace(res, filters=tuple(map(str, parsed)))


def search(ctx: PipelineContext, query: str, pipeline: str, k: int) -> SearchResult:
    """Run one search over ``ctx``'s index; reuse ``ctx`` to keep models loaded across searches.
    A query naming insurers, groups or products is searched over the documents it names
    (``pipelines.scoping``); one naming only insurers the index lacks is searched over all of
    them, and the result's ``scope_note`` says so."""
    check_query(query, k)
    ctx, scope = scoped(ctx, query)
    retriever, note = build_pipeline(pipeline, ctx)
    t0 = time.perf_counter()
    hits = retriever.retrieve(query, k)
    ms = (time.perf_counter() - t0) * 1000
    view = ctx.view
    route = route_of(pipeline, query, ctx) if view.dense_ready else None
    pending = None if view.dense_ready else (view.dense_embedded, len(view.chunks))
    return SearchResult(query, ran_as(pipeline, ctx), tuple(hits), note, ms, route, pending=pending, scope=scope, scope_note=scope_note(scope))


def hit_json(h: Hit) -> dict[str, Any]:
    """One hit with its full provenance, as ``search --json`` and the HTTP API give it."""
    c = h.chunk
    return {
        "rank": h.rank,
        "score": h.score,
        "produced_by": h.produced_by,
        "components": h.components,
        "chunk_id": c.chunk_id,
        "doc": c.doc_id,
        "source": c.source,
        "title": c.title,
        "pages": list(c.pages),
        "yakgwan": c.yakgwan,
        "part": c.part,
        "article": c.article,
        "article_title": c.article_title,
        "paragraph": c.paragraph,
        "section": c.section,
        "span": [c.start, c.end],
        "text": c.text,
        # the same clause in other 약관 and further pieces of the same 조, each with its provenance
        "members": [member_json(m) for m in h.members],
    }


def member_json(c: Chunk) -> dict[str, Any]:
    """A chunk folded into a hit by grouping: where it is, so that every variant can be cited."""
    return {
        "chunk_id": c.chunk_id, "doc": c.doc_id, "source": c.source, "pages": list(c.pages), "yakgwan": c.yakgwan,
        "article": c.article, "article_title": c.article_title, "paragraph": c.paragraph, "section": c.section,
        "span": [c.start, c.end],
    }
