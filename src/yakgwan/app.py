"""Builds the objects behind every command from ``Settings``; shared by the CLI and the API."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from yakgwan.websearch.registry import make_search
from yakgwan.config import Settings
from yakgwan.embedders import make_embedder
from yakgwan.embedders.cache import EmbeddingCache
from yakgwan.core.errors import InputError, YakgwanError
from yakgwan.ingest.run import Ingestor, IngestReport
from yakgwan.llm import LLM, make_llm
from yakgwan.pipelines import PipelineContext
from yakgwan.progress import ProgressSink
from yakgwan.core.protocols import Embedder
from yakgwan.store import open_store
from yakgwan.techniques.ingest_steps import make_steps
from yakgwan.text.registry import make_tokenizer


def embedding_cache(settings: Settings) -> EmbeddingCache:
    return EmbeddingCache(settings.cache_dir / "embeddings.sqlite")


def ingest(
    settings: Settings,
    paths: list[Path],
    strict: bool = False,
    sync: bool = False,
    on_lexical_ready: Callable[[IngestReport], None] | None = None,
    embedder: Embedder | None = None,
    steps: Sequence[str] = (),
    llm: LLM | None = None,
    sink: ProgressSink | None = None,
) -> IngestReport:
    """Ingest ``paths`` into ``settings.index_dir``. ``steps`` names LLM ingest steps
    (``llm_chunk``, ``preprocess``); they use ``llm`` or the configured one."""
    if steps and llm is None:
        llm = make_llm(settings.llm, settings.cache_dir)
        if llm is None:
            raise InputError(None, f"ingest steps {', '.join(steps)} need an LLM: set YAKGWAN_LLM=local or openai (see README)")
    chunk_steps = make_steps(steps, llm)
    ingestor = Ingestor(
        store=open_store(settings.index_dir),
        tokenizer=make_tokenizer(settings.tokenizer),
        embedder=embedder or make_embedder(settings.embedder),
        cache=embedding_cache(settings),
        quiet=settings.quiet,
        strict=strict,
        sync=sync,
        on_lexical_ready=on_lexical_ready,
        chunk_steps=chunk_steps,
        sink=sink,
    )
    try:
        return ingestor.run(paths)
    finally:
        ingestor.cache.close()


def pipeline_context(settings: Settings, embedder: Embedder | None = None) -> PipelineContext:
    view = open_store(settings.index_dir).view()

    def _embedder() -> Embedder:
        emb = embedder or make_embedder(settings.embedder)
        if emb.model_id != view.embedder:
            raise YakgwanError(
                f"{settings.index_dir}: index vectors come from {view.embedder!r} but the configured embedder is "
                f"{emb.model_id!r}; re-ingest or set YAKGWAN_EMBEDDER to match"
            )
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
