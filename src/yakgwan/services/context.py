"""The pipeline context of an index, built from ``Settings`` (models made on first use)."""

from __future__ import annotations

from typing import Sequence

from yakgwan.config import Settings
from yakgwan.core.errors import YakgwanError
from yakgwan.messages import msg
from yakgwan.core.location import display_location
from yakgwan.core.protocols import Embedder
from yakgwan.embedders import make_embedder
from yakgwan.llm import make_llm
from yakgwan.pipelines import PipelineContext
from yakgwan.store import Filter, IndexView, Records, Store, open_records, open_store, parse_filters, restrict, sibling_collection
from yakgwan.text.registry import make_tokenizer
from yakgwan.websearch.registry import make_search

# a client opens an index by its location and reads it through these protocols
__all__ = ["IndexView", "PipelineContext", "Records", "Store", "open_context", "open_records", "open_store", "parse_filters", "restrict",
           "sibling_collection"]


def open_context(settings: Settings, embedder: Embedder | None = None, filters: Sequence[Filter] = ()) -> PipelineContext:
    """The pipeline context of the index at ``settings.index_dir``; ``embedder`` replaces the
    configured one (it must be the embedder the index was built with); ``filters`` keep part of
    the index (``store.filters``: every pipeline then sees only the chunks they keep)."""
    view = restrict(open_store(settings.index_dir).view(), filters)

    def _embedder() -> Embedder:
        emb = embedder or make_embedder(settings.embedder, settings.cache_dir)
        if emb.model_id != view.embedder:
            raise YakgwanError(msg("index.embedder_changed", where=display_location(settings.index_dir), indexed=repr(view.embedder), configured=repr(emb.model_id)))
        return emb

    return PipelineContext(
        view=view,
        make_tokenizer=lambda: make_tokenizer(view.tokenizer),
        make_embedder=_embedder,
        make_llm=lambda: make_llm(settings.llm, settings.cache_dir),
        make_search=lambda: make_search(settings.search),
        cache_dir=settings.cache_dir,
        quiet=settings.quiet,
    )
